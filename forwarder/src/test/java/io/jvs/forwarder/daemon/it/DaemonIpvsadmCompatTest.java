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
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same command sequence given to Debian's own {@code /usr/sbin/ipvsadm} (through the preload library, against
 * the running daemon) and to {@code tools/jvs ctl}: each command exits with the same status and prints the same
 * bytes on both outputs, and both leave the same state. The sequence restores more than 500 services (dumps that
 * span many netlink messages), and has IPv6, firewall marks, persistence with a netmask, every forwarding method,
 * thresholds, the listings (-L -n, --stats, --rate, --exact, --thresholds, --persistent-conn, --timeout, -S -n,
 * -c -n) and the errors. Debian's binary is the reference: ctl's formatter was written from ipvsadm's source.
 */
class DaemonIpvsadmCompatTest
{
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final int SERVICES = 520;

    @TempDir
    Path directory;

    @BeforeAll
    static void buildTheLibrary() throws Exception
    {
        PreloadLibrary.build();
    }

    @Test
    void shouldPrintWhatDebiansIpvsadmPrintsAndLeaveTheSameState() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("compat").mode(Mode.NAT).realServers(1).ipv6(false).build();
             DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                 DaemonConfigs.twoArm()))
        {
            final StringBuilder rules = new StringBuilder();
            for (int i = 0; i < SERVICES; i++)
            {
                final String vip = "10.9." + (i / 250) + "." + (i % 250 + 1) + ":80";
                rules.append("-A -t ").append(vip).append(" -s ").append(i % 3 == 0 ? "wlc" : "rr").append('\n');
                rules.append("-a -t ").append(vip).append(" -r 172.16.0.").append(2 + i % 3).append(":8080 -m -w ")
                    .append(1 + i % 4).append('\n');
            }
            rules.append("""
                -A -u 10.9.9.1:53 -s sh -b sh-fallback,sh-port
                -a -u 10.9.9.1:53 -r 172.16.0.2:53 -g -w 1
                -a -u 10.9.9.1:53 -r 172.16.0.3:53 -i -w 0 -x 100 -y 50
                -A -t [2001:db8::10]:443 -s wrr -p 600 -M 64
                -a -t [2001:db8::10]:443 -r [2001:db8:1::2]:443 -m -w 5
                -A -f 7 -s lc -p 60 -M 255.255.255.0
                -a -f 7 -r 172.16.0.4:0 -g -w 2
                """);
            final List<List<String>> queries = List.of(
                List.of("-L", "-n"), List.of("-L", "-n", "--stats"), List.of("-L", "-n", "--rate"),
                List.of("-L", "-n", "--exact", "--stats"), List.of("-L", "-n", "--thresholds"),
                List.of("-L", "-n", "--persistent-conn"), List.of("-L", "--timeout"), List.of("-S", "-n"),
                List.of("-L", "-c", "-n"), List.of("-L", "-n", "-t", "[2001:db8::10]:443"),
                List.of("-L", "-n", "-f", "7"));
            final List<List<String>> changesAndErrors = List.of(
                List.of("-E", "-t", "10.9.0.1:80", "-s", "lblc"),
                List.of("-e", "-t", "10.9.0.1:80", "-r", "172.16.0.2:8080", "-m", "-w", "9"),
                List.of("-A", "-t", "10.9.0.1:80", "-s", "rr"),
                List.of("-a", "-t", "10.9.0.1:80", "-r", "172.16.0.2:8080", "-m"),
                List.of("-d", "-t", "10.9.0.1:80", "-r", "172.16.0.99:8080"),
                List.of("-D", "-t", "10.99.0.1:80"),
                List.of("-e", "-t", "10.99.0.1:80", "-r", "172.16.0.2:8080"),
                List.of("-L", "-n", "-t", "10.99.0.1:80"),
                List.of("-A", "-t", "10.9.0.200:80", "-s", "nosuch"),
                List.of("--set", "600", "90", "200"),
                List.of("-Z", "-t", "10.9.0.3:80"),
                List.of("-d", "-t", "10.9.0.3:80", "-r", "172.16.0.3:8080"),
                List.of("-D", "-u", "10.9.9.1:53"));

            final List<String> debian = new ArrayList<>();
            final List<String> ctl = new ArrayList<>();
            for (final boolean viaDebian : new boolean[] {true, false})
            {
                final List<String> transcript = viaDebian ? debian : ctl;
                assertThat(run(daemon, viaDebian, List.of("-C"), "").status).isZero();
                transcript.add(run(daemon, viaDebian, List.of("-R"), rules.toString()).toString());
                for (final List<String> query : queries)
                {
                    transcript.add(run(daemon, viaDebian, query, "").toString());
                }
                for (final List<String> change : changesAndErrors)
                {
                    transcript.add(run(daemon, viaDebian, change, "").toString());
                }
                transcript.add(run(daemon, viaDebian, List.of("-S", "-n"), "").toString());
                transcript.add(run(daemon, viaDebian, List.of("-L", "--timeout"), "").toString());
                assertThat(run(daemon, true, List.of("--set", "900", "120", "300"), "").status).isZero();
            }
            // Debian's package (1.31-1) takes weights up to the kernel's INT_MAX (Debian bug 814348), where upstream
            // 1.31 stops at 65535: ctl and the daemon take what Debian's takes, and refuse what it refuses.
            final Outcome byDebian = run(daemon, true,
                List.of("-a", "-t", "10.9.0.2:80", "-r", "172.16.0.5:8080", "-w", "70000"), "");
            assertThat(byDebian.status()).as(byDebian.toString()).isZero();
            final Outcome byCtl = run(daemon, false,
                List.of("-a", "-t", "10.9.0.2:80", "-r", "172.16.0.6:8080", "-w", "2147483647"), "");
            assertThat(byCtl.status()).as(byCtl.toString()).isZero();
            // Direct routing, ipvsadm's default: the server's port becomes the service's.
            assertThat(run(daemon, false, List.of("-S", "-n"), "").out())
                .contains("-a -t 10.9.0.2:80 -r 172.16.0.5:80 -g -w 70000\n")
                .contains("-a -t 10.9.0.2:80 -r 172.16.0.6:80 -g -w 2147483647\n");
            final List<String> tooHeavy = List.of("-a", "-t", "10.9.0.2:80", "-r", "172.16.0.7:8080", "-w",
                "2147483648");
            final Outcome refusedByDebian = run(daemon, true, tooHeavy, "");
            final Outcome refusedByCtl = run(daemon, false, tooHeavy, "");
            assertThat(List.of(refusedByCtl.status(), refusedByCtl.out(), refusedByCtl.err()))
                .isEqualTo(List.of(refusedByDebian.status(), refusedByDebian.out(), refusedByDebian.err()));
            assertThat(refusedByCtl.status()).isEqualTo(2);

            assertThat(debian.getFirst()).startsWith("ipvsadm -R: 0");
            assertThat(debian.get(1)).as("the listing").contains("TCP  10.9.1.20:80 rr");
            for (int i = 0; i < debian.size(); i++)
            {
                assertThat(ctl.get(i)).as("command %d", i).isEqualTo(debian.get(i));
            }
        }
    }

    /** One command's exit status and outputs. */
    private record Outcome(String command, int status, String out, String err)
    {
        @Override
        public String toString()
        {
            return "ipvsadm " + command + ": " + status + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    private static Outcome run(final DaemonProcess daemon, final boolean viaDebian, final List<String> arguments,
        final String input) throws IOException, InterruptedException
    {
        final String command = String.join(" ", arguments);
        if (!viaDebian)
        {
            final ControlResponse response = ControlClient.exchange(daemon.control(),
                new ControlRequest.Ipvsadm(arguments, input.getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(60));
            assertThat(response).isInstanceOf(ControlResponse.Result.class);
            final ControlResponse.Result result = (ControlResponse.Result)response;
            return new Outcome(command, result.status(), new String(result.output(), StandardCharsets.UTF_8),
                new String(result.error(), StandardCharsets.UTF_8));
        }
        final List<String> line = new ArrayList<>(List.of(ROOT.resolve("tools/jvs").toString(), "with-ipvs",
            "--socket", daemon.control().toString(), "--", "/usr/sbin/ipvsadm"));
        line.addAll(arguments);
        final Process process = new ProcessBuilder(line).start();
        process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        final java.util.concurrent.CompletableFuture<byte[]> err = java.util.concurrent.CompletableFuture.supplyAsync(
            () ->
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
        return new Outcome(command, process.exitValue(), out, new String(err.join(), StandardCharsets.UTF_8));
    }
}
