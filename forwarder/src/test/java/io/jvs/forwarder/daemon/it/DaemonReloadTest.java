package io.jvs.forwarder.daemon.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
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
 * it follow the new weights. Root only (namespaces, XDP), as CI runs.
 */
class DaemonReloadTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

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
}
