package io.jvs.forwarder.daemon;

import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The daemon's control socket: a Unix stream socket at the config's {@code control} path, mode 0660, owned by
 * the config's group. Each request is one line of text ({@code status}, {@code reload}), answered by the
 * conductor and closed by an empty line; every client has its own virtual thread and a time limit, so a slow or
 * silent one holds up nobody. The ipvsadm-compatible protocol of {@code tools/jvs ctl} comes in over the same
 * socket next; this is the part the daemon's own tools and tests use now.
 */
final class ControlServer implements AutoCloseable
{
    /** The longest request line. */
    static final int MAX_REQUEST = 4096;
    /** A client that sends no whole request within this long is dropped. */
    static final long REQUEST_TIMEOUT_MS = 5_000;

    private final Path path;
    private final ServerSocketChannel server;
    private final Function<String, String> handler;
    private final Thread acceptor;
    private volatile boolean closed;

    private ControlServer(final Path path, final ServerSocketChannel server, final Function<String, String> handler)
    {
        this.path = path;
        this.server = server;
        this.handler = handler;
        this.acceptor = Thread.ofPlatform().daemon().name("jvs-control").unstarted(this::accept);
    }

    /**
     * Creates the socket (and its directory), refusing to take over a socket another daemon answers on; a stale
     * socket file left by a killed daemon is replaced.
     *
     * @param group the group that may use the socket, or null to leave the file's group as created (root's).
     * @throws IOException naming the path when it cannot be made.
     */
    static ControlServer open(final Path path, final String group, final Function<String, String> handler)
        throws IOException
    {
        final Path parent = path.toAbsolutePath().getParent();
        if (parent != null)
        {
            Files.createDirectories(parent);
        }
        if (Files.exists(path))
        {
            if (answers(path))
            {
                throw new IOException(path + ": another jvs daemon answers on this control socket");
            }
            Files.delete(path);
        }
        final ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try
        {
            server.bind(UnixDomainSocketAddress.of(path));
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-rw----"));
            if (group != null)
            {
                final GroupPrincipal principal = path.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByGroupName(group);
                Files.getFileAttributeView(path, java.nio.file.attribute.PosixFileAttributeView.class)
                    .setGroup(principal);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            server.close();
            Files.deleteIfExists(path);
            throw ex;
        }
        final ControlServer control = new ControlServer(path, server, handler);
        control.acceptor.start();
        return control;
    }

    private static boolean answers(final Path path)
    {
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            return probe.isConnected();
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    Path path()
    {
        return path;
    }

    private void accept()
    {
        while (!closed)
        {
            try
            {
                final SocketChannel client = server.accept();
                Thread.ofVirtual().name("jvs-control-client").start(() -> serve(client));
            }
            catch (final ClosedChannelException ex)
            {
                return;
            }
            catch (final IOException ex)
            {
                if (!closed)
                {
                    DaemonLog.warning("control socket " + path + ": " + ex.getMessage());
                }
            }
        }
    }

    private void serve(final SocketChannel client)
    {
        try (client)
        {
            final String request = readLine(client);
            final String answer = request == null ? "error: no request line within " + REQUEST_TIMEOUT_MS +
                " ms (at most " + MAX_REQUEST + " bytes)\n" : handler.apply(request.trim());
            final ByteBuffer out = ByteBuffer.wrap((answer.endsWith("\n") ? answer : answer + "\n")
                .concat("\n").getBytes(StandardCharsets.UTF_8));
            while (out.hasRemaining())
            {
                client.write(out);
            }
        }
        catch (final EOFException ex)
        {
            // Closed before sending anything, as the probe of a second daemon's start does: nothing to answer.
            return;
        }
        catch (final IOException | RuntimeException ex)
        {
            DaemonLog.warning("control client: " + ex.getMessage());
        }
    }

    private static String readLine(final SocketChannel client) throws IOException
    {
        final ByteBuffer in = ByteBuffer.allocate(MAX_REQUEST);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REQUEST_TIMEOUT_MS);
        client.configureBlocking(false);
        while (in.hasRemaining() && System.nanoTime() - deadline < 0)
        {
            final int read = client.read(in);
            if (read < 0)
            {
                if (in.position() == 0)
                {
                    throw new EOFException("control client closed without a request");
                }
                break;
            }
            for (int i = 0; i < in.position(); i++)
            {
                if (in.get(i) == '\n')
                {
                    client.configureBlocking(true);
                    return new String(in.array(), 0, i, StandardCharsets.UTF_8);
                }
            }
            if (read == 0)
            {
                try
                {
                    Thread.sleep(2);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
        return null;
    }

    /** Stops accepting and removes the socket file. */
    @Override
    public void close()
    {
        closed = true;
        try
        {
            server.close();
        }
        catch (final IOException ignored)
        {
            // Closing: nothing more to do with it.
        }
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            DaemonLog.warning("cannot remove the control socket " + path + ": " + ex.getMessage());
        }
    }
}
