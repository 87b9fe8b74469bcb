package io.jvs.forwarder.daemon.it;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.jvs.nativebindings.testing.TestNetwork;

/**
 * The system tests' UDP client: sends seeded datagrams from a namespace, each from its own socket (so its
 * own source port, a new connection for the balancer) connected to the target, and checks every answer's
 * SHA-256 against the datagram ({@link TrafficProtocol}). A request unanswered within the timeout is sent
 * again, up to the load's attempts; every request ends in an {@link Exchange}.
 */
public final class UdpDigestClient
{
    private static final int MAX_DATAGRAM = 65535;
    /** Sockets opened at most for one request before giving up on a client port the load has not used. */
    private static final int MAX_PORT_TRIES = 64;

    private UdpDigestClient()
    {
    }

    /**
     * What to send.
     *
     * @param target   where to (the VIP and port, usually).
     * @param requests how many datagrams, one socket each.
     * @param bytes    each datagram's length.
     * @param seed     the payloads' seed.
     * @param sources  client addresses to bind, request {@code i} using {@code sources[i % size]}; empty for the
     *                 kernel's choice.
     * @param timeout  how long to wait for each answer.
     * @param attempts how many times to send a request before it counts as lost.
     */
    public record Load(InetSocketAddress target, int requests, int bytes, long seed, List<InetAddress> sources,
                       Duration timeout, int attempts)
    {
        public Load
        {
            Objects.requireNonNull(target, "target");
            if (requests < 1 || bytes < 0 || bytes > MAX_DATAGRAM - 48 || attempts < 1)
            {
                throw new IllegalArgumentException("a UDP load needs requests >= 1, 0 <= bytes <= 65487, " +
                    "attempts >= 1, not " + requests + ", " + bytes + ", " + attempts);
            }
            sources = List.copyOf(sources);
        }

        /** @return {@code requests} datagrams of {@code bytes} bytes, seed 1, 1 s per answer, 3 attempts. */
        public static Load of(final InetSocketAddress target, final int requests, final int bytes)
        {
            return new Load(target, requests, bytes, 1, List.of(), Duration.ofSeconds(1), 3);
        }

        public Load seed(final long value)
        {
            return new Load(target, requests, bytes, value, sources, timeout, attempts);
        }

        public Load sources(final List<? extends InetAddress> value)
        {
            return new Load(target, requests, bytes, seed, List.copyOf(value), timeout, attempts);
        }

        public Load timeout(final Duration value, final int tries)
        {
            return new Load(target, requests, bytes, seed, sources, value, tries);
        }
    }

    /**
     * One request's outcome.
     *
     * @param index          its number in the load.
     * @param local          the client's address and port.
     * @param serverIdentity who answered, or null.
     * @param ok             an answer came whose SHA-256 and length match the datagram.
     * @param attempts       how many times it was sent.
     * @param elapsed        from the first send to the answer (or to giving up).
     * @param failure        why not ok, or null.
     */
    public record Exchange(int index, InetSocketAddress local, String serverIdentity, boolean ok, int attempts,
                           Duration elapsed, String failure)
    {
    }

    /**
     * Sends the load's requests one after the other from {@code namespace}, each from a client address and port
     * none of the load's earlier requests used (with several source addresses, two may share a port): the kernel may
     * hand a closed socket's ephemeral port out again, which would make a request part of an earlier one's
     * connection on the balancer.
     *
     * @return one result per request, by index.
     */
    public static List<Exchange> run(final String namespace, final Load load)
    {
        final List<Exchange> results = new ArrayList<>();
        final Set<InetSocketAddress> used = new HashSet<>();
        for (int i = 0; i < load.requests(); i++)
        {
            results.add(exchange(namespace, load, i, used));
        }
        return results;
    }

    private static Exchange exchange(final String namespace, final Load load, final int index,
        final Set<InetSocketAddress> used)
    {
        final long start = System.nanoTime();
        final InetAddress source = load.sources().isEmpty() ? null :
            load.sources().get(index % load.sources().size());
        final byte[] request = new TrafficProtocol.Payload(load.seed(), index, load.bytes()).all();
        final MessageDigest sha = TrafficProtocol.sha256();
        final byte[] digest = sha.digest(request);
        InetSocketAddress local = null;
        int attempts = 0;
        final List<DatagramChannel> refused = new ArrayList<>();
        DatagramChannel channel = null;
        try
        {
            // A port an earlier request of this load had is refused and held open meanwhile, so the next socket
            // cannot be given it again.
            for (int tries = 0; tries < MAX_PORT_TRIES && channel == null; tries++)
            {
                final DatagramChannel opened = TestNetwork.callIn(namespace, () -> DatagramChannel.open(
                    load.target().getAddress() instanceof Inet4Address ? StandardProtocolFamily.INET :
                        StandardProtocolFamily.INET6));
                try
                {
                    opened.bind(source == null ? null : new InetSocketAddress(source, 0));
                    opened.connect(load.target());
                }
                catch (final IOException | RuntimeException ex)
                {
                    opened.close();
                    throw ex;
                }
                if (used.add((InetSocketAddress)opened.getLocalAddress()))
                {
                    channel = opened;
                }
                else
                {
                    refused.add(opened);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            closeAll(refused);
            return new Exchange(index, null, null, false, 0, elapsed(start), "cannot open a socket: " + ex);
        }
        closeAll(refused);
        if (channel == null)
        {
            return new Exchange(index, null, null, false, 0, elapsed(start),
                "no client port unused by this load in " + MAX_PORT_TRIES + " sockets");
        }
        try (DatagramChannel open = channel)
        {
            local = (InetSocketAddress)open.getLocalAddress();
            final DatagramSocket socket = open.socket();
            socket.setSoTimeout((int)load.timeout().toMillis());
            final DatagramPacket answer = new DatagramPacket(new byte[MAX_DATAGRAM], MAX_DATAGRAM);
            while (attempts < load.attempts())
            {
                attempts++;
                open.write(ByteBuffer.wrap(request));
                try
                {
                    socket.receive(answer);
                }
                catch (final SocketTimeoutException ex)
                {
                    continue;
                }
                final TrafficProtocol.UdpAnswer read = TrafficProtocol.readUdpAnswer(
                    ByteBuffer.wrap(answer.getData(), 0, answer.getLength()));
                final boolean ok = read.length() == request.length && Arrays.equals(read.digest(), digest);
                return new Exchange(index, local, read.identity(), ok, attempts, elapsed(start),
                    ok ? null : "the answer's digest or length (" + read.length() + ") differs");
            }
            return new Exchange(index, local, null, false, attempts, elapsed(start), "no answer to " + attempts +
                " attempts of " + load.timeout());
        }
        catch (final IOException | RuntimeException ex)
        {
            return new Exchange(index, local, null, false, attempts, elapsed(start), ex.toString());
        }
    }

    private static Duration elapsed(final long start)
    {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * One datagram to {@code service} from {@code socket} (whose timeout applies) and the identity of the server
     * that answered, for tests that follow one connection (one socket) through a change.
     *
     * @return the identity, or null when no answer came in time.
     */
    public static String identityOrNull(final java.net.DatagramSocket socket, final InetSocketAddress service)
        throws java.io.IOException
    {
        final byte[] request = "are you there".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        socket.send(new java.net.DatagramPacket(request, request.length, service));
        final byte[] answer = new byte[2048];
        final java.net.DatagramPacket packet = new java.net.DatagramPacket(answer, answer.length);
        try
        {
            socket.receive(packet);
        }
        catch (final java.net.SocketTimeoutException ex)
        {
            return null;
        }
        return TrafficProtocol.readUdpAnswer(java.nio.ByteBuffer.wrap(answer, 0, packet.getLength())).identity();
    }


    private static void closeAll(final List<DatagramChannel> channels)
    {
        for (final DatagramChannel channel : channels)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignored)
            {
                // Closing a socket that was never used for anything: nothing to report.
            }
        }
    }
}
