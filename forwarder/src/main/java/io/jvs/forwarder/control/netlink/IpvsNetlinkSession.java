package io.jvs.forwarder.control.netlink;

import io.jvs.forwarder.control.ControlProtocol;
import io.jvs.forwarder.control.ControlProtocolException;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One control-socket connection in netlink mode (after a {@link ControlProtocol#NETLINK} header): datagrams in both
 * directions, each after its 32-bit big-endian length, each request answered by {@link IpvsNetlinkEndpoint}. The
 * client may stay connected and idle for as long as it likes (keepalived holds its socket for hours), but once the
 * first byte of a datagram has come the rest must come within the time limit, and each answer must be taken within
 * it: a stuck client costs its own virtual thread, nothing else.
 */
public final class IpvsNetlinkSession
{
    /** The largest datagram either way, as the preload library's limit. */
    public static final int MAX_DATAGRAM = 1 << 20;

    /** How a session ended. */
    public enum End
    {
        /** The client closed the connection between datagrams. */
        CLOSED,
        /** The client sent something that is not a datagram stream: cut inside one, oversized, or headerless. */
        MALFORMED
    }

    private final SocketChannel channel;
    private final IpvsNetlinkEndpoint endpoint;
    private final long timeoutNs;

    /**
     * @param channel   the connection, after its control header.
     * @param backend   what the requests drive.
     * @param timeoutMs how long one datagram may take to arrive once started, and an answer to be taken.
     */
    public IpvsNetlinkSession(final SocketChannel channel, final IpvsNetlinkBackend backend, final long timeoutMs)
    {
        this.channel = channel;
        this.endpoint = new IpvsNetlinkEndpoint(backend);
        this.timeoutNs = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    }

    /**
     * Serves datagrams until the client goes.
     *
     * @return why it ended.
     * @throws SocketTimeoutException when a started datagram did not come whole, or an answer was not taken, in time.
     * @throws IOException            when the connection fails.
     */
    public End run() throws IOException
    {
        final ByteBuffer length = ByteBuffer.allocate(4);
        while (true)
        {
            length.clear().limit(1);
            // Idle between datagrams: a blocking read parks the virtual thread until the client speaks or goes.
            channel.configureBlocking(true);
            if (channel.read(length) < 0)
            {
                return End.CLOSED;
            }
            channel.configureBlocking(false);
            final long deadline = System.nanoTime() + timeoutNs;
            length.limit(4);
            if (!ControlProtocol.fill(channel, length, deadline))
            {
                return End.MALFORMED;
            }
            final long size = Integer.toUnsignedLong(length.getInt(0));
            if (size > MAX_DATAGRAM)
            {
                return End.MALFORMED;
            }
            // Memory as the bytes come, not as the length claims: each session announcing a megabyte and sending
            // nothing more would hold a megabyte of the daemon's heap until its deadline.
            final ByteBuffer datagram;
            try
            {
                datagram = ControlProtocol.readPayload(channel, (int)size, deadline);
            }
            catch (final ControlProtocolException ex)
            {
                return End.MALFORMED;
            }
            final List<byte[]> answers;
            try
            {
                answers = endpoint.handle(datagram.array());
            }
            catch (final NetlinkException ex)
            {
                return End.MALFORMED;
            }
            final long answerDeadline = System.nanoTime() + timeoutNs;
            for (final byte[] answer : answers)
            {
                final ByteBuffer framed = ByteBuffer.allocate(4 + answer.length).putInt(answer.length).put(answer)
                    .flip();
                ControlProtocol.write(channel, framed, answerDeadline);
            }
        }
    }
}
