package io.jvs.forwarder.control;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Sends one request to a daemon's control socket and returns its answer: what {@code tools/jvs ctl}, the demo and
 * the tests use.
 */
public final class ControlClient
{
    /** The default control socket, as the config's {@code control} statement defaults. */
    public static final Path DEFAULT_SOCKET = Path.of("/run/jvs/jvs.sock");

    private ControlClient()
    {
    }

    /**
     * @param socket  the daemon's control socket.
     * @param request what to ask.
     * @param timeout how long the whole exchange may take.
     * @return the daemon's answer.
     * @throws IOException when the daemon cannot be reached, is too slow, or answers with a malformed message
     *                     (the message says which).
     */
    public static ControlResponse exchange(final Path socket, final ControlRequest request, final Duration timeout)
        throws IOException
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX))
        {
            channel.connect(UnixDomainSocketAddress.of(socket));
            channel.configureBlocking(false);
            ControlProtocol.write(channel, ControlProtocol.encode(request), deadline);
            final ControlProtocol.Frame frame = ControlProtocol.read(channel, deadline);
            if (frame == null)
            {
                throw new IOException(socket + ": the daemon closed the connection without an answer");
            }
            return ControlProtocol.decodeResponse(frame.type(), frame.payload());
        }
        catch (final ControlProtocolException ex)
        {
            throw new IOException(socket + ": a malformed answer: " + ex.getMessage(), ex);
        }
    }
}
