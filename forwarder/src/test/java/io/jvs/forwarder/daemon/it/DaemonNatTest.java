package io.jvs.forwarder.daemon.it;

import io.jvs.core.pipeline.WorkerCountersDescriptor;
import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kernel's IPVS selftest grown up, NAT: a client, the daemon on a two-arm director, three real servers
 * whose default route is the director; 30 TCP connections of 1 MiB each, carried byte-exact (a SHA-256 checked
 * at both ends), shared by rr, over AF_XDP and over AF_PACKET (whose steal program keeps the kernel from
 * answering the client's SYN itself). Root only (namespaces, XDP), as CI runs.
 */
class DaemonNatTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldCarryThirtyMebibyteConnectionsByteExact(final String port) throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dnat").mode(Mode.NAT).realServers(3).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm(port) + DaemonConfigs.service('t', topology.vip4(), PORT, "rr",
                'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(3));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 30, MIB).parallel(3));
                final Map<String, Long> status = daemon.status();
                assertThat(TcpDigestClient.failures(connections)).as(String.join("\n", daemon.log()) + "\n" + status)
                    .isEmpty();
                assertThat(connections).allSatisfy(connection ->
                    assertThat(connection.bytesConfirmed()).isEqualTo(MIB));
                assertThat(DaemonConfigs.byServer(connections)).containsOnlyKeys("rs1", "rs2", "rs3")
                    .allSatisfy((name, count) -> assertThat(count).isEqualTo(10));
                assertThat(status.get("connections")).isGreaterThanOrEqualTo(30);
                // ipvsadm --stats's counters: both directions pass a NAT director, 30 MiB of payload at least one
                // way, and the service's figures are its servers' summed.
                final String service = "service.tcp-" + topology.vip4().getHostAddress() + ":" + PORT + ".";
                assertThat(status.get(service + "inbytes") + status.get(service + "outbytes"))
                    .as("IP bytes both ways").isGreaterThan(30L * MIB);
                assertThat(status.get(service + "inpkts")).as("inpkts").isPositive();
                assertThat(status.get(service + "outpkts")).as("outpkts").isPositive();
                for (final String field : List.of("inpkts", "outpkts", "inbytes", "outbytes"))
                {
                    assertThat(status.entrySet().stream()
                        .filter(entry -> entry.getKey().startsWith("server.") && entry.getKey().endsWith("." + field))
                        .mapToLong(Map.Entry::getValue).sum()).as("servers' " + field)
                        .isEqualTo(status.get(service + field));
                }
                // Every count of the workers' and the ports' descriptors is listed under its name, and they agree:
                // each frame has one verdict, the fast loop takes established traffic, the ports saw the frames.
                for (int id = 0; id < WorkerCountersDescriptor.ids(); id++)
                {
                    final String name = WorkerCountersDescriptor.name(id);
                    assertThat(name == null || status.containsKey(name)).as(name).isTrue();
                }
                // Read while the workers run: a burst's verdicts are counted before its frames, so the verdicts
                // may be up to a burst ahead (the load is over; only stray frames still arrive).
                assertThat(status.get("transmitted") + status.get("passed") + status.get("dropped"))
                    .isBetween(status.get("frames"), status.get("frames") + 64);
                assertThat(status.get("fast-path")).isPositive().isLessThanOrEqualTo(status.get("frames"));
                assertThat(status.get("port.0.0.rx-bytes")).isPositive()
                    .isGreaterThanOrEqualTo(60 * status.get("port.0.0.rx-frames"));
                assertThat(status).containsKeys("port.0.0.tx-bytes", "port.0.0.kernel-rx-dropped");
                daemon.signal("TERM");
                assertThat(daemon.awaitExit(Duration.ofSeconds(20))).isZero();
                assertThat(Netns.ip(topology.directorNamespace(), "-d", "link")).doesNotContain("xdp")
                    .doesNotContain("jvs0");
                assertThat(daemon.control()).doesNotExist();
            }
        }
    }
}
