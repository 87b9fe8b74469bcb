package io.jvs.forwarder.daemon.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon's NAT beyond IPv4 TCP: UDP request and response (each datagram from its own socket, so each is a
 * connection of its own, shared by rr), and TCP over IPv6 (neighbour discovery instead of ARP, the IPv6
 * header's rewrite and checksums), 30 connections of 1 MiB byte-exact; and packets held to the MTUs of LANs and
 * routes. Root only (namespaces, XDP), as CI runs.
 */
class DaemonUdpAndIpv6Test
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @Test
    void shouldAnswerEveryUdpRequestThroughNatSharedByRoundRobin() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dudp").realServers(3).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final String config = udpNatService(topology);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final List<UdpDigestClient.Exchange> exchanges = UdpDigestClient.run(topology.clientNamespace(),
                    UdpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 30, 1000));
                final Map<String, Long> status = daemon.status();
                final Map<String, Integer> byServer = new TreeMap<>();
                for (final UdpDigestClient.Exchange exchange : exchanges)
                {
                    assertThat(exchange.ok()).as(exchange + "\n" + String.join("\n", daemon.log()) + "\n" + status)
                        .isTrue();
                    byServer.merge(exchange.serverIdentity(), 1, Integer::sum);
                }
                assertThat(byServer).containsOnlyKeys("rs1", "rs2", "rs3").allSatisfy((name, count) ->
                    assertThat(count).isEqualTo(10));
                assertThat(status.get("connections")).isGreaterThanOrEqualTo(30);
                assertThat(DaemonConfigs.drops(status)).as(String.join("\n", daemon.log())).isEmpty();
            }
        }
    }

    @Test
    void shouldSendDatagramsWithoutDfTooLongForTheServersLanInFragments() throws Exception
    {
        // The client's LAN carries 1500-byte packets, the servers' 1400: a 1472-byte datagram without DF (the
        // client's namespace has ip_no_pmtu_disc) is 1500 bytes of IP, which jvs sends to its server in two
        // fragments, as the kernel's IPVS has its IP output fragment it. The servers' kernels put them together,
        // and their 1472-byte answers come back as fragments of their own, which NAT follows to the client.
        try (LbTopology topology = LbTopology.builder("dfrag").realServers(3).serverMtu(1400).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.inNamespace(topology.clientNamespace(), "sysctl", "-qw", "net.ipv4.ip_no_pmtu_disc=1");
            topology.startUdpServers(PORT);
            final String config = udpNatService(topology);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                assertExchanged(daemon, UdpDigestClient.run(topology.clientNamespace(),
                    UdpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 30, 1472)));
                assertEachSentInTwoFragments(daemon, 30);
            }
        }
    }

    @Test
    void shouldFollowARouteMtuToTheServersAddedWhileRunning() throws Exception
    {
        // Every LAN carries 1500-byte packets. 1400-byte datagrams without DF go whole, until host routes to the
        // servers with an MTU of 1300 (ip route add S/32 dev ... mtu 1300) appear in the director's namespace: from
        // then on jvs sends each in two fragments, as IPVS takes the route's MTU (dst_mtu in __ip_vs_get_out_rt) and
        // its IP output fragments to it. Followed from the kernel's route notification, without a reload.
        try (LbTopology topology = LbTopology.builder("rmtu").realServers(3).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.inNamespace(topology.clientNamespace(), "sysctl", "-qw", "net.ipv4.ip_no_pmtu_disc=1");
            topology.startUdpServers(PORT);
            final String config = udpNatService(topology);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final InetSocketAddress vip = new InetSocketAddress(topology.vip4(), PORT);
                assertExchanged(daemon, UdpDigestClient.run(topology.clientNamespace(),
                    UdpDigestClient.Load.of(vip, 30, 1372)));
                assertThat(daemon.status().getOrDefault("worker.0.fragmented", 0L)).as("whole before the routes")
                    .isZero();

                for (final Host server : topology.realServers())
                {
                    topology.inNamespace(topology.directorNamespace(), "ip", "route", "add",
                        server.ipv4().getHostAddress() + "/32", "dev", topology.directorServerSide().name(),
                        "mtu", "1300");
                }
                Thread.sleep(1500);
                assertExchanged(daemon, UdpDigestClient.run(topology.clientNamespace(),
                    UdpDigestClient.Load.of(vip, 30, 1372)));
                assertEachSentInTwoFragments(daemon, 30);
            }
        }
    }

    @Test
    void shouldHoldNatRepliesToTheMtuOfTheRouteToTheClient() throws Exception
    {
        // Every LAN carries 1500-byte packets, but the director's route to the client has an MTU of 1300 (ip route
        // add CLIENT/32 dev ... mtu 1300). The servers echo 1 MiB a connection in full-sized segments with DF: jvs
        // answers the first that do not fit with frag-needed naming 1300, as the kernel's ip_forward holds a packet
        // to its route's MTU, and the servers' kernels send smaller ones. Every byte arrives.
        try (LbTopology topology = LbTopology.builder("cmtu").realServers(3).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.inNamespace(topology.directorNamespace(), "ip", "route", "add",
                topology.client().ipv4().getHostAddress() + "/32", "dev",
                topology.directorClientSide().orElseThrow().name(), "mtu", "1300");
            topology.startTcpServers(PORT, true);
            final String config = DaemonConfigs.twoArm() + DaemonConfigs.service('t', topology.vip4(), PORT, "rr",
                'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(3));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 9, MIB).parallel(3)
                        .echo(true));
                final Map<String, Long> status = daemon.status();
                assertThat(TcpDigestClient.failures(connections)).as(String.join("\n", daemon.log()) + "\n" + status)
                    .isEmpty();
                assertThat(status.get("drop.mtu-exceeded")).as("answered with frag-needed: %s", status).isPositive();
                assertThat(status.get("icmp-sent")).isEqualTo(status.get("drop.mtu-exceeded"));
                final Map<String, Long> drops = new TreeMap<>(DaemonConfigs.drops(status));
                drops.remove("drop.mtu-exceeded");
                assertThat(drops).as(String.join("\n", daemon.log())).isEmpty();
            }
        }
    }

    /** UDP on the VIP's {@link #PORT}, rr over the three servers by NAT, on a two-arm box. */
    private static String udpNatService(final LbTopology topology)
    {
        return DaemonConfigs.twoArm() + DaemonConfigs.service('u', topology.vip4(), PORT, "rr", 'm',
            DaemonConfigs.serversV4(topology), DaemonConfigs.ones(3));
    }

    /** Each of {@code datagrams} requests went to its server in two fragments, and nothing was dropped. */
    private static void assertEachSentInTwoFragments(final DaemonProcess daemon, final long datagrams)
    {
        final Map<String, Long> status = daemon.status();
        assertThat(status).as(status.toString()).containsEntry("worker.0.fragmented", datagrams)
            .containsEntry("worker.0.fragments", 2 * datagrams);
        assertThat(DaemonConfigs.drops(status)).as(String.join("\n", daemon.log())).isEmpty();
    }

    private static void assertExchanged(final DaemonProcess daemon, final List<UdpDigestClient.Exchange> exchanges)
    {
        for (final UdpDigestClient.Exchange exchange : exchanges)
        {
            assertThat(exchange.ok()).as(() -> exchange + "\n" + String.join("\n", daemon.log())).isTrue();
        }
    }

    @Test
    void shouldCarryThirtyMebibyteConnectionsOverIpv6Nat() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dnat6").realServers(3).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            final List<TcpDigestServer> servers = topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + DaemonConfigs.service('t', topology.vip6(), PORT, "rr",
                'm', DaemonConfigs.serversV6(topology), DaemonConfigs.ones(3));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                // Warmed, IPv6 and fwmark services too, by a scratch worker that leaves the live one nothing: no
                // connection, no frame sent.
                assertThat(daemon.log()).anySatisfy(line -> assertThat(line).contains("warmed the data path"))
                    .noneSatisfy(line -> assertThat(line).contains("the warm-up sends nothing"));
                assertThat(daemon.status()).containsEntry("connections", 0L).containsEntry("transmitted", 0L);
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip6(), PORT), 30, MIB).parallel(3));
                final Map<String, Long> status = daemon.status();
                assertThat(TcpDigestClient.failures(connections)).as(String.join("\n", daemon.log()) + "\n" + status)
                    .isEmpty();
                assertThat(connections).allSatisfy(connection ->
                {
                    assertThat(connection.bytesConfirmed()).isEqualTo(MIB);
                    assertThat(connection.local().getAddress()).isEqualTo(topology.client().ipv6());
                });
                assertThat(DaemonConfigs.byServer(connections)).containsOnlyKeys("rs1", "rs2", "rs3")
                    .allSatisfy((name, count) -> assertThat(count).isEqualTo(10));
                // The servers saw the client's own address: NAT rewrote only the destination.
                for (final TcpDigestServer server : servers)
                {
                    assertThat(server.clientAddresses()).containsOnly(topology.client().ipv6());
                }
                assertThat(status.get("connections")).isGreaterThanOrEqualTo(30);
                assertThat(DaemonConfigs.drops(status)).as(String.join("\n", daemon.log())).isEmpty();
            }
        }
    }
}
