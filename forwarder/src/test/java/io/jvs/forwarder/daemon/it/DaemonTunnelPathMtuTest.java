package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A TUN director with a narrower hop beyond it: its route to the real server goes through the router, whose link on
 * to the server carries 1400 bytes ({@link LbTopology#narrowPathTo}), while the director's own server LAN carries
 * 1540. The client uploads in full-sized segments with DF, over AF_XDP and over AF_PACKET.
 * <ol>
 *   <li>The director's 1520-byte IP-in-IP packets reach the router, which answers the director's address with
 *       frag-needed naming 1400 about them; jvs relays it to the client as an error about the client's own packet,
 *       naming 1380 (ip_vs_in_icmp), so the client's kernel keeps a path MTU of 1380 towards the VIP, and the upload
 *       arrives byte-exact. The daemon logs the path MTU it learnt towards the server.</li>
 *   <li>The client forgets its path MTU ({@code ip route flush cache}) and uploads again from another address: jvs
 *       itself answers its first big segment with frag-needed naming 1380, as the kernel would from the route
 *       exception ipv4_update_pmtu left, and no packet too big for the router reaches it.</li>
 *   <li>After a reload (SIGHUP), the same again: the learnt MTU is kept, not learnt anew.</li>
 *   <li>A new route to the server forgets it; the router's next error teaches it again.</li>
 * </ol>
 * Root only (namespaces, XDP).
 */
class DaemonTunnelPathMtuTest
{
    private static final int PORT = 8080;
    private static final int PATH_MTU = 1400;
    private static final int OUTER_HEADER = 20;
    private static final int UPLOAD = 256 << 10;
    private static final Pattern ROUTE_MTU = Pattern.compile("\\bmtu (\\d+)");

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldRelayTheRoutersFragNeededThenAnswerWithTheLearntMtuItself(final String port) throws Exception
    {
        try (LbTopology topology = LbTopology.builder("tpmtu").mode(Mode.TUN).realServers(1).serverMtu(1540)
            .clientAddresses(2).ipv6(false).segmentationOffload(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            final Host server = topology.realServer(1);
            topology.narrowPathTo(server, PATH_MTU);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm(port) + DaemonConfigs.service('t', topology.vip4(), PORT, "rr",
                'i', List.of(server.ipv4()), 1);
            final String router = topology.routerNamespace().orElseThrow();
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                // 1. The router's error, relayed.
                final long refusedBefore = Netns.snmp(router, "Ip", "FragFails");
                upload(topology, daemon, topology.clientAddresses4().get(0));
                assertThat(Netns.snmp(router, "Ip", "FragFails")).as("the router refused the first big packets")
                    .isGreaterThan(refusedBefore);
                assertThat(clientPathMtu(topology)).as("the relayed error reached the client")
                    .isEqualTo(PATH_MTU - OUTER_HEADER);
                // Logged once the snapshot that carries it is published.
                daemon.awaitLog("path mtu to " + server.ipv4().getHostAddress() + ": " + PATH_MTU,
                    Duration.ofSeconds(5));

                // 2. The learnt MTU, from jvs itself.
                topology.inNamespace(topology.clientNamespace(), "ip", "route", "flush", "cache");
                assertThat(clientPathMtu(topology)).as("the client forgot its path MTU").isZero();
                final long icmpBefore = daemon.status().get("icmp-sent");
                final long refusedAfterLearning = Netns.snmp(router, "Ip", "FragFails");
                upload(topology, daemon, topology.clientAddresses4().get(1));
                assertThat(Netns.snmp(router, "Ip", "FragFails")).as("no packet too big reached the router")
                    .isEqualTo(refusedAfterLearning);
                final Map<String, Long> status = daemon.status();
                assertThat(status.get("icmp-sent")).as("jvs answered with frag-needed: %s", status)
                    .isGreaterThan(icmpBefore);
                assertThat(clientPathMtu(topology)).as("jvs's error named the learnt MTU less the outer header")
                    .isEqualTo(PATH_MTU - OUTER_HEADER);

                // 3. A reload keeps it: the topology lives on, only its configuration is replaced.
                daemon.signal("HUP");
                daemon.awaitLog(" info reload (SIGHUP): ", Duration.ofSeconds(10));
                topology.inNamespace(topology.clientNamespace(), "ip", "route", "flush", "cache");
                upload(topology, daemon, topology.clientAddresses4().get(0));
                assertThat(Netns.snmp(router, "Ip", "FragFails")).as("still none too big at the router")
                    .isEqualTo(refusedAfterLearning);
                assertThat(daemon.log()).as("learnt once").filteredOn(line -> line.contains(" info path mtu to "))
                    .hasSize(1);

                // 4. A new route to the server (here with an MTU of its own) forgets it, as the kernel's route
                // exceptions go with the route they hang from; the router's next error teaches it again.
                final String via = topology.routerServerSide().orElseThrow().ipv4().getHostAddress();
                topology.inNamespace(topology.directorNamespace(), "ip", "route", "change",
                    server.ipv4().getHostAddress() + "/32", "via", via, "dev", LbTopology.DIRECTOR_SERVER_DEVICE, "mtu",
                    "1500");
                daemon.awaitLog("path mtu to " + server.ipv4().getHostAddress() + ": forgotten", Duration.ofSeconds(5));
                topology.inNamespace(topology.clientNamespace(), "ip", "route", "flush", "cache");
                upload(topology, daemon, topology.clientAddresses4().get(1));
                assertThat(Netns.snmp(router, "Ip", "FragFails")).as("the router refused big packets again")
                    .isGreaterThan(refusedAfterLearning);
                assertThat(daemon.log()).as("learnt again").filteredOn(line -> line.contains(" info path mtu to ") &&
                    line.contains(": " + PATH_MTU + " ")).hasSize(2);
            }
        }
    }

    /** Uploads {@link #UPLOAD} bytes from {@code source} to the VIP in one connection, and checks them. */
    private static void upload(final LbTopology topology, final DaemonProcess daemon, final Inet4Address source)
    {
        final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
            TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 1, UPLOAD)
                .sources(List.of(source)));
        assertThat(TcpDigestClient.failures(connections)).as(() -> String.join("\n", daemon.log()) + "\n" +
            daemon.status()).isEmpty();
        assertThat(connections).singleElement().satisfies(connection ->
            assertThat(connection.bytesConfirmed()).isEqualTo(UPLOAD));
    }

    /** @return the path MTU the client's kernel keeps towards the VIP (its route exception's), 0 for none. */
    private static int clientPathMtu(final LbTopology topology)
    {
        final Matcher mtu = ROUTE_MTU.matcher(topology.inNamespace(topology.clientNamespace(), "ip", "route", "get",
            topology.vip4().getHostAddress()));
        return mtu.find() ? Integer.parseInt(mtu.group(1)) : 0;
    }
}
