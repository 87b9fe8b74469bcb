package io.jvs.forwarder.daemon.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon's schedulers as a client sees them through NAT: wrr gives each server its weight's share of every
 * whole cycle, and sh sends every connection of a client address to the same server. Root only (namespaces,
 * XDP), as CI runs.
 */
class DaemonSchedulingTest
{
    private static final int PORT = 8080;
    private static final int BYTES = 16 << 10;

    @TempDir
    Path directory;

    @Test
    void shouldShareTenWholeWeightedRoundRobinCyclesByWeight() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dwrr").realServers(3).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + DaemonConfigs.service('t', topology.vip4(), PORT, "wrr",
                'm', DaemonConfigs.serversV4(topology), 1, 2, 3);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                // A cycle is 1 + 2 + 3 = 6 connections: 60 are ten whole cycles.
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 60, BYTES).parallel(4));
                final Map<String, Long> status = daemon.status();
                assertThat(TcpDigestClient.failures(connections)).as(String.join("\n", daemon.log()) + "\n" + status)
                    .isEmpty();
                assertThat(DaemonConfigs.byServer(connections)).isEqualTo(Map.of("rs1", 10, "rs2", 20, "rs3", 30));
                assertThat(DaemonConfigs.drops(status)).as(String.join("\n", daemon.log())).isEmpty();
                for (final Host server : topology.realServers())
                {
                    final String name = "server." + DaemonConfigs.endpoint(server.ipv4(), PORT);
                    assertThat(status).containsEntry(name + ".connections", 10L * server.index())
                        .containsEntry(name + ".weight", (long)server.index());
                }
            }
        }
    }

    @Test
    void shouldKeepEveryConnectionOfAClientOnOneServerBySourceHashing() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dsh").realServers(3).clientAddresses(3).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + DaemonConfigs.service('t', topology.vip4(), PORT, "sh",
                'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(3));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 30, BYTES).parallel(3)
                        .sources(topology.clientAddresses4()));
                assertThat(TcpDigestClient.failures(connections))
                    .as(() -> String.join("\n", daemon.log()) + "\n" + daemon.status()).isEmpty();
                final Map<InetAddress, Set<String>> serversByClient = new HashMap<>();
                final Map<InetAddress, Integer> countByClient = new HashMap<>();
                for (final TcpDigestClient.Connection connection : connections)
                {
                    serversByClient.computeIfAbsent(connection.local().getAddress(), any -> new TreeSet<>())
                        .add(connection.serverIdentity());
                    countByClient.merge(connection.local().getAddress(), 1, Integer::sum);
                }
                assertThat(countByClient).containsOnlyKeys(topology.clientAddresses4().toArray(InetAddress[]::new))
                    .allSatisfy((client, count) -> assertThat(count).isEqualTo(10));
                assertThat(serversByClient).allSatisfy((client, servers) ->
                    assertThat(servers).as("servers of " + client).hasSize(1));
            }
        }
    }
}
