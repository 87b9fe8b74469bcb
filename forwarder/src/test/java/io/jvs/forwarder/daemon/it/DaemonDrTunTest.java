package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon in direct routing ({@code -g}: the frame goes to the real server with only its MAC addresses
 * changed) and tunnelling ({@code -i}: the packet goes inside an IPv4 header to the server, an IPv6 one for an
 * IPv6 VIP, or an IPv4 one for IPv4 servers of an IPv6 VIP), with IPv4 and IPv6 VIPs, over AF_XDP and over
 * AF_PACKET: three real servers that hold the VIP on {@code lo} and answer the client directly through the router,
 * 30 TCP connections of 1 MiB byte-exact, shared by rr. Root only (namespaces, XDP), as CI runs.
 */
class DaemonDrTunTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldCarryThirtyMebibyteConnectionsByDirectRouting(final String port) throws Exception
    {
        try (LbTopology topology = LbTopology.builder("ddr").mode(Mode.DR).realServers(3).build())
        {
            carryThirty(topology, 'g', port);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldCarryThirtyMebibyteConnectionsThroughTunnels(final String port) throws Exception
    {
        // The outer header's 20 bytes on top of full-sized client packets.
        try (LbTopology topology = LbTopology.builder("dtun").mode(Mode.TUN).realServers(3).serverMtu(1540).build())
        {
            carryThirty(topology, 'i', port);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldCarryThirtyMebibyteIpv6ConnectionsByDirectRouting(final String port) throws Exception
    {
        try (LbTopology topology = LbTopology.builder("ddr6").mode(Mode.DR).realServers(3).build())
        {
            carryThirty(topology, 'g', port, true);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldCarryThirtyMebibyteIpv6ConnectionsThroughIpv6Tunnels(final String port) throws Exception
    {
        // IPv6 in IPv6 (RFC 2473), as IPVS's ip_vs_tunnel_xmit_v6 sends it: the outer header's 40 bytes on top.
        try (LbTopology topology = LbTopology.builder("dtun6").mode(Mode.TUN).realServers(3).serverMtu(1540).build())
        {
            carryThirty(topology, 'i', port, true);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldCarryThirtyMebibyteIpv6ConnectionsThroughIpv4Tunnels(final String port) throws Exception
    {
        // IPv6 in IPv4 (protocol 41) to servers of the other family, as IPVS's ip_vs_tunnel_xmit takes them since
        // Linux 3.18: the outer header's 20 bytes on top.
        try (LbTopology topology = LbTopology.builder("dt64").mode(Mode.TUN).realServers(3).serverMtu(1540).build())
        {
            carryThirty(topology, 'i', port, true, false);
        }
    }

    private void carryThirty(final LbTopology topology, final char forward, final String port)
    {
        carryThirty(topology, forward, port, false, false);
    }

    private void carryThirty(final LbTopology topology, final char forward, final String port, final boolean ipv6)
    {
        carryThirty(topology, forward, port, ipv6, ipv6);
    }

    private void carryThirty(final LbTopology topology, final char forward, final String port, final boolean ipv6,
        final boolean serversIpv6)
    {
        DaemonConfigs.sendersComputeChecksums(topology);
        topology.startTcpServers(PORT, false);
        final InetAddress vip = ipv6 ? topology.vip6() : topology.vip4();
        final String config = DaemonConfigs.twoArm(port) + DaemonConfigs.service('t', vip, PORT, "rr",
            forward, serversIpv6 ? DaemonConfigs.serversV6(topology) : DaemonConfigs.serversV4(topology),
            DaemonConfigs.ones(3));
        final String router = topology.routerNamespace().orElseThrow();
        try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
        {
            final Netns.Counters before = Netns.counters(router, LbTopology.ROUTER_CLIENT_DEVICE);
            final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                TcpDigestClient.Load.of(new InetSocketAddress(vip, PORT), 30, MIB).parallel(3));
            final Map<String, Long> status = daemon.status();
            assertThat(TcpDigestClient.failures(connections)).as(String.join("\n", daemon.log()) + "\n" + status)
                .isEmpty();
            assertThat(connections).allSatisfy(connection ->
                assertThat(connection.bytesConfirmed()).isEqualTo(MIB));
            assertThat(DaemonConfigs.byServer(connections)).containsOnlyKeys("rs1", "rs2", "rs3")
                .allSatisfy((name, count) -> assertThat(count).isEqualTo(10));
            for (final Host server : topology.realServers())
            {
                assertThat(status).containsEntry("server." +
                    DaemonConfigs.endpoint(serversIpv6 ? server.ipv6() : server.ipv4(), PORT) +
                    ".connections", 10L);
            }
            assertThat(status.get("connections")).isGreaterThanOrEqualTo(30);
            assertThat(DaemonConfigs.drops(status)).as(String.join("\n", daemon.log())).isEmpty();
            // The replies went around the director, through the router: at least a SYN-ACK, an answer and a FIN
            // each.
            assertThat(Netns.counters(router, LbTopology.ROUTER_CLIENT_DEVICE).since(before).txPackets())
                .isGreaterThanOrEqualTo(3 * 30);
            daemon.signal("TERM");
            assertThat(daemon.awaitExit(Duration.ofSeconds(20))).isZero();
        }
    }
}
