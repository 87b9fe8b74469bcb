package io.jvs.forwarder.daemon.it;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.jvs.nativebindings.testing.TestNetwork;

/**
 * The system tests' TCP client: opens a number of connections from a namespace (a few at a time), sends
 * seeded random bytes on each, reads back the server's count, SHA-256 and identity ({@link TrafficProtocol})
 * and checks them against its own. Every connection ends in a {@link Connection} result, ok or not, within
 * the load's bounds: a connect timeout, a read timeout, and a deadline for the whole load after which
 * whatever is still open is closed.
 */
public final class TcpDigestClient
{
    private TcpDigestClient()
    {
    }

    /**
     * What to send.
     *
     * @param target      where to connect (the VIP and port, usually).
     * @param connections how many connections.
     * @param bytes       bytes sent on each.
     * @param parallel    how many are open at a time.
     * @param seed        the payloads' seed.
     * @param sources     the client addresses to bind, connection {@code i} using {@code sources[i % size]};
     *                    empty to let the kernel choose.
     * @param echo        whether the server echoes (it must have been started so): the client then reads the
     *                    bytes back and checks them as well.
     * @param connectTimeout per connection.
     * @param readTimeout    per read.
     * @param deadline       for the whole load.
     */
    public record Load(InetSocketAddress target, int connections, long bytes, int parallel, long seed,
                       List<InetAddress> sources, boolean echo, Duration connectTimeout, Duration readTimeout,
                       Duration deadline)
    {
        public Load
        {
            Objects.requireNonNull(target, "target");
            if (connections < 1 || parallel < 1 || bytes < 0)
            {
                throw new IllegalArgumentException("a load needs connections >= 1, parallel >= 1, bytes >= 0, not " +
                    connections + ", " + parallel + ", " + bytes);
            }
            sources = List.copyOf(sources);
        }

        /**
         * @return {@code connections} connections of {@code bytes} bytes to {@code target}, 4 at a time, seed
         *         1, no echo, the kernel's source address, 2 s to connect, 5 s per read, 60 s in all.
         */
        public static Load of(final InetSocketAddress target, final int connections, final long bytes)
        {
            return new Load(target, connections, bytes, 4, 1, List.of(), false, Duration.ofSeconds(2),
                Duration.ofSeconds(5), Duration.ofSeconds(60));
        }

        public Load parallel(final int value)
        {
            return new Load(target, connections, bytes, value, seed, sources, echo, connectTimeout, readTimeout,
                deadline);
        }

        public Load seed(final long value)
        {
            return new Load(target, connections, bytes, parallel, value, sources, echo, connectTimeout,
                readTimeout, deadline);
        }

        public Load sources(final List<? extends InetAddress> value)
        {
            return new Load(target, connections, bytes, parallel, seed, List.copyOf(value), echo, connectTimeout,
                readTimeout, deadline);
        }

        public Load echo(final boolean value)
        {
            return new Load(target, connections, bytes, parallel, seed, sources, value, connectTimeout,
                readTimeout, deadline);
        }

        public Load timeouts(final Duration connect, final Duration read, final Duration whole)
        {
            return new Load(target, connections, bytes, parallel, seed, sources, echo, connect, read, whole);
        }
    }

    /**
     * One connection's outcome.
     *
     * @param index          its number in the load (0-based), which also picks its payload.
     * @param local          the client's address and port (null when the socket never bound).
     * @param remote         where it connected.
     * @param serverIdentity who answered, or null.
     * @param ok             the server read exactly the bytes sent (count and SHA-256), and so did the client
     *                       of the echo when there was one.
     * @param bytesSent      what the client wrote.
     * @param bytesConfirmed what the server said it read (-1 without an answer).
     * @param bytesEchoed    what came back before the answer.
     * @param elapsed        from before connect to the server's FIN.
     * @param failure        why not ok, or null.
     */
    public record Connection(int index, InetSocketAddress local, InetSocketAddress remote, String serverIdentity,
                             boolean ok, long bytesSent, long bytesConfirmed, long bytesEchoed, Duration elapsed,
                             String failure)
    {
        /** @return the client port, or -1. */
        public int localPort()
        {
            return local == null ? -1 : local.getPort();
        }
    }

    /**
     * Runs the load from {@code namespace} and waits for it.
     *
     * @return one result per connection, by index.
     */
    public static List<Connection> run(final String namespace, final Load load)
    {
        final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
        final ExecutorService pool = Executors.newFixedThreadPool(load.parallel(), runnable ->
        {
            final Thread thread = new Thread(runnable, "tcp-digest-client");
            thread.setDaemon(true);
            return thread;
        });
        final List<Future<Connection>> futures = new ArrayList<>();
        for (int i = 0; i < load.connections(); i++)
        {
            final int index = i;
            futures.add(pool.submit(() -> connection(namespace, load, index, open)));
        }
        pool.shutdown();
        try
        {
            if (!pool.awaitTermination(load.deadline().toMillis(), TimeUnit.MILLISECONDS))
            {
                // Past the deadline: closing the channels fails the connections still running, which ends them.
                open.forEach(TcpDigestClient::closeQuietly);
                pool.shutdownNow();
                pool.awaitTermination(10, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            open.forEach(TcpDigestClient::closeQuietly);
            pool.shutdownNow();
            throw new IllegalStateException("interrupted waiting for the TCP load", ex);
        }
        final List<Connection> results = new ArrayList<>();
        for (int i = 0; i < futures.size(); i++)
        {
            results.add(result(futures.get(i), load, i));
        }
        results.sort(Comparator.comparingInt(Connection::index));
        return results;
    }

    private static Connection result(final Future<Connection> future, final Load load, final int index)
    {
        if (future.isDone() && !future.isCancelled())
        {
            try
            {
                return future.get();
            }
            catch (final Exception ex)
            {
                return failed(load, index, null, 0, Duration.ZERO, "the connection's task failed: " + ex);
            }
        }
        return failed(load, index, null, 0, load.deadline(), "did not finish within the load's deadline " +
            load.deadline());
    }

    private static Connection connection(final String namespace, final Load load, final int index,
        final Set<SocketChannel> open)
    {
        final long start = System.nanoTime();
        final InetAddress source = load.sources().isEmpty() ? null :
            load.sources().get(index % load.sources().size());
        final AtomicLong sent = new AtomicLong();
        InetSocketAddress local = null;
        final SocketChannel channel;
        try
        {
            channel = TestNetwork.callIn(namespace, () -> SocketChannel.open(
                load.target().getAddress() instanceof Inet4Address ? StandardProtocolFamily.INET :
                    StandardProtocolFamily.INET6));
        }
        catch (final RuntimeException ex)
        {
            return failed(load, index, null, 0, elapsed(start), "cannot open a socket in " + namespace + ": " + ex);
        }
        open.add(channel);
        try (channel)
        {
            if (source != null)
            {
                channel.bind(new InetSocketAddress(source, 0));
            }
            final Socket socket = channel.socket();
            socket.setSoTimeout((int)load.readTimeout().toMillis());
            socket.connect(load.target(), (int)load.connectTimeout().toMillis());
            local = (InetSocketAddress)channel.getLocalAddress();
            final byte[] digest = TrafficProtocol.Payload.digest(load.seed(), index, load.bytes());
            final OutputStream out = socket.getOutputStream();
            final InputStream in = socket.getInputStream();
            out.write(TrafficProtocol.requestHeader(load.bytes(), digest));
            final Echo echo = load.echo() ? Echo.start(in, load.bytes()) : null;
            final TrafficProtocol.Payload payload = new TrafficProtocol.Payload(load.seed(), index, load.bytes());
            final byte[] chunk = new byte[TrafficProtocol.CHUNK];
            int length;
            while ((length = payload.next(chunk)) > 0)
            {
                out.write(chunk, 0, length);
                sent.addAndGet(length);
            }
            out.flush();
            socket.shutdownOutput();
            long echoed = 0;
            byte[] echoDigest = null;
            if (echo != null)
            {
                echo.thread.join(load.readTimeout().toMillis() + load.deadline().toMillis());
                if (echo.failure != null)
                {
                    throw echo.failure;
                }
                echoed = echo.bytes;
                echoDigest = echo.digest;
            }
            final TrafficProtocol.Response response = TrafficProtocol.readResponse(new DataInputStream(in));
            final StringBuilder failure = new StringBuilder();
            if (response.bytes() != load.bytes())
            {
                failure.append("the server read ").append(response.bytes()).append(" bytes, not ")
                    .append(load.bytes()).append("; ");
            }
            if (!Arrays.equals(response.digest(), digest))
            {
                failure.append("the server's SHA-256 differs; ");
            }
            if (echo != null && (echoed != load.bytes() || !Arrays.equals(echoDigest, digest)))
            {
                failure.append("the echo (").append(echoed).append(" bytes) differs from what was sent; ");
            }
            if (in.read() != -1)
            {
                failure.append("bytes after the server's answer; ");
            }
            return new Connection(index, local, load.target(), response.identity(), failure.isEmpty(), sent.get(),
                response.bytes(), echoed, elapsed(start), failure.isEmpty() ? null : failure.toString());
        }
        catch (final IOException | RuntimeException ex)
        {
            return failed(load, index, local, sent.get(), elapsed(start), ex.toString());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return failed(load, index, local, sent.get(), elapsed(start), "interrupted");
        }
        finally
        {
            open.remove(channel);
        }
    }

    /** Reads the echo on its own thread while the client writes: both directions flow at once. */
    private static final class Echo
    {
        private final InputStream in;
        private final long expected;
        private final Thread thread;
        private volatile long bytes;
        private volatile byte[] digest;
        private volatile IOException failure;

        private Echo(final InputStream in, final long expected)
        {
            this.in = in;
            this.expected = expected;
            this.thread = new Thread(this::read, "tcp-digest-echo");
            thread.setDaemon(true);
        }

        static Echo start(final InputStream in, final long expected)
        {
            final Echo echo = new Echo(in, expected);
            echo.thread.start();
            return echo;
        }

        private void read()
        {
            final MessageDigest sha = TrafficProtocol.sha256();
            final byte[] chunk = new byte[TrafficProtocol.CHUNK];
            long total = 0;
            try
            {
                while (total < expected)
                {
                    final int length = in.read(chunk, 0, (int)Math.min(chunk.length, expected - total));
                    if (length < 0)
                    {
                        break;
                    }
                    sha.update(chunk, 0, length);
                    total += length;
                }
            }
            catch (final IOException ex)
            {
                failure = ex;
            }
            bytes = total;
            digest = sha.digest();
        }
    }

    private static Connection failed(final Load load, final int index, final InetSocketAddress local,
        final long sent, final Duration elapsed, final String why)
    {
        return new Connection(index, local, load.target(), null, false, sent, -1, 0, elapsed, why);
    }

    private static Duration elapsed(final long start)
    {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private static void closeQuietly(final SocketChannel channel)
    {
        try
        {
            channel.close();
        }
        catch (final IOException ignored)
        {
            // Closing to end a stalled connection; nothing else to do if it fails.
        }
    }

    /** @return the connections that are not ok, for an assertion's message. */
    public static List<Connection> failures(final List<Connection> connections)
    {
        return connections.stream().filter(connection -> !connection.ok()).toList();
    }
}
