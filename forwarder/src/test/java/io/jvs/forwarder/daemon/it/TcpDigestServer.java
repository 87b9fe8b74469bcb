package io.jvs.forwarder.daemon.it;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.jvs.nativebindings.testing.TestNetwork;

/**
 * A real server's TCP service for the system tests: it accepts connections (in the namespace it was
 * started in), reads each to the client's FIN while computing its SHA-256, optionally echoes the bytes as
 * they arrive, then answers with the count, the digest and its identity ({@link TrafficProtocol}) and
 * closes. It checks the bytes against the client's header too and keeps a record of every connection.
 * <p>
 * Each connection is served on its own thread with a read timeout, so a stalled client ends in a failed
 * record, not a hung server. {@link #close()} stops accepting and closes whatever is still open.
 */
public final class TcpDigestServer implements AutoCloseable
{
    /** How long a connection may stay silent before the server gives up on it. */
    public static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

    private final String identity;
    private final ServerSocketChannel listener;
    private final boolean echo;
    private final List<Served> served = new CopyOnWriteArrayList<>();
    private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean closed;

    /**
     * One connection as the server saw it.
     *
     * @param client        the peer's address (the client's own after DR/TUN, its address after NAT...).
     * @param local         the address the connection was made to (the VIP, or the real server's own).
     * @param bytes         how many bytes it read.
     * @param declaredBytes how many the client's header announced (-1 if no header arrived).
     * @param ok            whether the count and the SHA-256 match the header.
     * @param failure       why not, or null.
     */
    public record Served(InetSocketAddress client, InetSocketAddress local, long bytes, long declaredBytes,
                         boolean ok, String failure)
    {
    }

    private TcpDigestServer(final String identity, final ServerSocketChannel listener, final boolean echo)
    {
        this.identity = identity;
        this.listener = listener;
        this.echo = echo;
        this.acceptor = new Thread(this::accept, "tcp-digest-" + identity);
        acceptor.setDaemon(true);
    }

    /**
     * Listens on every address (IPv4 and IPv6) of the namespace on {@code port}.
     *
     * @param identity what the server answers as, e.g. its name "rs1".
     * @param echo     whether to send every byte back as it arrives.
     */
    public static TcpDigestServer start(final String namespace, final String identity, final int port,
        final boolean echo)
    {
        return start(namespace, identity, new InetSocketAddress(port), echo);
    }

    /**
     * Listens on one address (or the wildcard) and port.
     */
    public static TcpDigestServer start(final String namespace, final String identity,
        final InetSocketAddress address, final boolean echo)
    {
        final ServerSocketChannel listener = TestNetwork.callIn(namespace, () ->
        {
            final ServerSocketChannel channel = ServerSocketChannel.open();
            try
            {
                channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                channel.bind(address, 256);
                return channel;
            }
            catch (final IOException ex)
            {
                channel.close();
                throw new IllegalStateException("cannot listen on " + address + " in " + namespace, ex);
            }
        });
        final TcpDigestServer server = new TcpDigestServer(identity, listener, echo);
        server.acceptor.start();
        return server;
    }

    private void accept()
    {
        while (!closed)
        {
            final SocketChannel channel;
            try
            {
                channel = listener.accept();
            }
            catch (final ClosedChannelException ex)
            {
                return;
            }
            catch (final IOException ex)
            {
                if (closed)
                {
                    return;
                }
                continue;
            }
            open.add(channel);
            final Thread worker = new Thread(() -> serve(channel), "tcp-digest-" + identity + "-conn");
            worker.setDaemon(true);
            worker.start();
        }
    }

    private void serve(final SocketChannel channel)
    {
        InetSocketAddress client = null;
        InetSocketAddress local = null;
        long bytes = 0;
        long declared = -1;
        boolean recorded = false;
        try (channel)
        {
            client = (InetSocketAddress)channel.getRemoteAddress();
            local = (InetSocketAddress)channel.getLocalAddress();
            final Socket socket = channel.socket();
            socket.setSoTimeout((int)READ_TIMEOUT.toMillis());
            final InputStream in = socket.getInputStream();
            final OutputStream out = socket.getOutputStream();
            final DataInputStream header = new DataInputStream(in);
            final int magic = header.readInt();
            if (magic != TrafficProtocol.REQUEST_MAGIC)
            {
                served.add(new Served(client, local, 0, -1, false,
                    String.format("the request starts with 0x%08x, not the magic", magic)));
                return;
            }
            declared = header.readLong();
            final byte[] expected = new byte[TrafficProtocol.DIGEST_BYTES];
            header.readFully(expected);
            final MessageDigest digest = TrafficProtocol.sha256();
            final byte[] chunk = new byte[TrafficProtocol.CHUNK];
            int length;
            while ((length = in.read(chunk)) >= 0)
            {
                digest.update(chunk, 0, length);
                bytes += length;
                if (echo)
                {
                    out.write(chunk, 0, length);
                }
            }
            final byte[] actual = digest.digest();
            final boolean ok = bytes == declared && Arrays.equals(actual, expected);
            // Recorded before answering: a client that has its answer finds the server's record already there.
            served.add(new Served(client, local, bytes, declared, ok, ok ? null : "read " + bytes + " bytes, " +
                HexFormat.of().formatHex(actual) + ", the client announced " + declared + " bytes, " +
                HexFormat.of().formatHex(expected)));
            recorded = true;
            out.write(TrafficProtocol.response(bytes, actual, identity));
            out.flush();
            socket.shutdownOutput();
        }
        catch (final EOFException ex)
        {
            served.add(new Served(client, local, bytes, declared, false, "the connection ended in the header"));
        }
        catch (final IOException | RuntimeException ex)
        {
            if (!recorded)
            {
                served.add(new Served(client, local, bytes, declared, false, ex.toString()));
            }
        }
        finally
        {
            open.remove(channel);
        }
    }

    public String identity()
    {
        return identity;
    }

    /** @return the port it listens on. */
    public int port()
    {
        try
        {
            return ((InetSocketAddress)listener.getLocalAddress()).getPort();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("the listener of " + identity + " is closed", ex);
        }
    }

    /**
     * @return the connections served so far, in the order they finished; a connection is recorded when the
     *         server has read it to the end, before it answers.
     */
    public List<Served> served()
    {
        return new ArrayList<>(served);
    }

    /** @return the clients' addresses of the connections served so far. */
    public List<InetAddress> clientAddresses()
    {
        return served.stream().map(record -> record.client() == null ? null : record.client().getAddress())
            .toList();
    }

    /** Stops accepting, closes the connections still open and waits briefly for the acceptor to end. */
    @Override
    public void close()
    {
        closed = true;
        try
        {
            listener.close();
        }
        catch (final IOException ignored)
        {
            // Closing is all that is wanted; a failure leaves nothing to undo.
        }
        for (final SocketChannel channel : open)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignored)
            {
                // As above.
            }
        }
        try
        {
            acceptor.join(Duration.ofSeconds(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
