package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reload on SIGHUP under load: while 30 connections of 1 MiB run through NAT, the file changes a weight and
 * adds a fourth real server; every transfer completes byte-exact, nothing is dropped, and the connections after
 * it follow the new weights. And a reload next to ctl: it leaves the service and the timeout ctl made alone, puts
 * back the file's own service, and takes over ctl's service once the file declares it, with its connection and
 * counts. Root only (namespaces, XDP), as CI runs.
 */
class DaemonReloadTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;
    private static final int FILE_PORT = 5353;
    private static final int CONTROL_PORT = 5354;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void shouldApplyANewWeightAndServerWhileTransfersRunAndLoseNone() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dreload").realServers(4).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final List<InetAddress> servers = DaemonConfigs.serversV4(topology);
            final String before = DaemonConfigs.twoArm() + DaemonConfigs.service('t', topology.vip4(), PORT, "wrr",
                'm', servers.subList(0, 3), 1, 1, 1);
            final String after = DaemonConfigs.twoArm() + DaemonConfigs.service('t', topology.vip4(), PORT, "wrr",
                'm', servers, 1, 1, 2, 2);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, before))
            {
                final InetSocketAddress service = new InetSocketAddress(topology.vip4(), PORT);
                final CompletableFuture<List<TcpDigestClient.Connection>> transfers = CompletableFuture.supplyAsync(
                    () -> TcpDigestClient.run(topology.clientNamespace(),
                        TcpDigestClient.Load.of(service, 30, MIB).parallel(3)));
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (daemon.status().get("connections") < 3 && System.nanoTime() < deadline)
                {
                    Thread.sleep(5);
                }
                daemon.rewrite(directory, after);

                daemon.signal("HUP");

                final String reloaded = daemon.awaitLog(" info reload (SIGHUP): ", Duration.ofSeconds(10));
                assertThat(transfers).as("the transfers still run when the reload is applied").isNotDone();
                assertThat(reloaded).contains("changes");
                final List<TcpDigestClient.Connection> during = transfers.get(60, TimeUnit.SECONDS);
                assertThat(TcpDigestClient.failures(during))
                    .as(() -> String.join("\n", daemon.log()) + "\n" + daemon.status()).isEmpty();
                assertThat(during).allSatisfy(connection -> assertThat(connection.bytesConfirmed()).isEqualTo(MIB));

                final Map<String, Long> mid = daemon.status();
                // A cycle of the new weights is 1 + 1 + 2 + 2 = 6 connections: 60 are ten whole cycles, wherever
                // in a cycle the scheduler stands.
                final List<TcpDigestClient.Connection> later = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(service, 60, 16 << 10).parallel(4).seed(2));
                final Map<String, Long> status = daemon.status();
                assertThat(TcpDigestClient.failures(later)).as(String.join("\n", daemon.log()) + "\n" + status)
                    .isEmpty();
                final Map<String, Integer> byServer = DaemonConfigs.byServer(later);
                assertThat(byServer).isEqualTo(Map.of("rs1", 10, "rs2", 10, "rs3", 20, "rs4", 20));
                for (final Host server : topology.realServers())
                {
                    final String name = "server." + DaemonConfigs.endpoint(server.ipv4(), PORT);
                    assertThat(status.get(name + ".connections") - mid.getOrDefault(name + ".connections", 0L))
                        .as(name).isEqualTo((long)byServer.get(server.name()));
                }
                assertThat(DaemonConfigs.drops(status)).as(String.join("\n", daemon.log())).isEmpty();
            }
        }
    }

    @Test
    void shouldLeaveWhatCtlMadeToControlAndTakeItOverWithItsConnectionOnceTheFileDeclaresIt() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dreown").mode(Mode.NAT).realServers(2).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(FILE_PORT);
            topology.startUdpServers(CONTROL_PORT);
            final List<Host> servers = topology.realServers();
            final String fileVip = DaemonConfigs.endpoint(topology.vip4(), FILE_PORT);
            final String controlVip = DaemonConfigs.endpoint(topology.vip4(), CONTROL_PORT);
            final String rs1 = DaemonConfigs.endpoint(servers.get(0).ipv4(), CONTROL_PORT);
            final String rs2 = DaemonConfigs.endpoint(servers.get(1).ipv4(), CONTROL_PORT);
            final String fileRs2 = DaemonConfigs.endpoint(servers.get(1).ipv4(), FILE_PORT);
            final String base = DaemonConfigs.twoArm() + "-A -u " + fileVip + " -s rr\n-a -u " + fileVip + " -r " +
                DaemonConfigs.endpoint(servers.get(0).ipv4(), FILE_PORT) + " -m -w 1\n";
            final String marked = base + "mark 5 dst 203.0.113.0/24\n";
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, base);
                DatagramSocket kept = LbTopology.callIn(topology.clientNamespace(), DatagramSocket::new))
            {
                kept.setSoTimeout(2000);
                final InetSocketAddress controlService = new InetSocketAddress(topology.vip4(), CONTROL_PORT);
                // What keepalived would do: a service and its servers, and lvs_timeouts' udp.
                ok(daemon, "-A", "-u", controlVip, "-s", "rr");
                ok(daemon, "-a", "-u", controlVip, "-r", rs1, "-m", "-w", "1");
                ok(daemon, "-a", "-u", controlVip, "-r", rs2, "-m", "-w", "1");
                ok(daemon, "--set", "0", "0", "77");
                // And an edit of the file's service, which the next reload undoes.
                ok(daemon, "-a", "-u", fileVip, "-r", fileRs2, "-m", "-w", "1");
                final String first = UdpDigestClient.identityOrNull(kept, controlService);
                assertThat(first).as("%s", daemon.log()).isIn("rs1", "rs2");
                assertThat(connections(daemon, controlVip)).isEqualTo(1);

                assertThat(reload(daemon, marked)).endsWith(" info reload (SIGHUP): 2 changes: -d -u " + fileVip +
                    " -r " + fileRs2 + "; mark rules: 1 added; left to control: 1 service, timeouts udp 77");
                assertThat(ok(daemon, "-L", "-n")).contains("UDP  " + controlVip + " rr\n").contains("  -> " + rs1)
                    .contains("  -> " + rs2).doesNotContain(fileRs2);
                assertThat(ok(daemon, "-L", "--timeout")).isEqualTo("Timeout (tcp tcpfin udp): 900 120 77\n");
                assertThat(UdpDigestClient.identityOrNull(kept, controlService)).as("its connection lives")
                    .isEqualTo(first);

                assertThat(reload(daemon, marked + "timeout tcp 600\n")).endsWith(": 1 change: timeouts tcp 600 " +
                    "tcpfin 120 udp 77; left to control: 1 service, timeouts udp 77");
                assertThat(reload(daemon, marked + "timeout tcp 600 udp 100\n")).endsWith(": 1 change: timeouts " +
                    "tcp 600 tcpfin 120 udp 100; left to control: 1 service");
                assertThat(ok(daemon, "-L", "--timeout")).isEqualTo("Timeout (tcp tcpfin udp): 600 120 100\n");

                final String declared = marked + "timeout tcp 600 udp 100\n-A -u " + controlVip + " -s rr\n-a -u " +
                    controlVip + " -r " + rs1 + " -m -w 1\n-a -u " + controlVip + " -r " + rs2 + " -m -w 2\n";
                assertThat(reload(daemon, declared)).endsWith(": 2 changes: taken over from control: -u " +
                    controlVip + "; -e -u " + controlVip + " -r " + rs2 + " -m -w 2");
                assertThat(UdpDigestClient.identityOrNull(kept, controlService)).as("its connection still lives")
                    .isEqualTo(first);
                assertThat(connections(daemon, controlVip)).as("its count goes on").isEqualTo(1);

                assertThat(reload(daemon, DaemonConfigs.twoArm())).endsWith(": 4 changes: -D -u " + fileVip +
                    "; -D -u " + controlVip + "; mark rules: 1 removed; timeouts tcp 900 tcpfin 120 udp 300");
                assertThat(ok(daemon, "-L", "-n")).doesNotContain("UDP  ");
            }
        }
    }

    /** Rewrites the file, sends SIGHUP and waits for the reload's log line. */
    private String reload(final DaemonProcess daemon, final String config) throws Exception
    {
        final long before = daemon.log().stream().filter(line -> line.contains(" reload (SIGHUP)")).count();
        daemon.rewrite(directory, config);
        daemon.signal("HUP");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() - deadline < 0)
        {
            final List<String> reloads = daemon.log().stream()
                .filter(line -> line.contains(" reload (SIGHUP)")).toList();
            if (reloads.size() > before)
            {
                return reloads.get(reloads.size() - 1);
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no reload within 10 s:\n" + String.join("\n", daemon.log()));
    }

    /** @return the Conns column of {@code ipvsadm -L -n --stats} for the UDP service {@code vip}. */
    private static long connections(final DaemonProcess daemon, final String vip) throws IOException
    {
        final String stats = ok(daemon, "-L", "-n", "--stats");
        return Long.parseLong(stats.lines().filter(line -> line.startsWith("UDP  " + vip + " ")).findFirst()
            .orElseThrow(() -> new AssertionError(stats)).trim().split("\\s+")[2]);
    }

    private static String ok(final DaemonProcess daemon, final String... arguments) throws IOException
    {
        final ControlResponse response = ControlClient.exchange(daemon.control(),
            new ControlRequest.Ipvsadm(List.of(arguments), new byte[0]), TIMEOUT);
        assertThat(response).as("answered").isInstanceOf(ControlResponse.Result.class);
        final ControlResponse.Result result = (ControlResponse.Result)response;
        assertThat(result.status()).as("ipvsadm %s: %s", String.join(" ", arguments),
            new String(result.error(), StandardCharsets.UTF_8)).isZero();
        return new String(result.output(), StandardCharsets.UTF_8);
    }
}
