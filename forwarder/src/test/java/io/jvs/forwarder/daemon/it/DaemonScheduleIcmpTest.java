package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * schedule_icmp with two directors behind one router, the case it is for: the clients' packets of a connection
 * reach director A, but an ICMP error about the server's reply, a frag-needed from the router's narrow link
 * towards the clients addressed to the VIP, reaches director B, which never saw the connection. Both schedule by
 * source hash over the same direct-routing servers, so B, with {@code set schedule_icmp 1}, sends the error to
 * the server A chose, whose TCP learns the path MTU and the echoed megabytes arrive; with 0, B leaves the error to
 * its kernel, the server never learns, and its full-sized replies are lost at the router. Which director gets
 * what is the router's policy routing (its ICMP and ICMPv6 to the VIP go to B), not an ECMP hash. IPv4
 * (frag-needed) and IPv6 (packet-too-big). Root only (namespaces, XDP), as CI runs.
 */
class DaemonScheduleIcmpTest
{
    private static final int PORT = 8080;
    private static final String AFXDP = "afxdp xdp-mode drv";
    private static final int MIB = 1 << 20;
    private static final int NARROW_MTU = 1400;
    private static final int ICMP_TABLE = 100;
    private static final int CONNECTIONS = 6;

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void shouldSendAnErrorAboutAnotherDirectorsConnectionToItsServer(final boolean ipv6) throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dsicmp").mode(Mode.DR).oneArm(true).secondDirector(true)
            .realServers(3).clientAddresses(CONNECTIONS).ipv6(ipv6).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, true);
            final InetAddress vip = ipv6 ? topology.vip6() : topology.vip4();
            final List<? extends InetAddress> clients = ipv6 ? topology.clientAddresses6() :
                topology.clientAddresses4();
            narrowLinkAndIcmpToB(topology, vip);
            final String config = DaemonConfigs.interfaces(AFXDP, LbTopology.DIRECTOR_SERVER_DEVICE) + "workers 1\n" +
                DaemonConfigs.service('t', vip, PORT, "sh", 'g',
                    ipv6 ? DaemonConfigs.serversV6(topology) : DaemonConfigs.serversV4(topology),
                    DaemonConfigs.ones(topology.realServers().size()));
            final Path a = Files.createDirectories(directory.resolve("a"));
            final Path b = Files.createDirectories(directory.resolve("b"));
            try (DaemonProcess jvsA = DaemonProcess.start(topology.directorNamespace(), a, config);
                DaemonProcess jvsB = DaemonProcess.start(topology.secondDirectorNamespace().orElseThrow(), b,
                    "set schedule_icmp 1\n" + config))
            {
                final InetSocketAddress service = new InetSocketAddress(vip, PORT);
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(service, CONNECTIONS, MIB).echo(true).parallel(3).sources(clients)
                        .timeouts(Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(20)));
                final Map<String, Long> statusA = jvsA.status();
                final Map<String, Long> statusB = jvsB.status();
                final String logs = "A: " + String.join("\n", jvsA.log()) + "\n" + statusA + "\nB: " +
                    String.join("\n", jvsB.log()) + "\n" + statusB;
                assertThat(TcpDigestClient.failures(connections)).as(logs).isEmpty();
                assertThat(connections).allSatisfy(connection ->
                    assertThat(connection.bytesEchoed()).isEqualTo(MIB));
                assertThat(statusA.get("connections")).as(logs).isEqualTo(CONNECTIONS);
                // B made an entry for each connection's errors, to the server A had chosen for it.
                final Map<String, Integer> byServer = DaemonConfigs.byServer(connections);
                for (final Host server : topology.realServers())
                {
                    final String entries = "server." + DaemonConfigs.endpoint(server.nic().address(vip), PORT) +
                        ".connections";
                    assertThat(statusB.get(entries))
                        .as("%s's entries in B\n%s", server.name(), logs)
                        .isEqualTo(byServer.getOrDefault(server.name(), 0).longValue());
                }
                final String errors = "service.tcp-" + DaemonConfigs.endpoint(vip, PORT) + ".inpkts";
                assertThat(statusB.get(errors)).as(logs).isGreaterThanOrEqualTo(CONNECTIONS);
                for (final TcpDigestClient.Connection connection : connections)
                {
                    assertThat(pathMtu(topology, connection.serverIdentity(), connection.local().getAddress()))
                        .as("%s's path MTU to %s", connection.serverIdentity(), connection.local()).isTrue();
                }

                // With schedule_icmp 0, B's kernel gets the error: the server never hears of the narrow link.
                jvsB.rewrite(b, "set schedule_icmp 0\n" + config);
                jvsB.signal("HUP");
                jvsB.awaitLog("set schedule_icmp 0", Duration.ofSeconds(10));
                for (final Host server : topology.realServers())
                {
                    topology.inNamespace(server.namespace(), "ip", ipv6 ? "-6" : "-4", "route", "flush", "cache");
                }
                final InetAddress client = clients.getFirst();
                final List<TcpDigestClient.Connection> stalled = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(service, 1, 64 << 10).echo(true).sources(List.of(client))
                        .timeouts(Duration.ofSeconds(2), Duration.ofSeconds(3), Duration.ofSeconds(10)));
                assertThat(stalled.getFirst().ok()).as("a connection through a black hole").isFalse();
                assertThat(stalled.getFirst().bytesEchoed()).isLessThan(64 << 10);
                assertThat(jvsB.status().get(errors)).as("B forwarded no error").isEqualTo(statusB.get(errors));
                for (final Host server : topology.realServers())
                {
                    assertThat(pathMtu(topology, server.name(), client)).as("%s's path MTU to %s", server.name(),
                        client).isFalse();
                }
            }
        }
    }

    /**
     * The narrow link: the router carries 1400 bytes towards the clients, whose MSS (a 1500-byte LAN) lets the
     * servers send 1500 with DF; the router's frag-needed or packet-too-big about them, addressed to the VIP, goes
     * to B by a rule for its ICMP, the rest to A by the main table.
     */
    private static void narrowLinkAndIcmpToB(final LbTopology topology, final InetAddress vip)
    {
        final String router = topology.routerNamespace().orElseThrow();
        final NetInterface b = topology.secondDirectorServerSide().orElseThrow();
        final List<String> commands = new ArrayList<>();
        if (vip instanceof Inet6Address)
        {
            // The connected route itself: another of a different metric would not be the one chosen.
            commands.add("route change " + LbTopology.CLIENT_NETWORK_V6 + " dev " + LbTopology.ROUTER_CLIENT_DEVICE +
                " metric 256 proto kernel mtu " + NARROW_MTU);
            commands.add("rule add ipproto ipv6-icmp lookup " + ICMP_TABLE + " pref 100");
            commands.add("route add " + vip.getHostAddress() + "/128 via " + b.ipv6().getHostAddress() + " table " +
                ICMP_TABLE);
            Netns.ipBatch6(router, commands);
        }
        else
        {
            commands.add("route replace " + LbTopology.CLIENT_NETWORK_V4 + " dev " + LbTopology.ROUTER_CLIENT_DEVICE +
                " mtu " + NARROW_MTU);
            commands.add("rule add ipproto icmp lookup " + ICMP_TABLE + " pref 100");
            commands.add("route add " + vip.getHostAddress() + "/32 via " + b.ipv4().getHostAddress() + " table " +
                ICMP_TABLE);
            Netns.ipBatch(router, commands);
        }
    }

    /** @return whether the server {@code name} has learned the narrow link's MTU towards {@code client}. */
    private static boolean pathMtu(final LbTopology topology, final String name, final InetAddress client)
    {
        return topology.inNamespace(topology.realServer(name).namespace(), "ip", "route", "get",
            client.getHostAddress()).contains("mtu " + NARROW_MTU);
    }
}
