package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
            // A veth hands AF_XDP its sender's partial checksums (offload) with no sign of it: senders compute them.
            topology.inNamespace(topology.clientNamespace(), "ethtool", "-K", LbTopology.CLIENT_DEVICE, "tx", "off");
            for (final Host server : topology.realServers())
            {
                topology.inNamespace(server.namespace(), "ethtool", "-K", LbTopology.REAL_SERVER_DEVICE, "tx", "off");
            }
            topology.startTcpServers(PORT, false);
            final StringBuilder config = new StringBuilder()
                .append("interface ").append(LbTopology.DIRECTOR_CLIENT_DEVICE).append(" port ").append(port)
                .append("\n")
                .append("interface ").append(LbTopology.DIRECTOR_SERVER_DEVICE).append(" port ").append(port)
                .append("\n")
                .append("workers 1\n")
                .append("-A -t ").append(topology.vip4().getHostAddress()).append(':').append(PORT).append(" -s rr\n");
            for (final Host server : topology.realServers())
            {
                config.append("-a -t ").append(topology.vip4().getHostAddress()).append(':').append(PORT)
                    .append(" -r ").append(server.ipv4().getHostAddress()).append(':').append(PORT)
                    .append(" -m -w 1\n");
            }
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config.toString()))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 30, MIB).parallel(3));
                final Map<String, Long> status = daemon.status();
                assertThat(TcpDigestClient.failures(connections)).as(String.join("\n", daemon.log()) + "\n" + status)
                    .isEmpty();
                final Map<String, Integer> byServer = new TreeMap<>();
                for (final TcpDigestClient.Connection connection : connections)
                {
                    assertThat(connection.bytesConfirmed()).isEqualTo(MIB);
                    byServer.merge(connection.serverIdentity(), 1, Integer::sum);
                }
                assertThat(byServer).containsOnlyKeys("rs1", "rs2", "rs3").allSatisfy((name, count) ->
                    assertThat(count).isEqualTo(10));
                assertThat(status.get("connections")).isGreaterThanOrEqualTo(30);
                daemon.signal("TERM");
                assertThat(daemon.awaitExit(java.time.Duration.ofSeconds(20))).isZero();
                assertThat(Netns.ip(topology.directorNamespace(), "-d", "link")).doesNotContain("xdp")
                    .doesNotContain("jvs0");
                assertThat(daemon.control()).doesNotExist();
            }
        }
    }
}
