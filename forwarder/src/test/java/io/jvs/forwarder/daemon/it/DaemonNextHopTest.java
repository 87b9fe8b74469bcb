package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Next hops follow the kernel live, without a reload: while transfers run through the daemon (NAT over AF_XDP),
 * the kernel's view of a real server changes, and every transfer still completes byte-exact.
 * <ul>
 *   <li>the server's neighbour entry is deleted ({@code ip neigh del}): jvs holds its frames and has the kernel
 *       resolve it again;</li>
 *   <li>the server gets a new MAC, and the director's entry the new one ({@code ip neigh replace}): frames go
 *       to the new MAC;</li>
 *   <li>the route to the server is replaced by one through a router ({@code ip route replace}): frames go to
 *       the router, which forwards them, as the router's counters show.</li>
 * </ul>
 * And a server that leaves the network: its client hears that the host is unreachable once its SYN has been held
 * for a second, as from the kernel's failed neighbour resolution.
 */
class DaemonNextHopTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @Test
    void shouldFollowNeighbourAndRouteChangesDuringTransfers() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("hops").mode(Mode.NAT).realServers(2).router(true)
            .ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String director = topology.directorNamespace();
            final Host first = topology.realServers().get(0);
            final String rip = first.ipv4().getHostAddress();
            // Only the first server: every connection needs its next hop.
            final String config = DaemonConfigs.twoArm() + DaemonConfigs.service('t', topology.vip4(), PORT, "rr",
                'm', List.of(first.ipv4()), 1);
            try (DaemonProcess daemon = DaemonProcess.start(director, directory, config))
            {
                // 1. The entry deleted mid-transfer.
                transferWhile(topology, daemon, () ->
                    topology.inNamespace(director, "ip", "neigh", "del", rip, "dev",
                        LbTopology.DIRECTOR_SERVER_DEVICE));
                assertThat(topology.inNamespace(director, "ip", "neigh", "show", rip)).as("resolved again")
                    .contains(first.nic().mac());

                // 2. A new MAC for the server, and for the director's entry.
                final String newMac = "02:42:00:00:99:01";
                transferWhile(topology, daemon, () ->
                {
                    topology.inNamespace(first.namespace(), "ip", "link", "set", "dev",
                        LbTopology.REAL_SERVER_DEVICE, "address", newMac);
                    topology.inNamespace(director, "ip", "neigh", "replace", rip, "lladdr", newMac, "dev",
                        LbTopology.DIRECTOR_SERVER_DEVICE, "nud", "reachable");
                });

                // 3. The route to the server replaced by one through the router, which forwards on the same LAN.
                Netns.forwarding(topology.routerNamespace().orElseThrow(), true);
                final String routerAddress = topology.routerServerSide().orElseThrow().ipv4().getHostAddress();
                final Netns.Counters before = Netns.counters(topology.routerNamespace().orElseThrow(),
                    LbTopology.ROUTER_SERVER_DEVICE);
                transferWhile(topology, daemon, () ->
                    topology.inNamespace(director, "ip", "route", "replace", rip + "/32", "via", routerAddress, "dev",
                        LbTopology.DIRECTOR_SERVER_DEVICE));
                final Netns.Counters routed = Netns.counters(topology.routerNamespace().orElseThrow(),
                    LbTopology.ROUTER_SERVER_DEVICE).since(before);
                assertThat(routed.rxPackets()).as("frames to the server now reach the router first")
                    .isGreaterThan(500);
            }
        }
    }

    private static void transferWhile(final LbTopology topology, final DaemonProcess daemon, final Runnable change)
        throws Exception
    {
        final CompletableFuture<List<TcpDigestClient.Connection>> transfers = CompletableFuture.supplyAsync(() ->
            TcpDigestClient.run(topology.clientNamespace(), TcpDigestClient.Load.of(
                new InetSocketAddress(topology.vip4(), PORT), 12, 4 * MIB).parallel(2)));
        Thread.sleep(150);
        change.run();
        final List<TcpDigestClient.Connection> connections = transfers.get();
        final Map<String, Long> status = daemon.status();
        assertThat(TcpDigestClient.failures(connections)).as("%s\n%s", daemon.log(), status).isEmpty();
        assertThat(connections).hasSize(12).allSatisfy(connection ->
            assertThat(connection.bytesConfirmed()).isEqualTo(4 * MIB));
    }

    @Test
    void shouldTellAClientItsServerIsUnreachableWhenTheServersNeighbourCannotBeResolved() throws Exception
    {
        // The kernel answers what it queued on a neighbour whose resolution failed with ICMP host unreachable
        // (arp_error_report), so a client of IPVS whose server left the network fails at once: jvs likewise, once
        // it has held the SYN for its second.
        try (LbTopology topology = LbTopology.builder("gone").mode(Mode.NAT).realServers(1).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String director = topology.directorNamespace();
            final Host only = topology.realServers().get(0);
            final String rip = only.ipv4().getHostAddress();
            final String config = DaemonConfigs.twoArm() + DaemonConfigs.service('t', topology.vip4(), PORT, "rr",
                'm', List.of(only.ipv4()), 1);
            try (DaemonProcess daemon = DaemonProcess.start(director, directory, config))
            {
                // The server leaves the network: its address gone, so nobody answers ARP for it.
                topology.inNamespace(only.namespace(), "ip", "addr", "flush", "dev", LbTopology.REAL_SERVER_DEVICE);
                topology.inNamespace(director, "ip", "neigh", "del", rip, "dev", LbTopology.DIRECTOR_SERVER_DEVICE);

                final long started = System.nanoTime();
                final Throwable refused = LbTopology.callIn(topology.clientNamespace(), () ->
                {
                    try (java.net.Socket socket = new java.net.Socket())
                    {
                        socket.connect(new InetSocketAddress(topology.vip4(), PORT), 20_000);
                        return null;
                    }
                    catch (final java.io.IOException ex)
                    {
                        return ex;
                    }
                });
                final long waitedMs = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

                assertThat(refused).isInstanceOf(java.net.NoRouteToHostException.class);
                assertThat(waitedMs).as("the SYN's second in the hold, not the client's SYN retries").isLessThan(
                    10_000);
                assertThat(daemon.status().get("worker.0.held-expired")).isPositive();
            }
        }
    }
}
