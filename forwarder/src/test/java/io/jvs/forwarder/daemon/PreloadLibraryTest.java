package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.control.netlink.InMemoryIpvsBackend;
import io.jvs.forwarder.control.netlink.IpvsNetlink;
import io.jvs.forwarder.control.netlink.IpvsNetlinkEndpoint;
import io.jvs.forwarder.control.netlink.IpvsNetlinkRequest;
import io.jvs.forwarder.control.netlink.IpvsServiceKey;
import io.jvs.forwarder.control.netlink.IpvsServiceOptions;
import io.jvs.forwarder.daemon.it.PreloadSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The preload library on its own: a C program (src/test/c/preload-check.c) makes the calls libnl, ipvsadm and
 * keepalived make and checks each answer against the kernel's behaviour (addresses and options, one datagram per
 * receive, MSG_PEEK with MSG_TRUNC, MSG_DONTWAIT, poll on a peeked datagram, truncation, SOCK_NONBLOCK, routing
 * sockets left alone, /proc/net/ip_vs_conn through fopen and open); and a daemon that refuses the session is
 * reported with its reason, the program then failing as it does without IPVS. A socket kept open, as keepalived
 * keeps one (src/test/c/preload-session.c), outlives the server it was opened to: its requests go to the next
 * server on the same path, on the same descriptor; while there is none they are answered ENODEV; a request whose
 * session ends before any of its answer came is sent once more to the next server, and a dump whose answer was cut
 * after part of it came is answered EINTR and not asked again.
 */
class PreloadLibraryTest
{
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final int TCP = 6;
    private static Path library;
    private static Path check;
    private static Path session;

    @TempDir
    Path dir;

    private record Run(int status, String output)
    {
    }

    @BeforeAll
    static void build() throws Exception
    {
        final Run built = run(List.of(ROOT.resolve("tools/native/build-preload.sh").toString()), List.of());
        assertThat(built.status()).as(built.output()).isZero();
        library = Path.of(built.output().strip());
        check = Path.of(System.getProperty("user.dir"), "target", "preload-check").toAbsolutePath();
        final Run compiled = run(List.of("cc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", check.toString(),
            Path.of(System.getProperty("user.dir"), "src/test/c/preload-check.c").toString()), List.of());
        assertThat(compiled.status()).as(compiled.output()).isZero();
        session = PreloadSession.build();
    }

    private static Run run(final List<String> command, final List<String> environment) throws Exception
    {
        final ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        for (final String variable : environment)
        {
            final int equals = variable.indexOf('=');
            builder.environment().put(variable.substring(0, equals), variable.substring(equals + 1));
        }
        final Process process = builder.start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError(command + " did not finish in 60 s: " + output);
        }
        return new Run(process.exitValue(), output);
    }

    @Test
    void shouldGiveTheApplicationTheKernelsDatagramSemantics() throws Exception
    {
        final InMemoryIpvsBackend backend = new InMemoryIpvsBackend();
        backend.setConnections("TCP 0A000102 9C40 0A000001 0050 0A000101 1F90 ESTABLISHED     890\n");
        final Path socket = dir.resolve("jvs.sock");
        try (ControlServer server = ControlServer.open(socket, null, request -> new ControlResponse.Refused("no"),
            backend))
        {
            final Run checked = run(List.of(check.toString()), List.of("LD_PRELOAD=" + library,
                "JVS_CONTROL_SOCKET=" + socket));
            assertThat(checked.output()).doesNotContain("FAIL").contains("ok MSG_PEEK|MSG_TRUNC gives the whole " +
                "length", "ok poll sees the peeked datagram", "ok a short buffer truncates", "ok its entry",
                "all passed");
            assertThat(checked.status()).isZero();
            assertThat(server.counter(ControlCounters.SERVED)).as("sessions and file requests").isGreaterThan(3);
        }
    }

    @Test
    void shouldReportADaemonThatRefusesTheSession() throws Exception
    {
        final Path socket = dir.resolve("plain.sock");
        try (ControlServer server = ControlServer.open(socket, null, request -> new ControlResponse.Refused("no")))
        {
            final Run ipvsadm = run(List.of(ROOT.resolve("tools/jvs").toString(), "with-ipvs", "--socket",
                socket.toString(), "--", "/usr/sbin/ipvsadm", "-L", "-n"), List.of());
            assertThat(ipvsadm.output()).contains(
                "jvs-ipvs: the jvs daemon refused: this daemon serves no IPVS netlink sessions",
                "Can't initialize ipvs");
            assertThat(ipvsadm.status()).isNotZero();
        }
    }

    @Test
    void shouldReportAControlSocketThatIsNotThere() throws Exception
    {
        final Run ipvsadm = run(List.of(ROOT.resolve("tools/jvs").toString(), "with-ipvs", "--socket",
            dir.resolve("absent.sock").toString(), "--", "/usr/sbin/ipvsadm", "-L", "-n"), List.of());
        assertThat(ipvsadm.output()).contains("jvs-ipvs: cannot reach the jvs control socket " +
            dir.resolve("absent.sock") + ": No such file or directory");
        assertThat(ipvsadm.status()).isEqualTo(2);
    }

    @Test
    void shouldCarryAKeptSocketOverToTheNextServerAndAnswerENODEVWhileThereIsNone() throws Exception
    {
        final Path socket = dir.resolve("jvs.sock");
        final InMemoryIpvsBackend first = new InMemoryIpvsBackend();
        final InMemoryIpvsBackend second = new InMemoryIpvsBackend();
        final List<String> flags;
        try (ControlServer server = ControlServer.open(socket, null, request -> new ControlResponse.Refused("no"),
            first); PreloadSession client = PreloadSession.start(session, library, socket))
        {
            assertThat(client.command("family")).containsExactly("family " + IpvsNetlink.FAMILY_ID, "ok");
            assertThat(client.command("add 10.0.0.1 80")).containsExactly("ok");
            flags = client.command("flags");
            assertThat(flags).singleElement().asString().endsWith("cloexec 1 nonblock 0");

            server.close();
            // No server: each request is answered as a kernel without the family answers, and the library says why.
            assertThat(client.command("add 10.0.0.2 80")).containsExactly("error 19 No such device");
            assertThat(client.command("dump")).containsExactly("error 19 No such device");
            final String unreachable = "jvs-ipvs: cannot reach the jvs control socket " + socket +
                ": No such file or directory";
            assertThat(client.errorsOnceThey(unreachable)).contains(unreachable).doesNotContain("reconnected");

            try (ControlServer next = ControlServer.open(socket, null,
                request -> new ControlResponse.Refused("no"), second))
            {
                assertThat(client.command("add 10.0.0.3 80")).containsExactly("ok");
                assertThat(client.command("dump")).containsExactly("service 10.0.0.3:80", "done");
                assertThat(client.command("flags")).as("the same descriptor, with its flags").isEqualTo(flags);
                assertThat(client.errorsOnceThey("reconnected")).containsOnlyOnce(
                    "jvs-ipvs: the session with the jvs daemon at " + socket + " had ended; reconnected");
                assertThat(next.counter(ControlCounters.SERVED)).as("one session").isEqualTo(1);
            }
            assertThat(first.serviceCount()).isEqualTo(1);
            assertThat(second.serviceCount()).isEqualTo(1);
        }
    }

    @Test
    void shouldSendARequestOnceMoreToTheNextServerWhenItsSessionEndedUnanswered() throws Exception
    {
        final Path socket = dir.resolve("jvs.sock");
        final InMemoryIpvsBackend first = new InMemoryIpvsBackend();
        final InMemoryIpvsBackend second = new InMemoryIpvsBackend();
        try (ScriptedServer server = ScriptedServer.listen(socket, first);
             PreloadSession client = PreloadSession.start(session, library, socket))
        {
            server.accept();
            client.send("family");
            server.answer();
            assertThat(client.read()).containsExactly("family " + IpvsNetlink.FAMILY_ID, "ok");

            client.send("add 10.0.0.1 80");
            server.take();
            server.stopListening();
            try (ControlServer next = ControlServer.open(socket, null,
                request -> new ControlResponse.Refused("no"), second))
            {
                server.close();
                assertThat(client.read()).as("answered by the next server").containsExactly("ok");
                assertThat(second.applied()).as("sent once more, once").hasSize(1);
                assertThat(first.serviceCount()).isZero();
                assertThat(client.command("add 10.0.0.1 80")).containsExactly("error 17 File exists");
            }
        }
    }

    @Test
    void shouldNotAskAgainADumpWhoseAnswerWasCutAfterPartOfItCame() throws Exception
    {
        final Path socket = dir.resolve("jvs.sock");
        final InMemoryIpvsBackend first = new InMemoryIpvsBackend();
        for (int i = 0; i < 300; i++)
        {
            first.apply(new IpvsNetlinkRequest.NewService(IpvsServiceKey.of(TCP, IpAddress.parse("10.1.0." +
                (i % 250 + 1)), 1000 + i), new IpvsServiceOptions("rr", null, 0, -1, 0, -1)));
        }
        final InMemoryIpvsBackend second = new InMemoryIpvsBackend();
        second.apply(new IpvsNetlinkRequest.NewService(IpvsServiceKey.of(TCP, IpAddress.parse("10.0.0.9"), 80),
            new IpvsServiceOptions("rr", null, 0, -1, 0, -1)));
        try (ScriptedServer server = ScriptedServer.listen(socket, first);
             PreloadSession client = PreloadSession.start(session, library, socket))
        {
            server.accept();
            client.send("family");
            server.answer();
            assertThat(client.read()).containsExactly("family " + IpvsNetlink.FAMILY_ID, "ok");

            assertThat(client.command("send-dump")).isEmpty();
            final List<byte[]> answer = server.endpoint.handle(server.take());
            assertThat(answer).as("a dump of several datagrams").hasSizeGreaterThan(2);
            server.write(answer.getFirst());
            assertThat(client.command("recv")).isNotEmpty().allMatch(line -> line.equals("message " +
                IpvsNetlink.FAMILY_ID));
            server.stopListening();
            try (ControlServer next = ControlServer.open(socket, null,
                request -> new ControlResponse.Refused("no"), second))
            {
                server.close();
                assertThat(client.command("recv")).containsExactly("error 4 Interrupted system call");
                assertThat(next.counter(ControlCounters.SERVED)).as("not asked again").isZero();
                assertThat(client.command("dump")).containsExactly("service 10.0.0.9:80", "done");
                assertThat(next.counter(ControlCounters.SERVED)).isEqualTo(1);
            }
        }
    }

    /**
     * A control socket that serves one netlink session step by step, its answers made by the IPVS endpoint over a
     * backend, so that a test can end the session where it chooses.
     */
    private static final class ScriptedServer implements AutoCloseable
    {
        private final Path path;
        private final ServerSocketChannel listener;
        private final IpvsNetlinkEndpoint endpoint;
        private SocketChannel session;
        private boolean listening = true;

        private ScriptedServer(final Path path, final ServerSocketChannel listener, final IpvsNetlinkEndpoint endpoint)
        {
            this.path = path;
            this.listener = listener;
            this.endpoint = endpoint;
        }

        static ScriptedServer listen(final Path path, final InMemoryIpvsBackend backend) throws IOException
        {
            final ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listener.bind(UnixDomainSocketAddress.of(path));
            return new ScriptedServer(path, listener, new IpvsNetlinkEndpoint(backend));
        }

        /** Takes the session and its opening control header (a netlink session's). */
        void accept() throws IOException
        {
            session = listener.accept();
            final ByteBuffer header = read(12);
            assertThat(header.getInt(0)).isEqualTo(0x4A565343);
            assertThat(header.get(5)).as("a netlink session").isEqualTo((byte)4);
        }

        /** @return the next datagram from the client. */
        byte[] take() throws IOException
        {
            return read(read(4).getInt(0)).array();
        }

        /** Answers the next datagram whole. */
        void answer() throws Exception
        {
            for (final byte[] datagram : endpoint.handle(take()))
            {
                write(datagram);
            }
        }

        void write(final byte[] datagram) throws IOException
        {
            final ByteBuffer out = ByteBuffer.allocate(4 + datagram.length).putInt(datagram.length).put(datagram)
                .flip();
            while (out.hasRemaining())
            {
                session.write(out);
            }
        }

        private ByteBuffer read(final int length) throws IOException
        {
            final ByteBuffer in = ByteBuffer.allocate(length);
            while (in.hasRemaining())
            {
                if (session.read(in) < 0)
                {
                    throw new IOException("the client closed the session");
                }
            }
            return in;
        }

        /** Takes no more sessions, and leaves the path free for another server. */
        void stopListening() throws IOException
        {
            if (listening)
            {
                listening = false;
                listener.close();
                Files.deleteIfExists(path);
            }
        }

        /** Ends the session. */
        @Override
        public void close() throws IOException
        {
            stopListening();
            if (session != null)
            {
                session.close();
            }
        }
    }
}
