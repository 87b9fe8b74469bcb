package io.jvs.forwarder.daemon.it;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.jvs.nativebindings.testing.TestNetwork;

/**
 * A real server's UDP service for the system tests: it answers every datagram with the datagram's SHA-256,
 * its length and the server's identity ({@link TrafficProtocol}), and records who asked.
 * <p>
 * It binds each address it is given, not the wildcard: an answer must leave from the address the request
 * was sent to (the VIP under DR and TUN), and a wildcard socket would answer from the interface's primary
 * address instead. One thread per address; {@link #close()} ends them.
 */
public final class UdpDigestServer implements AutoCloseable
{
    private static final int MAX_DATAGRAM = 65535;

    private final String identity;
    private final List<DatagramChannel> channels;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Asked> asked = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * One datagram as the server saw it.
     *
     * @param client the sender's address.
     * @param local  the address it was sent to (the socket's).
     * @param bytes  its length.
     */
    public record Asked(InetSocketAddress client, InetSocketAddress local, int bytes)
    {
    }

    private UdpDigestServer(final String identity, final List<DatagramChannel> channels)
    {
        this.identity = identity;
        this.channels = channels;
    }

    /**
     * @param addresses the addresses and ports to answer on, e.g. the VIP's and the server's own.
     */
    public static UdpDigestServer start(final String namespace, final String identity,
        final List<InetSocketAddress> addresses)
    {
        final List<DatagramChannel> channels = new ArrayList<>();
        try
        {
            for (final InetSocketAddress address : addresses)
            {
                channels.add(TestNetwork.callIn(namespace, () -> open(address)));
            }
        }
        catch (final RuntimeException ex)
        {
            channels.forEach(UdpDigestServer::closeQuietly);
            throw new IllegalStateException("cannot bind " + addresses + " in " + namespace, ex);
        }
        final UdpDigestServer server = new UdpDigestServer(identity, List.copyOf(channels));
        for (final DatagramChannel channel : server.channels)
        {
            final Thread thread = new Thread(() -> server.answer(channel), "udp-digest-" + identity);
            thread.setDaemon(true);
            server.threads.add(thread);
            thread.start();
        }
        return server;
    }

    private static DatagramChannel open(final InetSocketAddress address) throws IOException
    {
        final DatagramChannel channel = DatagramChannel.open(address.getAddress() instanceof Inet4Address ?
            StandardProtocolFamily.INET : StandardProtocolFamily.INET6);
        try
        {
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(address);
            return channel;
        }
        catch (final IOException ex)
        {
            channel.close();
            throw ex;
        }
    }

    private void answer(final DatagramChannel channel)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(MAX_DATAGRAM);
        InetSocketAddress local = null;
        try
        {
            local = (InetSocketAddress)channel.getLocalAddress();
        }
        catch (final IOException ex)
        {
            return;
        }
        while (!closed)
        {
            try
            {
                buffer.clear();
                final SocketAddress from = channel.receive(buffer);
                buffer.flip();
                asked.add(new Asked((InetSocketAddress)from, local, buffer.remaining()));
                channel.send(ByteBuffer.wrap(TrafficProtocol.udpAnswer(buffer.array(), buffer.remaining(),
                    identity)), from);
            }
            catch (final ClosedChannelException ex)
            {
                return;
            }
            catch (final IOException ex)
            {
                // A failed send (an ICMP error queued on the socket, say) is the client's loss; keep serving.
                if (closed)
                {
                    return;
                }
            }
        }
    }

    public String identity()
    {
        return identity;
    }

    /** @return the datagrams answered so far. */
    public List<Asked> asked()
    {
        return new ArrayList<>(asked);
    }

    /** Closes the sockets, which ends the threads. */
    @Override
    public void close()
    {
        closed = true;
        channels.forEach(UdpDigestServer::closeQuietly);
        for (final Thread thread : threads)
        {
            try
            {
                thread.join(Duration.ofSeconds(5));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void closeQuietly(final DatagramChannel channel)
    {
        try
        {
            channel.close();
        }
        catch (final IOException ignored)
        {
            // Nothing to undo.
        }
    }
}
