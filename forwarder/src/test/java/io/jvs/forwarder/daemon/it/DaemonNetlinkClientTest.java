package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Programs that drive the running daemon through the preload library, as keepalived and ipvsadm do: a netlink
 * socket kept open across a restart of the daemon (keepalived keeps one for its life) carries its next request to
 * the new daemon, and while no daemon runs its requests are answered "No such device"; a real server tunnelled with
 * GUE or GRE, which IPVS takes and jvs does not do, is refused with an errno ipvsadm words truthfully ("Protocol not
 * supported", not "Invalid operation.  Possibly wrong module version"), and the daemon's log names the request and
 * the reason, which is all the program's user can go on.
 */
class DaemonNetlinkClientTest
{
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final Duration EXIT = Duration.ofSeconds(30);

    private static Path library;
    private static Path client;

    @TempDir
    Path directory;

    @BeforeAll
    static void build() throws Exception
    {
        library = PreloadLibrary.build();
        client = PreloadSession.build();
    }

    @Test
    void shouldCarryAKeptNetlinkSocketOverToTheRestartedDaemon() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("nlkeep").mode(Mode.NAT).realServers(1).ipv6(false).build())
        {
            final DaemonProcess first = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm());
            try (first; PreloadSession session = PreloadSession.start(client, library, first.control()))
            {
                assertThat(session.command("family")).hasSize(2).last().isEqualTo("ok");
                assertThat(session.command("add 10.9.0.1 80")).containsExactly("ok");
                assertThat(list(first)).contains("TCP  10.9.0.1:80 rr\n");

                first.signal("TERM");
                assertThat(first.awaitExit(EXIT)).as(String.join("\n", first.log())).isZero();
                assertThat(session.command("add 10.9.0.2 80")).as("no daemon")
                    .containsExactly("error 19 No such device");

                try (DaemonProcess second = DaemonProcess.start(topology.directorNamespace(), directory,
                    DaemonConfigs.twoArm()))
                {
                    assertThat(session.command("add 10.9.0.3 80")).containsExactly("ok");
                    // The new daemon started from its file, which has no services: only what came since.
                    final String listing = list(second);
                    assertThat(listing).contains("TCP  10.9.0.3:80 rr\n").doesNotContain("10.9.0.1:80")
                        .doesNotContain("10.9.0.2:80");
                    assertThat(session.command("dump")).containsExactly("service 10.9.0.3:80", "done");
                    assertThat(session.errorsOnceThey("reconnected")).containsOnlyOnce("reconnected");
                }
            }
        }
    }

    @Test
    void shouldRefuseAGueOrGreTunnelAsNotSupportedAndSayWhyInTheLog() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("nltun").mode(Mode.NAT).realServers(1).ipv6(false).build();
             DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                 DaemonConfigs.twoArm()))
        {
            assertThat(ipvsadm(daemon, "-A", "-t", "10.9.0.1:80", "-s", "rr")).isEqualTo(new Outcome(0, "", ""));
            assertThat(ipvsadm(daemon, "-a", "-t", "10.9.0.1:80", "-r", "172.16.0.2", "-i", "--tun-type", "gue",
                "--tun-port", "6080")).isEqualTo(new Outcome(255, "", "Protocol not supported\n"));
            assertThat(daemon.awaitLog("IPVS netlink: refused -a -t 10.9.0.1:80 -r 172.16.0.2:80 -i -w 1 " +
                "--tun-type gue --tun-port 6080", Duration.ofSeconds(10)))
                .contains(" warning ")
                .endsWith(": tunnel type `gue' is not supported by jvs yet (ipip only) (answered EPROTONOSUPPORT)");
            assertThat(ipvsadm(daemon, "-a", "-t", "10.9.0.1:80", "-r", "172.16.0.3", "-i", "--tun-type", "gre"))
                .isEqualTo(new Outcome(255, "", "Protocol not supported\n"));
            assertThat(daemon.awaitLog("IPVS netlink: refused -a -t 10.9.0.1:80 -r 172.16.0.3:80 -i -w 1 " +
                "--tun-type gre: tunnel type `gre' is not supported", Duration.ofSeconds(10))).isNotNull();

            // IP in IP is taken, and nothing refused was.
            assertThat(ipvsadm(daemon, "-a", "-t", "10.9.0.1:80", "-r", "172.16.0.4", "-i")).isEqualTo(
                new Outcome(0, "", ""));
            assertThat(list(daemon)).contains("  -> 172.16.0.4:80").doesNotContain("172.16.0.2")
                .doesNotContain("172.16.0.3");
        }
    }

    /** @return ctl's {@code -L -n}. */
    private static String list(final DaemonProcess daemon) throws IOException
    {
        final ControlResponse response = ControlClient.exchange(daemon.control(),
            new ControlRequest.Ipvsadm(List.of("-L", "-n"), new byte[0]), Duration.ofSeconds(30));
        assertThat(response).isInstanceOf(ControlResponse.Result.class);
        return new String(((ControlResponse.Result)response).output(), StandardCharsets.UTF_8);
    }

    private record Outcome(int status, String out, String err)
    {
    }

    /** Runs Debian's ipvsadm through {@code tools/jvs with-ipvs}. */
    private static Outcome ipvsadm(final DaemonProcess daemon, final String... arguments) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(ROOT.resolve("tools/jvs").toString(), "with-ipvs",
            "--socket", daemon.control().toString(), "--", "/usr/sbin/ipvsadm"));
        command.addAll(List.of(arguments));
        final Process process = new ProcessBuilder(command).start();
        process.getOutputStream().close();
        final CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return process.getErrorStream().readAllBytes();
            }
            catch (final IOException ex)
            {
                throw new IllegalStateException(ex);
            }
        });
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Outcome(process.exitValue(), out, new String(err.get(10, TimeUnit.SECONDS),
            StandardCharsets.UTF_8));
    }
}
