package io.jvs.forwarder.daemon;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlProtocol;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.control.netlink.GenericNetlink;
import io.jvs.forwarder.control.netlink.InMemoryIpvsBackend;
import io.jvs.forwarder.control.netlink.IpvsNetlink;
import io.jvs.forwarder.control.netlink.IpvsNetlinkSession;
import io.jvs.forwarder.control.netlink.Netlink;
import io.jvs.forwarder.control.netlink.NetlinkMessage;
import io.jvs.forwarder.control.netlink.NetlinkWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The control socket: a framed request reaches the handler whole and its answer comes back byte for byte; a
 * malformed, truncated or oversized request is refused, reaches no handler and is counted; a client that sends
 * nothing or half a request is dropped at the time limit while others are served; a peer that is neither root
 * nor in the socket's group is refused even when the file's mode lets it connect, and one in the group only by a
 * supplementary group is served; the text lines {@code status} and {@code reload} work for socat; the socket file
 * is mode 0660 with the configured group, goes away on close, is never taken over from a running daemon and is
 * replaced when stale. With an IPVS backend, a netlink session stays served while idle past the time limit but is
 * dropped when stuck inside a datagram, and {@code /proc} file requests get the backend's text.
 */
class ControlServerTest
{
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int NOBODY = 65534;
    /** The clients' reads: not the common pool, which has one thread on two cores and would queue them. */
    private static final ExecutorService THREADS = Executors.newVirtualThreadPerTaskExecutor();

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<ControlRequest> handled = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
    }

    /** Answers with what it was asked, and records it. */
    private ControlResponse echo(final ControlRequest request)
    {
        handled.add(request);
        return switch (request)
        {
            case ControlRequest.Ipvsadm ipvsadm -> new ControlResponse.Result(3,
                String.join("|", ipvsadm.arguments()).getBytes(StandardCharsets.UTF_8), ipvsadm.input());
            case ControlRequest.Status status -> ControlResponse.Result.of(0, "forwarding\nworkers 2\n", "");
            case ControlRequest.Reload reload -> ControlResponse.Result.of(0, "ok reloaded\n", "");
        };
    }

    @Test
    void shouldCarryAnIpvsadmRequestAndItsAnswerWhole() throws Exception
    {
        final Path path = dir.resolve("run/jvs/control");
        final ControlServer server = open(path, null, this::echo);
        assertThat(server.path()).isEqualTo(path);
        final byte[] rules = "-A -t 10.0.0.1:80 -s rr\n-a -t 10.0.0.1:80 -r 10.0.1.2:80 -m -w 1\n"
            .getBytes(StandardCharsets.UTF_8);

        final ControlResponse response = ControlClient.exchange(path,
            new ControlRequest.Ipvsadm(List.of("-R", "ünïcode", ""), rules), TIMEOUT);

        assertThat(response).isInstanceOf(ControlResponse.Result.class);
        final ControlResponse.Result result = (ControlResponse.Result)response;
        assertThat(result.status()).isEqualTo(3);
        assertThat(new String(result.output(), StandardCharsets.UTF_8)).isEqualTo("-R|ünïcode|");
        assertThat(result.error()).isEqualTo(rules);
        assertThat(handled).hasSize(1);
        assertThat(((ControlRequest.Ipvsadm)handled.get(0)).arguments()).containsExactly("-R", "ünïcode", "");
        assertThat(server.counter(ControlCounters.SERVED)).isEqualTo(1);
    }

    @Test
    void shouldAnswerTheTextLinesForScripts() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, this::echo);

        assertThat(ask(path, "status\n")).isEqualTo("forwarding\nworkers 2\n\n");
        assertThat(ask(path, "  reload \r\n")).isEqualTo("ok reloaded\n\n");
        assertThat(ask(path, "bogus\n")).isEqualTo("error unknown request \"bogus\" (status, reload)\n\n");
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            write(client, "sta".getBytes(StandardCharsets.US_ASCII));
            Thread.sleep(50);
            write(client, "tus\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readAll(client)).isEqualTo("forwarding\nworkers 2\n\n".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(handled).hasSize(3);
    }

    @Test
    void shouldRefuseMalformedFramesWithoutCallingTheHandler() throws Exception
    {
        final Path path = dir.resolve("control");
        final ControlServer server = open(path, null, this::echo);
        final ByteBuffer status = ControlProtocol.encode(new ControlRequest.Status());

        assertThat(refusal(path, frame(status, 1, (byte)'X'))).contains("not a jvs control message");
        assertThat(refusal(path, frame(status, 4, (byte)2))).contains("version 2 is not supported");
        assertThat(refusal(path, frame(status, 7, (byte)1))).contains("unknown flags");
        assertThat(refusal(path, frame(status, 5, (byte)9))).contains("unknown request type 9");
        // A status request with a payload it should not have.
        final ByteBuffer withPayload = ByteBuffer.allocate(ControlProtocol.HEADER_LENGTH + 3)
            .put(status.duplicate()).put(new byte[3]).flip();
        withPayload.putInt(8, 3);
        assertThat(refusal(path, bytes(withPayload))).contains("3 bytes after the request's last field");
        // An ipvsadm request whose argument claims more bytes than there are.
        final ByteBuffer liar = ControlProtocol.encode(new ControlRequest.Ipvsadm(List.of("-L"), new byte[0]));
        liar.putInt(ControlProtocol.HEADER_LENGTH + 2, 1000);
        assertThat(refusal(path, bytes(liar))).contains("argument 1 claims 1000 bytes");
        // Not UTF-8.
        final ByteBuffer latin = ControlProtocol.encode(new ControlRequest.Ipvsadm(List.of("-L"), new byte[0]));
        latin.put(ControlProtocol.HEADER_LENGTH + 6, (byte)0xC3);
        assertThat(refusal(path, bytes(latin))).contains("argument 1 is not UTF-8");

        assertThat(handled).isEmpty();
        assertThat(server.counter(ControlCounters.MALFORMED)).isEqualTo(7);
        assertThat(server.counter(ControlCounters.SERVED)).isZero();
    }

    @Test
    void shouldRefuseAnOversizedRequestFromItsHeaderAlone() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, this::echo);
        final ByteBuffer header = ControlProtocol.encode(new ControlRequest.Status());
        header.putInt(8, ControlProtocol.MAX_PAYLOAD + 1);
        final long start = System.nanoTime();
        // Only the header is sent: the refusal must not wait for the 4 MiB it announces.
        assertThat(refusal(path, bytes(header))).contains("larger than " + ControlProtocol.MAX_PAYLOAD);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
            .isLessThan(ControlServer.REQUEST_TIMEOUT_MS);
        assertThat(handled).isEmpty();
    }

    @Test
    void shouldCarryAnAnswerLargerThanTheLargestRequest() throws Exception
    {
        // An -L -n -c of 100 000 connections is some 8 MB: the daemon once refused to encode it and closed the
        // connection, so ctl said it could not reach the daemon.
        final Path path = dir.resolve("control");
        final byte[] listing = new byte[2 * ControlProtocol.MAX_PAYLOAD + 7];
        java.util.Arrays.fill(listing, (byte)'c');
        open(path, null, request -> new ControlResponse.Result(0, listing, new byte[0]));

        final ControlResponse response = ControlClient.exchange(path,
            new ControlRequest.Ipvsadm(List.of("-L", "-n", "-c"), new byte[0]), TIMEOUT);

        assertThat(response).isInstanceOf(ControlResponse.Result.class);
        assertThat(((ControlResponse.Result)response).output()).isEqualTo(listing);
    }

    @Test
    void shouldTakeMemoryForAPayloadAsItsBytesComeNotAsItsHeaderClaims() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, this::echo);
        final java.lang.management.MemoryMXBean memory = java.lang.management.ManagementFactory.getMemoryMXBean();
        final int clients = 50;
        final List<SocketChannel> stalled = new ArrayList<>();
        try
        {
            System.gc();
            final long before = memory.getHeapMemoryUsage().getUsed();
            for (int i = 0; i < clients; i++)
            {
                final SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path));
                stalled.add(client);
                final ByteBuffer header = ControlProtocol.encode(new ControlRequest.Status());
                header.putInt(8, ControlProtocol.MAX_PAYLOAD);
                write(client, bytes(header));
            }
            // Their threads have read the headers and wait for the 4 MiB each announced.
            Thread.sleep(1_000);
            System.gc();
            final long held = memory.getHeapMemoryUsage().getUsed() - before;
            assertThat(held).as("bytes held for %d clients that each claimed %d", clients, ControlProtocol.MAX_PAYLOAD)
                .isLessThan((long)clients * ControlProtocol.MAX_PAYLOAD / 8);
        }
        finally
        {
            for (final SocketChannel client : stalled)
            {
                client.close();
            }
        }
    }

    @Test
    void shouldTakeMemoryForANetlinkDatagramAsItsBytesCome() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, this::echo, new InMemoryIpvsBackend());
        final java.lang.management.MemoryMXBean memory = java.lang.management.ManagementFactory.getMemoryMXBean();
        final int sessions = 200;
        final List<SocketChannel> stalled = new ArrayList<>();
        try
        {
            System.gc();
            final long before = memory.getHeapMemoryUsage().getUsed();
            for (int i = 0; i < sessions; i++)
            {
                final SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path));
                stalled.add(client);
                write(client, bytes(ByteBuffer.allocate(ControlProtocol.HEADER_LENGTH + 4)
                    .put(ControlProtocol.encodeNetlinkStart()).putInt(IpvsNetlinkSession.MAX_DATAGRAM).flip()));
            }
            Thread.sleep(1_000);
            System.gc();
            final long held = memory.getHeapMemoryUsage().getUsed() - before;
            assertThat(held).as("bytes held for %d sessions that each announced %d", sessions,
                IpvsNetlinkSession.MAX_DATAGRAM).isLessThan((long)sessions * IpvsNetlinkSession.MAX_DATAGRAM / 8);
        }
        finally
        {
            for (final SocketChannel client : stalled)
            {
                client.close();
            }
        }
    }

    @Test
    void shouldNotSpendTheCoresOnClientsThatStall() throws Exception
    {
        // Each stalled client's thread once polled its socket every millisecond: a thousand of them kept both cores
        // of a two-core box busy, which the workers need.
        final Path path = dir.resolve("control");
        open(path, null, this::echo);
        final com.sun.management.OperatingSystemMXBean system = (com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        final List<SocketChannel> stalled = new ArrayList<>();
        try
        {
            for (int i = 0; i < 300; i++)
            {
                stalled.add(SocketChannel.open(UnixDomainSocketAddress.of(path)));
            }
            Thread.sleep(500);
            final long cpuBefore = system.getProcessCpuTime();
            final long wallBefore = System.nanoTime();
            Thread.sleep(2_000);
            final double cores = (double)(system.getProcessCpuTime() - cpuBefore) / (System.nanoTime() - wallBefore);
            assertThat(cores).as("cores busy while 300 clients stall").isLessThan(0.25);
        }
        finally
        {
            for (final SocketChannel client : stalled)
            {
                client.close();
            }
        }
    }

    @Test
    void shouldDropSilentAndHalfFinishedClientsAtTheTimeLimitWhileServingOthers() throws Exception
    {
        final Path path = dir.resolve("control");
        final ControlServer server = open(path, null, this::echo);
        final byte[] request = bytes(ControlProtocol.encode(new ControlRequest.Ipvsadm(List.of("-L", "-n"),
            new byte[0])));
        try (SocketChannel silent = SocketChannel.open(UnixDomainSocketAddress.of(path));
             SocketChannel half = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            write(half, java.util.Arrays.copyOf(request, request.length / 2));
            final CompletableFuture<byte[]> silentAnswer = CompletableFuture.supplyAsync(() -> readAll(silent),
                THREADS);
            final CompletableFuture<byte[]> halfAnswer = CompletableFuture.supplyAsync(() -> readAll(half), THREADS);
            for (int i = 0; i < 3; i++)
            {
                final long start = System.nanoTime();
                assertThat(ControlClient.exchange(path, new ControlRequest.Status(), TIMEOUT))
                    .isInstanceOf(ControlResponse.Result.class);
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms for an answer")
                    .isLessThan(ControlServer.REQUEST_TIMEOUT_MS / 2);
            }
            assertThat(silentAnswer).isNotDone();
            assertThat(halfAnswer).isNotDone();

            assertThat(silentAnswer.get(ControlServer.REQUEST_TIMEOUT_MS + 10_000, TimeUnit.MILLISECONDS))
                .as("nothing to say to a client that said nothing").isEmpty();
            final ByteBuffer refused = ByteBuffer.wrap(halfAnswer.get(10_000, TimeUnit.MILLISECONDS));
            assertThat(ControlProtocol.checkHeader(refused)).isEqualTo(ControlProtocol.REFUSED);
        }
        assertThat(handled).hasSize(3).allMatch(ControlRequest.Status.class::isInstance);
        assertThat(server.counter(ControlCounters.TIMED_OUT)).isEqualTo(2);
    }

    @Test
    void shouldRefuseAStrangerThatTheFileModeLetsInAndServeAMemberBySupplementaryGroup() throws Exception
    {
        final Path path = dir.resolve("control");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        final ControlServer server = open(path, "daemon", this::echo);
        final int daemonGroup = (int)Files.getAttribute(path, "unix:gid");
        // An operator's chmod: now anyone may connect, but the check still decides.
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-rw-rw-"));

        final String stranger = askAs(path, "--groups=100");
        assertThat(stranger).isEqualTo("error permission denied: uid " + NOBODY + " is not root and not in group " +
            daemonGroup + "\n\n");
        assertThat(server.counter(ControlCounters.REFUSED_PEERS)).isEqualTo(1);

        final String member = askAs(path, "--groups=100," + daemonGroup);
        assertThat(member).isEqualTo("forwarding\nworkers 2\n\n");
        assertThat(handled).hasSize(1);
    }

    @Test
    void shouldCreateTheSocketWithMode0660AndRemoveItOnClose() throws Exception
    {
        final Path path = dir.resolve("control");
        final ControlServer server = ControlServer.open(path, null, this::echo);
        try
        {
            assertThat(Files.getPosixFilePermissions(path)).isEqualTo(PosixFilePermissions.fromString("rw-rw----"));
            assertThat(Files.readAttributes(path, PosixFileAttributes.class).isOther()).as("a socket").isTrue();
        }
        finally
        {
            server.close();
        }
        assertThat(path).doesNotExist();
        assertThatThrownBy(() -> SocketChannel.open(UnixDomainSocketAddress.of(path))).isInstanceOf(IOException.class);
    }

    @Test
    void shouldGiveTheSocketTheConfiguredGroup() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, "daemon", this::echo);
        assertThat(Files.readAttributes(path, PosixFileAttributes.class).group().getName()).isEqualTo("daemon");
    }

    @Test
    void shouldRefuseAnUnknownGroupAndLeaveNoSocketBehind()
    {
        final Path path = dir.resolve("control");
        assertThat(ControlServer.refusal(path, "no-such-group-jvs")).isEqualTo(
            "no group \"no-such-group-jvs\" on this system");
        assertThatThrownBy(() -> ControlServer.open(path, "no-such-group-jvs", this::echo))
            .isInstanceOf(IOException.class).hasMessage(path + ": no group \"no-such-group-jvs\" on this system");
        assertThat(path).doesNotExist();
    }

    @Test
    void shouldRefuseAPathThatIsAnotherFileAndLeaveItAsItWas() throws Exception
    {
        final Path path = dir.resolve("jvs.conf");
        Files.writeString(path, "interface eth0\n");
        assertThat(ControlServer.refusal(path, null)).startsWith("exists and is not a socket");

        assertThatThrownBy(() -> ControlServer.open(path, null, this::echo)).isInstanceOf(IOException.class)
            .hasMessageStartingWith(path + ": exists and is not a socket");

        assertThat(path).hasContent("interface eth0");
    }

    @Test
    void shouldRefuseASymbolicLinkAndADirectoryAndAParentThatIsAFile() throws Exception
    {
        final Path target = Files.writeString(dir.resolve("target"), "kept\n");
        final Path link = Files.createSymbolicLink(dir.resolve("link.sock"), target);
        final Path directory = Files.createDirectory(dir.resolve("sockets"));
        final Path underFile = target.resolve("jvs.sock");

        assertThat(ControlServer.refusal(link, null)).isEqualTo("is a symbolic link: name the socket's own path");
        assertThat(ControlServer.refusal(directory, null)).startsWith("exists and is not a socket");
        assertThat(ControlServer.refusal(underFile, null)).isEqualTo(target + " is not a directory");
        assertThatThrownBy(() -> ControlServer.open(link, null, this::echo)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> ControlServer.open(directory, null, this::echo)).isInstanceOf(IOException.class);

        assertThat(link).isSymbolicLink();
        assertThat(target).hasContent("kept");
        assertThat(directory).isDirectory();
    }

    @Test
    void shouldRemoveOnlyItsOwnSocketOnClose() throws Exception
    {
        final Path path = dir.resolve("control");
        final ControlServer server = ControlServer.open(path, null, this::echo);
        // Someone puts a file of theirs where the socket was while the daemon runs.
        Files.delete(path);
        Files.writeString(path, "theirs\n");

        server.close();

        assertThat(path).hasContent("theirs");
    }

    @Test
    void shouldRefuseASecondServerOnASocketThatAnswers() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, request -> ControlResponse.Result.of(0, "first\n", ""));

        assertThatThrownBy(() -> ControlServer.open(path, null, this::echo)).isInstanceOf(IOException.class)
            .hasMessageContaining(path.toString()).hasMessageContaining("another jvs daemon");

        assertThat(path).exists();
        assertThat(ask(path, "status\n")).isEqualTo("first\n\n");
    }

    @Test
    void shouldDropAClientThatClosesWithoutARequestWithoutAWarning() throws Exception
    {
        final Path path = dir.resolve("control");
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        DaemonLog.redirect(new PrintStream(log, true, StandardCharsets.UTF_8));
        try
        {
            open(path, null, this::echo);
            // What a second daemon's start does to see whether this one answers.
            SocketChannel.open(UnixDomainSocketAddress.of(path)).close();
            assertThatThrownBy(() -> ControlServer.open(path, null, this::echo)).isInstanceOf(IOException.class);
            Thread.sleep(200);
            assertThat(ask(path, "status\n")).isEqualTo("forwarding\nworkers 2\n\n");
        }
        finally
        {
            DaemonLog.redirect(System.err);
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain("control client");
    }

    @Test
    void shouldReplaceAStaleSocketThatNoOneListensOn() throws Exception
    {
        final Path path = dir.resolve("control");
        // A killed daemon's socket: bound, then closed without removing the file.
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            dead.bind(UnixDomainSocketAddress.of(path));
        }
        assertThat(path).exists();

        open(path, null, request -> ControlResponse.Result.of(0, "new daemon\n", ""));

        assertThat(ask(path, "status\n")).isEqualTo("new daemon\n\n");
    }

    @Test
    void shouldServeManyClientsAtOnce() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, this::echo);
        final List<CompletableFuture<ControlResponse>> answers = new ArrayList<>();
        for (int i = 0; i < 50; i++)
        {
            final List<String> arguments = List.of("-L", "request " + i);
            answers.add(CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return ControlClient.exchange(path, new ControlRequest.Ipvsadm(arguments, new byte[0]), TIMEOUT);
                }
                catch (final IOException ex)
                {
                    throw new IllegalStateException(ex);
                }
            }, THREADS));
        }
        for (int i = 0; i < answers.size(); i++)
        {
            final ControlResponse.Result result = (ControlResponse.Result)answers.get(i).get(30, TimeUnit.SECONDS);
            assertThat(new String(result.output(), StandardCharsets.UTF_8)).isEqualTo("-L|request " + i);
        }
    }

    @Test
    void shouldKeepAnIdleNetlinkSessionAndDropOneStuckInsideADatagram() throws Exception
    {
        final Path path = dir.resolve("control");
        final ControlServer server = open(path, null, this::echo, new InMemoryIpvsBackend());
        try (SocketChannel idle = netlink(path); SocketChannel stuck = netlink(path))
        {
            final byte[] resolve = new NetlinkWriter(GenericNetlink.ID_CTRL, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK,
                1, 99).genl(GenericNetlink.CTRL_CMD_GETFAMILY, 1)
                .string(GenericNetlink.CTRL_ATTR_FAMILY_NAME, "IPVS").finish();
            sendDatagram(idle, resolve);
            assertThat(NetlinkMessage.split(receiveDatagram(idle)).getFirst().type()).isEqualTo(GenericNetlink.ID_CTRL);
            assertThat(NetlinkMessage.split(receiveDatagram(idle)).getFirst().type()).isEqualTo(Netlink.NLMSG_ERROR);

            // Two bytes of a datagram's length, then nothing.
            write(stuck, new byte[] {0, 0});
            final CompletableFuture<byte[]> dropped = CompletableFuture.supplyAsync(() -> readAll(stuck), THREADS);
            Thread.sleep(ControlServer.REQUEST_TIMEOUT_MS + 1_000);
            // Told why in a control frame (the preload library prints its reason), then closed.
            final ByteBuffer refused = ByteBuffer.wrap(dropped.get(10, TimeUnit.SECONDS));
            assertThat(ControlProtocol.checkHeader(refused)).isEqualTo(ControlProtocol.REFUSED);
            assertThat(new String(refused.array(), ControlProtocol.HEADER_LENGTH,
                refused.capacity() - ControlProtocol.HEADER_LENGTH, StandardCharsets.UTF_8)).contains("time limit");
            assertThat(server.counter(ControlCounters.TIMED_OUT)).isEqualTo(1);

            // The idle one, past the same limit, is still served.
            final byte[] info = new NetlinkWriter(IpvsNetlink.FAMILY_ID, Netlink.NLM_F_REQUEST, 2, 99)
                .genl(IpvsNetlink.CMD_GET_INFO, 1).finish();
            sendDatagram(idle, info);
            final NetlinkMessage reply = NetlinkMessage.split(receiveDatagram(idle)).getFirst();
            assertThat(reply.sequence()).isEqualTo(2);
            assertThat(reply.payload()[0]).isEqualTo((byte)IpvsNetlink.CMD_SET_INFO);
            assertThat(ControlClient.exchange(path, new ControlRequest.Status(), TIMEOUT))
                .isInstanceOf(ControlResponse.Result.class);
        }
    }

    @Test
    void shouldDropANetlinkSessionThatSendsAnOversizedCutOrHeaderlessDatagram() throws Exception
    {
        final Path path = dir.resolve("control");
        final ControlServer server = open(path, null, this::echo, new InMemoryIpvsBackend());
        try (SocketChannel oversized = netlink(path); SocketChannel headerless = netlink(path);
             SocketChannel cut = netlink(path))
        {
            write(oversized, ByteBuffer.allocate(4).putInt((1 << 20) + 1).array());
            assertThat(readAll(oversized)).isEmpty();
            sendDatagram(headerless, new byte[8]);
            assertThat(readAll(headerless)).isEmpty();
            // A datagram announced as 100 bytes that ends after 10.
            write(cut, ByteBuffer.allocate(14).putInt(100).array());
            cut.shutdownOutput();
            assertThat(readAll(cut)).isEmpty();
        }
        assertThat(server.counter(ControlCounters.MALFORMED)).isEqualTo(3);
    }

    @Test
    void shouldRefuseNetlinkWithAPayloadOrWithoutABackend() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, this::echo, new InMemoryIpvsBackend());
        final ByteBuffer withPayload = ByteBuffer.allocate(ControlProtocol.HEADER_LENGTH + 2)
            .put(ControlProtocol.encodeNetlinkStart()).put(new byte[2]).flip();
        withPayload.putInt(8, 2);
        assertThat(refusal(path, bytes(withPayload))).contains("a netlink request has no payload");

        final Path plain = dir.resolve("plain");
        open(plain, null, this::echo);
        assertThat(refusal(plain, bytes(ControlProtocol.encodeNetlinkStart()))).contains("serves no IPVS netlink");
        assertThat(refusal(plain, bytes(ControlProtocol.encodeProcFile("/proc/net/ip_vs_conn"))))
            .contains("serves no IPVS files");
        assertThat(handled).isEmpty();
    }

    @Test
    void shouldServeProcFilesFromTheBackend() throws Exception
    {
        final Path path = dir.resolve("control");
        final InMemoryIpvsBackend backend = new InMemoryIpvsBackend();
        backend.setConnections("TCP 0A000102 9C40 0A000001 0050 0A000101 1F90 ESTABLISHED     890\n");
        open(path, null, this::echo, backend);

        final ControlResponse.Result file = result(path, ControlProtocol.encodeProcFile("/proc/net/ip_vs_conn"));
        assertThat(file.status()).isZero();
        assertThat(new String(file.output(), StandardCharsets.US_ASCII)).isEqualTo(backend.connectionsFile());

        final ControlResponse.Result missing = result(path, ControlProtocol.encodeProcFile("/proc/net/ip_vs_nope"));
        assertThat(missing.status()).as("ENOENT").isEqualTo(2);
        assertThat(missing.output()).isEmpty();

        final ByteBuffer empty = ControlProtocol.encodeProcFile("");
        assertThat(refusal(path, bytes(empty))).contains("a path of 1 to 4096 bytes");
    }

    private static ControlResponse.Result result(final Path path, final ByteBuffer request) throws Exception
    {
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            write(client, bytes(request));
            final ByteBuffer answer = ByteBuffer.wrap(readAll(client));
            final int type = ControlProtocol.checkHeader(answer);
            return (ControlResponse.Result)ControlProtocol.decodeResponse(type,
                answer.position(ControlProtocol.HEADER_LENGTH).slice());
        }
    }

    /** A connection switched to netlink datagrams. */
    private static SocketChannel netlink(final Path path) throws IOException
    {
        final SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(path));
        write(channel, bytes(ControlProtocol.encodeNetlinkStart()));
        return channel;
    }

    private static void sendDatagram(final SocketChannel channel, final byte[] datagram) throws IOException
    {
        write(channel, ByteBuffer.allocate(4 + datagram.length).putInt(datagram.length).put(datagram).array());
    }

    private static byte[] receiveDatagram(final SocketChannel channel) throws Exception
    {
        return CompletableFuture.supplyAsync(() ->
        {
            try
            {
                final ByteBuffer length = ByteBuffer.allocate(4);
                while (length.hasRemaining() && channel.read(length) >= 0)
                {
                    // Reading the length.
                }
                final ByteBuffer datagram = ByteBuffer.allocate(length.getInt(0));
                while (datagram.hasRemaining() && channel.read(datagram) >= 0)
                {
                    // Reading the datagram.
                }
                return datagram.array();
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        }, THREADS).get(10, TimeUnit.SECONDS);
    }

    // -----------------------------------------------------------------------------------------------------

    private ControlServer open(final Path path, final String group,
        final Function<ControlRequest, ControlResponse> handler) throws IOException
    {
        return open(path, group, handler, null);
    }

    private ControlServer open(final Path path, final String group,
        final Function<ControlRequest, ControlResponse> handler, final InMemoryIpvsBackend ipvs) throws IOException
    {
        final ControlServer server = ControlServer.open(path, group, handler, ipvs);
        open.add(server);
        return server;
    }

    /** Sends raw bytes as one request and returns the refusal's reason (failing if the answer is not one). */
    private static String refusal(final Path path, final byte[] request) throws Exception
    {
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            write(client, request);
            final ByteBuffer answer = ByteBuffer.wrap(readAll(client));
            final int type = ControlProtocol.checkHeader(answer);
            final ControlResponse response = ControlProtocol.decodeResponse(type,
                answer.position(ControlProtocol.HEADER_LENGTH).slice());
            assertThat(response).isInstanceOf(ControlResponse.Refused.class);
            return ((ControlResponse.Refused)response).reason();
        }
    }

    private static byte[] frame(final ByteBuffer frame, final int index, final byte value)
    {
        final byte[] bytes = bytes(frame);
        bytes[index] = value;
        return bytes;
    }

    private static byte[] bytes(final ByteBuffer buffer)
    {
        final ByteBuffer copy = buffer.duplicate();
        final byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return bytes;
    }

    /** A text request from a process with uid and gid nobody and the given supplementary groups. */
    private static String askAs(final Path path, final String groups) throws Exception
    {
        final Process process = new ProcessBuilder("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, groups,
            "socat", "-t", "5", "-", "UNIX-CONNECT:" + path).redirectErrorStream(true).start();
        process.getOutputStream().write("status\n".getBytes(StandardCharsets.US_ASCII));
        process.getOutputStream().close();
        final byte[] output = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        return new String(output, StandardCharsets.UTF_8);
    }

    private static String ask(final Path path, final String request) throws IOException
    {
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            write(client, request.getBytes(StandardCharsets.UTF_8));
            return new String(readAll(client), StandardCharsets.UTF_8);
        }
    }

    private static void write(final SocketChannel client, final byte[] bytes) throws IOException
    {
        final ByteBuffer out = ByteBuffer.wrap(bytes);
        while (out.hasRemaining())
        {
            client.write(out);
        }
    }

    /** Reads until the server closes (or resets), at most 20 s. */
    private static byte[] readAll(final SocketChannel client)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final CompletableFuture<Void> done = CompletableFuture.runAsync(() ->
        {
            final ByteBuffer in = ByteBuffer.allocate(8192);
            try
            {
                while (client.read(in) >= 0)
                {
                    synchronized (bytes)
                    {
                        bytes.write(in.array(), 0, in.position());
                    }
                    in.clear();
                }
            }
            catch (final IOException ex)
            {
                // Connection reset after the answer: what was read is the answer.
            }
        }, THREADS);
        try
        {
            done.get(20, TimeUnit.SECONDS);
        }
        catch (final Exception ex)
        {
            throw new AssertionError("no whole answer within 20 s; so far " + bytes.size() + " bytes", ex);
        }
        synchronized (bytes)
        {
            return bytes.toByteArray();
        }
    }
}
