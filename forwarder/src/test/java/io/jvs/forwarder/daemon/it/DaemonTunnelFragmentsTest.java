package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * IPv4 in IPv6 to a real server whose route from the director carries 1300 bytes ({@code ip -6 route add SERVER/128
 * dev ... mtu 1300}, followed live): a client's 1428-byte datagrams without DF (its namespace has ip_no_pmtu_disc)
 * are 1468 bytes with the outer IPv6 header, and jvs sends each in two IPv6 fragments, as IPVS's
 * ip_vs_tunnel_xmit_v6 sets ignore_df and ip6_fragment splits the outer packet. The server's kernel puts every one
 * back together (its Ip6ReasmOKs), over AF_XDP and over AF_PACKET.
 * <p>
 * This kernel has no ip6_tunnel module and the tests' decapsulating XDP program sees the fragments before the kernel
 * joins them, so the datagrams go no further than that: their reassembly is what is checked. Root only.
 */
class DaemonTunnelFragmentsTest
{
    private static final int PORT = 5300;
    private static final int DATAGRAMS = 20;
    private static final int PAYLOAD = 1400;

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldSendAnIpv6OuterPacketTooBigForTheRouteInFragmentsTheServerPutsTogether(final String port)
        throws Exception
    {
        try (LbTopology topology = LbTopology.builder("tfrag6").mode(Mode.TUN).realServers(1).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.inNamespace(topology.clientNamespace(), "sysctl", "-qw", "net.ipv4.ip_no_pmtu_disc=1");
            final Host server = topology.realServer(1);
            final String config = DaemonConfigs.twoArm(port) + DaemonConfigs.service('u', topology.vip4(), PORT, "rr",
                'i', List.of(server.ipv6()), 1);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final long joinedBefore = Netns.snmp6(server.namespace(), "Ip6ReasmOKs");
                send(topology, DATAGRAMS);
                awaitForwarded(daemon, DATAGRAMS);
                assertThat(daemon.status().getOrDefault("worker.0.fragmented", 0L)).as("whole before the route")
                    .isZero();
                assertThat(Netns.snmp6(server.namespace(), "Ip6ReasmOKs")).isEqualTo(joinedBefore);

                topology.inNamespace(topology.directorNamespace(), "ip", "-6", "route", "add",
                    server.ipv6().getHostAddress() + "/128", "dev", topology.directorServerSide().name(), "mtu",
                    "1300");
                Thread.sleep(1500);
                final long failedBefore = Netns.snmp6(server.namespace(), "Ip6ReasmFails");
                send(topology, DATAGRAMS);
                awaitForwarded(daemon, 2 * DATAGRAMS);
                final Map<String, Long> status = daemon.status();
                assertThat(status).as(status.toString()).containsEntry("worker.0.fragmented", (long)DATAGRAMS)
                    .containsEntry("worker.0.fragments", 2L * DATAGRAMS);
                assertThat(DaemonConfigs.drops(status)).as(String.join("\n", daemon.log())).isEmpty();
                awaitJoined(server, joinedBefore + DATAGRAMS);
                assertThat(Netns.snmp6(server.namespace(), "Ip6ReasmFails")).isEqualTo(failedBefore);
            }
        }
    }

    /** Sends {@code count} datagrams of {@link #PAYLOAD} bytes from the client to the VIP, each from its own port. */
    private static void send(final LbTopology topology, final int count)
    {
        Topology.callIn(topology.clientNamespace(), () ->
        {
            final byte[] payload = new byte[PAYLOAD];
            for (int i = 0; i < count; i++)
            {
                try (DatagramSocket socket = new DatagramSocket())
                {
                    socket.send(new DatagramPacket(payload, payload.length,
                        new InetSocketAddress(topology.vip4(), PORT)));
                }
            }
            return null;
        });
    }

    private static void awaitForwarded(final DaemonProcess daemon, final long packets) throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (daemon.status().getOrDefault("transmitted", 0L) < packets)
        {
            assertThat(System.nanoTime() - deadline).as(() -> daemon.status().toString()).isNegative();
            Thread.sleep(50);
        }
    }

    private static void awaitJoined(final Host server, final long joined) throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (Netns.snmp6(server.namespace(), "Ip6ReasmOKs") < joined)
        {
            assertThat(System.nanoTime() - deadline).as("the server put the fragments together").isNegative();
            Thread.sleep(50);
        }
        assertThat(Netns.snmp6(server.namespace(), "Ip6ReasmOKs")).isEqualTo(joined);
    }
}
