package io.jvs.forwarder.daemon;

import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.control.netlink.InMemoryIpvsBackend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The preload library on its own: a C program (src/test/c/preload-check.c) makes the calls libnl, ipvsadm and
 * keepalived make and checks each answer against the kernel's behaviour (addresses and options, one datagram per
 * receive, MSG_PEEK with MSG_TRUNC, MSG_DONTWAIT, poll on a peeked datagram, truncation, SOCK_NONBLOCK, routing
 * sockets left alone, /proc/net/ip_vs_conn through fopen and open); and a daemon that refuses the session is
 * reported with its reason, the program then failing as it does without IPVS.
 */
class PreloadLibraryTest
{
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static Path library;
    private static Path check;

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
}
