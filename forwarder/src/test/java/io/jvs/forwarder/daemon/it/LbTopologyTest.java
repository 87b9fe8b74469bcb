package io.jvs.forwarder.daemon.it;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import io.jvs.forwarder.daemon.it.Host;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness proved with the kernel standing in for the director: the topology routes, the traffic
 * tools carry 30 connections of 1 MiB byte-exact and count who served them, kernel DNAT spreads them over
 * the real servers, and DR replies really go around the director. (TUN is proved with hand-built frames in
 * TunnelFixtureTest.) Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LbTopologyTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @Test
    void shouldCarryThirtyConnectionsOfOneMebibyteByteExactThroughARoutingDirector()
    {
        try (LbTopology topology = LbTopology.builder("route").mode(Mode.NAT).build())
        {
            routeServersThroughTheDirector(topology);
            final List<TcpDigestServer> servers = topology.startTcpServers(PORT, false);

            final Map<String, List<TcpDigestClient.Connection>> byServer = new TreeMap<>();
            for (final Host server : topology.realServers())
            {
                byServer.put(server.name(), TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(server.ipv4(), PORT), 10, MIB).seed(server.index())));
            }

            assertThat(byServer).hasSize(3).allSatisfy((name, connections) ->
            {
                assertThat(TcpDigestClient.failures(connections)).isEmpty();
                assertThat(connections).hasSize(10).allSatisfy(connection ->
                {
                    assertThat(connection.bytesConfirmed()).isEqualTo(MIB);
                    assertThat(connection.serverIdentity()).isEqualTo(name);
                });
            });
            for (final TcpDigestServer server : servers)
            {
                assertThat(server.served()).hasSize(10).allSatisfy(served ->
                {
                    assertThat(served.ok()).as(served.failure()).isTrue();
                    assertThat(served.client().getAddress()).isEqualTo(topology.client().ipv4());
                });
            }
        }
    }

    @Test
    void shouldSpreadThirtyEchoedConnectionsFromThreeClientsOverThreeServersWithKernelDnat()
    {
        try (LbTopology topology = LbTopology.builder("dnat").mode(Mode.NAT).clientAddresses(3).build())
        {
            Netns.forwarding(topology.directorNamespace(), true);
            // Round robin over the real servers, chosen once per connection (NAT rules see a flow's first packet).
            nft(topology.directorNamespace(), "add table ip jvstest",
                "add chain ip jvstest prerouting { type nat hook prerouting priority dstnat; policy accept; }",
                "add rule ip jvstest prerouting ip daddr " + topology.vip4().getHostAddress() + " tcp dport " +
                    PORT + " dnat to numgen inc mod 3 map { 0 : 172.16.0.2, 1 : 172.16.0.3, 2 : 172.16.0.4 }");
            final List<TcpDigestServer> servers = topology.startTcpServers(PORT, true);

            final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                TcpDigestClient.Load.of(topology.service(topology.vip4(), PORT), 30, MIB).echo(true)
                    .sources(topology.clientAddresses4()).seed(7));

            assertThat(TcpDigestClient.failures(connections)).isEmpty();
            assertThat(connections).allSatisfy(connection -> assertThat(connection.bytesEchoed()).isEqualTo(MIB));
            assertThat(countBy(connections, TcpDigestClient.Connection::serverIdentity))
                .containsExactlyInAnyOrderEntriesOf(Map.of("rs1", 10L, "rs2", 10L, "rs3", 10L));
            final List<InetAddress> seenByServers = servers.stream()
                .flatMap(server -> server.clientAddresses().stream()).toList();
            // DNAT keeps the client's address: the servers see the three clients, ten connections each.
            assertThat(seenByServers).hasSize(30).isSubsetOf(topology.clientAddresses4())
                .containsAll(topology.clientAddresses4());
        }
    }

    @Test
    void shouldReturnDirectRoutedTrafficAroundTheDirector()
    {
        try (LbTopology topology = LbTopology.builder("dr").mode(Mode.DR).build())
        {
            assertDirectRoutingBypassesTheDirector(topology);
        }
    }

    @Test
    void shouldReturnDirectRoutedTrafficAroundAOneArmDirector()
    {
        try (LbTopology topology = LbTopology.builder("arm").mode(Mode.DR).oneArm(true).build())
        {
            assertThat(topology.directorClientSide()).isEmpty();
            assertDirectRoutingBypassesTheDirector(topology);
        }
    }

    /**
     * The director's kernel routes the VIP to rs1 (DR's frame: IP untouched, to rs1's MAC); flow counters on
     * the director's and the router's server-side devices show where each connection's answers went.
     */
    private static void assertDirectRoutingBypassesTheDirector(final LbTopology topology)
    {
        final String director = topology.directorNamespace();
        Netns.forwarding(director, true);
        Netns.ip(director, "route", "add", topology.vip4().getHostAddress() + "/32", "via",
            topology.realServer(1).ipv4().getHostAddress());
        final List<TcpDigestServer> servers = topology.startTcpServers(PORT, false);
        final FlowCounter intoDirector = topology.register(
            FlowCounter.attach(director, LbTopology.DIRECTOR_SERVER_DEVICE));
        final FlowCounter intoRouter = topology.register(
            FlowCounter.attach(topology.routerNamespace().orElseThrow(), LbTopology.ROUTER_SERVER_DEVICE));

        final InetSocketAddress service = topology.service(topology.vip4(), PORT);
        final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
            TcpDigestClient.Load.of(service, 10, MIB));

        assertThat(TcpDigestClient.failures(connections)).isEmpty();
        assertThat(connections).extracting(TcpDigestClient.Connection::serverIdentity).containsOnly("rs1");
        assertThat(servers.getFirst().served()).hasSize(10).allSatisfy(served ->
            assertThat(served.local().getAddress()).isEqualTo(topology.vip4()));
        final List<FlowCounter.Flow> answers = connections.stream()
            .map(connection -> new FlowCounter.Flow(TestPackets.IPPROTO_TCP, service, connection.local())).toList();
        assertThat(intoRouter.flows().keySet()).containsAll(answers);
        assertThat(intoDirector.flows().keySet()).as("flows the director received from the server LAN")
            .noneMatch(flow -> flow.source().getAddress().equals(topology.vip4()));
    }

    @Test
    void shouldAnswerUdpRequestsThroughARoutingDirector()
    {
        try (LbTopology topology = LbTopology.builder("udp").mode(Mode.NAT).clientAddresses(2).build())
        {
            routeServersThroughTheDirector(topology);
            final List<UdpDigestServer> servers = topology.startUdpServers(5353);
            final Host target = topology.realServer(2);

            final List<UdpDigestClient.Exchange> exchanges = UdpDigestClient.run(topology.clientNamespace(),
                UdpDigestClient.Load.of(new InetSocketAddress(target.ipv4(), 5353), 30, 1200)
                    .sources(topology.clientAddresses4()));

            assertThat(exchanges).allSatisfy(exchange ->
            {
                assertThat(exchange.ok()).as(exchange.failure()).isTrue();
                assertThat(exchange.serverIdentity()).isEqualTo("rs2");
            });
            // A flow each: the client never reuses an address and port (two addresses may share a port).
            assertThat(exchanges).extracting(UdpDigestClient.Exchange::local).doesNotHaveDuplicates();
            assertThat(servers.get(1).asked()).hasSizeGreaterThanOrEqualTo(30).allSatisfy(asked ->
                assertThat(asked.bytes()).isEqualTo(1200));
            assertThat(servers.get(0).asked()).isEmpty();
        }
    }

    @Test
    void shouldCarryIpv6ThroughARoutingDirector()
    {
        try (LbTopology topology = LbTopology.builder("six").mode(Mode.NAT).build())
        {
            routeServersThroughTheDirector(topology);
            topology.startTcpServers(PORT, false);
            final List<UdpDigestServer> udp = topology.startUdpServers(5353);

            final List<TcpDigestClient.Connection> connections = new ArrayList<>();
            for (final Host server : topology.realServers())
            {
                connections.addAll(TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(server.ipv6(), PORT), 10, MIB)));
            }
            final List<UdpDigestClient.Exchange> exchanges = UdpDigestClient.run(topology.clientNamespace(),
                UdpDigestClient.Load.of(new InetSocketAddress(topology.realServer(3).ipv6(), 5353), 10, 100));

            assertThat(TcpDigestClient.failures(connections)).isEmpty();
            assertThat(countBy(connections, TcpDigestClient.Connection::serverIdentity))
                .containsExactlyInAnyOrderEntriesOf(Map.of("rs1", 10L, "rs2", 10L, "rs3", 10L));
            assertThat(connections).allSatisfy(connection ->
                assertThat(connection.local().getAddress()).isEqualTo(topology.client().ipv6()));
            assertThat(exchanges).allSatisfy(exchange -> assertThat(exchange.ok()).as(exchange.failure()).isTrue());
            assertThat(udp.get(2).asked()).allSatisfy(asked ->
                assertThat(asked.client().getAddress()).isEqualTo(topology.client().ipv6()));
        }
    }

    @Test
    void shouldKeepTheClientsFramesWireSizedWithoutSegmentationOffload()
    {
        assertThat(largestFrameTheDirectorReceives(false)).isLessThanOrEqualTo(1514);
        assertThat(largestFrameTheDirectorReceives(true)).as("GSO packets, as a veth carries them by default")
            .isGreaterThan(1514);
    }

    /** @return the longest frame the director's client side receives while the client sends 1 MiB to rs1. */
    private static int largestFrameTheDirectorReceives(final boolean segmentationOffload)
    {
        try (LbTopology topology = LbTopology.builder("gso").mode(Mode.NAT).realServers(1).ipv6(false)
            .segmentationOffload(segmentationOffload).build())
        {
            routeServersThroughTheDirector(topology);
            topology.startTcpServers(PORT, false);
            try (RawPacketSocket watch = RawPacketSocket.openIncoming(topology.directorNamespace(),
                LbTopology.DIRECTOR_CLIENT_DEVICE, AfPacket.ETH_P_IP))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.realServer(1).ipv4(), PORT), 1, MIB));
                assertThat(TcpDigestClient.failures(connections)).isEmpty();
                int largest = 0;
                for (byte[] frame = watch.poll(); frame != null; frame = watch.poll())
                {
                    largest = Math.max(largest, frame.length);
                }
                return largest;
            }
        }
    }

    @Test
    void shouldExposeTheNamesAConfigNeeds()
    {
        try (LbTopology topology = LbTopology.builder("names").mode(Mode.NAT).realServers(2).directorQueues(2)
            .build())
        {
            assertThat(Netns.ip(topology.directorNamespace(), "-d", "link", "show", "dev", "ls"))
                .contains("numtxqueues 2 numrxqueues 2");
            final NetInterface lc = topology.directorClientSide().orElseThrow();
            assertThat(lc.name()).isEqualTo("lc");
            assertThat(lc.ipv4().getHostAddress()).isEqualTo("10.0.0.1");
            assertThat(lc.mac()).isEqualTo(Netns.mac(topology.directorNamespace(), "lc"));
            assertThat(topology.directorServerSide().ipv6().getHostAddress()).isEqualTo("fd00:172:16:0:0:0:0:1");
            assertThat(topology.realServers()).extracting(Host::name).containsExactly("rs1", "rs2");
            assertThat(topology.realServer(2).ipv4().getHostAddress()).isEqualTo("172.16.0.3");
            assertThat(topology.realServer(2).nic().macBytes()).hasSize(6);
            assertThat(Netns.ip(topology.realServer(1).namespace(), "route", "show", "default"))
                .contains("via 172.16.0.1");
            assertThat(Netns.readSysctl(topology.directorNamespace(), "net.ipv4.ip_forward")).isEqualTo("0");
            assertThat(topology.routerNamespace()).isEmpty();
            assertThat(topology.network().namespaces()).hasSize(6);
        }
    }

    @Test
    void shouldRemoveEveryNamespaceOnClose()
    {
        final List<String> namespaces;
        try (LbTopology topology = LbTopology.builder("gone").mode(Mode.TUN).realServers(2).build())
        {
            namespaces = topology.network().namespaces();
            assertThat(topology.decapsulatorLinks()).hasSize(2).allSatisfy(link ->
                assertThat(link.isOpen()).isTrue());
        }
        final String listed = TestNetwork.run("ip", "netns", "list");
        assertThat(namespaces).hasSize(7).allSatisfy(namespace -> assertThat(listed).doesNotContain(namespace));
    }

    private static void routeServersThroughTheDirector(final LbTopology topology)
    {
        Netns.forwarding(topology.directorNamespace(), true);
        Netns.ip(topology.clientNamespace(), "route", "add", LbTopology.SERVER_NETWORK_V4, "via", "10.0.0.1");
        if (topology.ipv6())
        {
            Netns.ip(topology.clientNamespace(), "-6", "route", "add", LbTopology.SERVER_NETWORK_V6, "via",
                "fd00:10::1");
        }
    }

    private static void nft(final String namespace, final String... commands)
    {
        for (final String command : commands)
        {
            // nft joins its arguments into one command line: the whole command can be one argument.
            TestNetwork.run("ip", "netns", "exec", namespace, "nft", command);
        }
    }

    private static <T> Map<String, Long> countBy(final List<T> items, final Function<T, String> key)
    {
        return items.stream().collect(Collectors.groupingBy(key, Collectors.counting()));
    }
}
