package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * NAT and DR packets against the MTU of the port they leave by, or of the route to their server when it has one, as
 * the kernel holds IPVS's to the route's (dst_mtu in __ip_vs_get_out_rt, then ensure_mtu_is_adequate) and the replies
 * it forwards to the device's (ip_forward): a packet that fits goes, one
 * byte more is dropped, and with DF its sender gets frag-needed naming the MTU, on the first packet of a
 * connection and on an established one alike.
 */
class PipelineMtuTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress NAT_SERVER = IpAddress.parse("192.168.1.2");
    private static final IpAddress DR_SERVER = IpAddress.parse("192.168.1.3");
    private static final long SERVER_SIDE_MAC = 0x02_00_00_00_00_11L;
    private static final long NAT_SERVER_MAC = 0x02_00_00_00_01_02L;
    private static final long DR_SERVER_MAC = 0x02_00_00_00_01_03L;
    private static final int DONT_FRAGMENT = 0x4000;
    private static final int IP_AND_TCP = 40;

    /** Clients on port 0 (the fixture's, MTU {@code clientMtu}), servers on port 1 (MTU {@code serverMtu}). */
    private static PipelineFixture twoArm(final int clientMtu, final int serverMtu)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m",
                "-A -t 10.0.0.100:81 -s rr", "-a -t 10.0.0.100:81 -r 192.168.1.3:81 -g");
        fixture.topology.port(0, JVS_MAC, clientMtu, IpAddress.parse("10.0.0.1"), null)
            .port(1, SERVER_SIDE_MAC, serverMtu, IpAddress.parse("192.168.1.1"), null)
            .neighbour(NAT_SERVER, 1, NAT_SERVER_MAC)
            .neighbour(DR_SERVER, 1, DR_SERVER_MAC);
        return fixture.start();
    }

    /**
     * Both ports' MTU 1500, the NAT server's route with an MTU of its own ({@code ip route add 192.168.1.2 dev ...
     * mtu 1200}), the DR server's with none.
     */
    private static PipelineFixture routeMtu(final int natServerRouteMtu)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m",
                "-A -t 10.0.0.100:81 -s rr", "-a -t 10.0.0.100:81 -r 192.168.1.3:81 -g");
        fixture.topology.port(0, JVS_MAC, 1500, IpAddress.parse("10.0.0.1"), null)
            .port(1, SERVER_SIDE_MAC, 1500, IpAddress.parse("192.168.1.1"), null)
            .neighbour(NAT_SERVER, 1, NAT_SERVER_MAC, natServerRouteMtu)
            .neighbour(DR_SERVER, 1, DR_SERVER_MAC);
        return fixture.start();
    }

    /**
     * Both ports' MTU 1500; the clients behind a router on port 0, by a route to their /24 with an MTU of its own
     * ({@code ip route add 198.51.100.0/24 via ROUTER mtu 1200}), and by a longer route without one to
     * 198.51.100.128/25.
     */
    private static PipelineFixture clientRouteMtu()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m");
        fixture.topology.port(0, JVS_MAC, 1500, IpAddress.parse("10.0.0.1"), null)
            .port(1, SERVER_SIDE_MAC, 1500, IpAddress.parse("192.168.1.1"), null)
            .neighbour(NAT_SERVER, 1, NAT_SERVER_MAC)
            .route(IpPrefix.parse("198.51.100.0/24"), 0, ROUTER_MAC, 1200)
            .route(IpPrefix.parse("198.51.100.128/25"), 0, ROUTER_MAC);
        return fixture.start();
    }

    /** Opens a NAT connection from {@code client}:{@code clientPort}; the server's replies then come on port 1. */
    private static void open(final PipelineFixture plane, final IpAddress client, final int clientPort)
    {
        plane.ingressPort = 0;
        plane.sendOne(ipv4(JVS_MAC, ROUTER_MAC, client, VIP, 64, Segment.tcp(clientPort, 80, SYN, 0), DONT_FRAGMENT,
            1));
        plane.ingressPort = 1;
        plane.sendOne(ipv4(SERVER_SIDE_MAC, NAT_SERVER_MAC, NAT_SERVER, client, 64,
            Segment.tcp(80, clientPort, SYN | ACK, 0), DONT_FRAGMENT, 2));
        plane.ingressPort = 0;
        plane.sendOne(ipv4(JVS_MAC, ROUTER_MAC, client, VIP, 64, Segment.tcp(clientPort, 80, ACK, 0), DONT_FRAGMENT,
            3));
        plane.ingressPort = 1;
    }

    private static byte[] reply(final IpAddress client, final int clientPort, final int ipLength,
        final int fragmentField)
    {
        return ipv4(SERVER_SIDE_MAC, NAT_SERVER_MAC, NAT_SERVER, client, 64,
            Segment.tcp(80, clientPort, ACK, ipLength - IP_AND_TCP), fragmentField, 4);
    }

    private static byte[] fromClient(final int port, final int clientPort, final int flags, final int ipLength,
        final int fragmentField)
    {
        return ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(clientPort, port, flags, ipLength - IP_AND_TCP), fragmentField, clientPort);
    }

    /**
     * Opens a NAT connection from the client's port 40001 to port 80 and sends three packets of {@code ipLength} bytes
     * through it to the server (port 1), which must go whole.
     */
    private static void establishSending(final PipelineFixture plane, final int ipLength)
    {
        plane.sendOne(fromClient(80, 40001, SYN, IP_AND_TCP, DONT_FRAGMENT));
        plane.ingressPort = 1;
        plane.sendOne(ipv4(SERVER_SIDE_MAC, NAT_SERVER_MAC, NAT_SERVER, CLIENT, 64,
            Segment.tcp(80, 40001, SYN | ACK, 0), DONT_FRAGMENT, 1));
        plane.ingressPort = 0;
        for (int i = 0; i < 3; i++)
        {
            assertThat(Verdict.toString(plane.sendOne(fromClient(80, 40001, ACK, ipLength, DONT_FRAGMENT)).verdict()))
                .isEqualTo("transmit:1");
        }
    }

    private static void assertFragNeeded(final PipelineFixture.Result answer, final int port, final int mtu)
    {
        assertThat(Verdict.toString(answer.verdict())).as("answered on the port it came in on")
            .isEqualTo("transmit:" + port);
        assertThat(answer.frame()[34]).as("destination unreachable").isEqualTo((byte)3);
        assertThat(answer.frame()[35]).as("fragmentation needed").isEqualTo((byte)4);
        assertThat(u16(answer.frame(), 40)).as("the next hop's MTU").isEqualTo(mtu);
    }

    /** @return the answer's IPv4 source address, as unsigned bytes. */
    private static int[] source(final PipelineFixture.Result answer)
    {
        return address(answer.frame(), 26);
    }

    /** @return the answer's IPv4 destination address, as unsigned bytes. */
    private static int[] destination(final PipelineFixture.Result answer)
    {
        return address(answer.frame(), 30);
    }

    private static int[] address(final byte[] frame, final int offset)
    {
        return new int[] {frame[offset] & 0xFF, frame[offset + 1] & 0xFF, frame[offset + 2] & 0xFF,
            frame[offset + 3] & 0xFF};
    }

    @Test
    void shouldSendToANatServerWhatFitsItsPortAndAnswerOneByteMoreWithFragNeeded()
    {
        final PipelineFixture nat = twoArm(1500, 1000);

        assertThat(Verdict.toString(nat.sendOne(fromClient(80, 40001, SYN, 1000, DONT_FRAGMENT)).verdict()))
            .isEqualTo("transmit:1");
        final PipelineFixture.Result fragmented = nat.sendOne(fromClient(80, 40002, SYN, 1001, 0));
        assertThat(Verdict.toString(fragmented.verdict())).as("without DF: rewritten, to leave in fragments")
            .isEqualTo("transmit:1:fragments");
        assertThat(u16(fragmented.frame(), 14 + 16)).as("NAT's destination, first half").isEqualTo(192 << 8 | 168);
        assertThat(nat.pipeline.counters().icmpSent()).isZero();
        assertFragNeeded(nat.sendOne(fromClient(80, 40003, SYN, 1001, DONT_FRAGMENT)), 0, 1000);
    }

    @Test
    void shouldHoldAServersPacketsToItsRoutesMtuWhereTheRouteHasOne()
    {
        final PipelineFixture plane = routeMtu(1200);

        assertThat(Verdict.toString(plane.sendOne(fromClient(80, 40001, SYN, 1200, DONT_FRAGMENT)).verdict()))
            .isEqualTo("transmit:1");
        assertFragNeeded(plane.sendOne(fromClient(80, 40002, SYN, 1201, DONT_FRAGMENT)), 0, 1200);
        final PipelineFixture.Result fragmented = plane.sendOne(fromClient(80, 40003, SYN, 1400, 0));
        assertThat(Verdict.inFragments(fragmented.verdict())).as("without DF: to leave in fragments").isTrue();
        assertThat(Verdict.fragmentMtu(fragmented.verdict())).as("fragments that fit the route").isEqualTo(1200);
        assertThat(Verdict.toString(plane.sendOne(fromClient(81, 40004, SYN, 1500, DONT_FRAGMENT)).verdict()))
            .as("the other server's route has none: the port's MTU").isEqualTo("transmit:1");
    }

    @Test
    void shouldHoldAnEstablishedConnectionToItsServersRouteMtu()
    {
        final PipelineFixture plane = routeMtu(1200);
        establishSending(plane, 1200);

        assertFragNeeded(plane.sendOne(fromClient(80, 40001, ACK, 1300, DONT_FRAGMENT)), 0, 1200);
    }

    @Test
    void shouldHoldNatRepliesToTheMtuOfTheRouteToTheirClient()
    {
        final PipelineFixture plane = clientRouteMtu();
        final IpAddress client = IpAddress.parse("198.51.100.7");
        open(plane, client, 40001);

        for (int i = 0; i < 3; i++)
        {
            assertThat(Verdict.toString(plane.sendOne(reply(client, 40001, 1200, DONT_FRAGMENT)).verdict()))
                .isEqualTo("transmit:0");
        }
        assertFragNeeded(plane.sendOne(reply(client, 40001, 1201, DONT_FRAGMENT)), 1, 1200);
        final PipelineFixture.Result fragmented = plane.sendOne(reply(client, 40001, 1400, 0));
        assertThat(Verdict.inFragments(fragmented.verdict())).as("without DF: to leave in fragments").isTrue();
        assertThat(Verdict.fragmentMtu(fragmented.verdict())).isEqualTo(1200);

        final IpAddress other = IpAddress.parse("198.51.100.200");
        open(plane, other, 40002);
        assertThat(Verdict.toString(plane.sendOne(reply(other, 40002, 1500, DONT_FRAGMENT)).verdict()))
            .as("the longer route, without an MTU, holds this client: the port's").isEqualTo("transmit:0");
    }

    @Test
    void shouldNotLetARouteMtuAboveThePortsRaiseIt()
    {
        final PipelineFixture plane = routeMtu(9000);

        assertFragNeeded(plane.sendOne(fromClient(80, 40001, SYN, 1501, DONT_FRAGMENT)), 0, 1500);
    }

    @Test
    void shouldHoldADirectRoutedPacketToTheServersPortMtuToo()
    {
        final PipelineFixture dr = twoArm(1500, 1000);

        assertThat(Verdict.toString(dr.sendOne(fromClient(81, 40001, SYN, 1000, DONT_FRAGMENT)).verdict()))
            .isEqualTo("transmit:1");
        assertFragNeeded(dr.sendOne(fromClient(81, 40002, SYN, 1400, DONT_FRAGMENT)), 0, 1000);
    }

    @Test
    void shouldAnswerAnEstablishedConnectionsPacketThatOutgrowsTheServersPort()
    {
        final PipelineFixture nat = twoArm(1500, 1000);
        establishSending(nat, 1000);

        assertFragNeeded(nat.sendOne(fromClient(80, 40001, ACK, 1500, DONT_FRAGMENT)), 0, 1000);
    }

    @Test
    void shouldAnswerAClientsPacketTooBigForItsServerFromTheVirtualAddress()
    {
        // IPVS checks the MTU while the packet's route is still the local one to the VIP (__ip_vs_get_out_rt), and
        // __icmp_send answers from the destination of a packet whose route is local (RTCF_LOCAL).
        final PipelineFixture plane = twoArm(1500, 1000);
        establishSending(plane, 1000);

        final PipelineFixture.Result established = plane.sendOne(fromClient(80, 40001, ACK, 1500, DONT_FRAGMENT));
        assertFragNeeded(established, 0, 1000);
        assertThat(source(established)).as("from the VIP, to the client").containsExactly(10, 0, 0, 100);
        assertThat(destination(established)).containsExactly(198, 51, 100, 7);
        final PipelineFixture.Result opening = plane.sendOne(fromClient(81, 40002, SYN, 1400, DONT_FRAGMENT));
        assertFragNeeded(opening, 0, 1000);
        assertThat(source(opening)).as("direct routing's too").containsExactly(10, 0, 0, 100);
    }

    @Test
    void shouldAnswerANatServerWhoseReplyOutgrowsTheClientsPort()
    {
        final PipelineFixture nat = twoArm(1000, 1500);
        nat.sendOne(fromClient(80, 40001, SYN, IP_AND_TCP, DONT_FRAGMENT));
        nat.ingressPort = 1;
        nat.sendOne(ipv4(SERVER_SIDE_MAC, NAT_SERVER_MAC, NAT_SERVER, CLIENT, 64,
            Segment.tcp(80, 40001, SYN | ACK, 0), DONT_FRAGMENT, 1));
        nat.ingressPort = 0;
        nat.sendOne(fromClient(80, 40001, ACK, IP_AND_TCP, DONT_FRAGMENT));
        nat.ingressPort = 1;
        for (int i = 0; i < 3; i++)
        {
            assertThat(Verdict.toString(nat.sendOne(ipv4(SERVER_SIDE_MAC, NAT_SERVER_MAC, NAT_SERVER, CLIENT, 64,
                Segment.tcp(80, 40001, ACK, 1000 - IP_AND_TCP), DONT_FRAGMENT, 2 + i)).verdict()))
                .isEqualTo("transmit:0");
        }

        final PipelineFixture.Result answer = nat.sendOne(ipv4(SERVER_SIDE_MAC, NAT_SERVER_MAC, NAT_SERVER, CLIENT,
            64, Segment.tcp(80, 40001, ACK, 1500 - IP_AND_TCP), DONT_FRAGMENT, 9));
        assertFragNeeded(answer, 1, 1000);
        assertThat(source(answer)).as("forwarded, so from the server side's own address (ip_forward)")
            .containsExactly(192, 168, 1, 1);
        assertThat(answer.frame()).as("to the server, quoting its own packet")
            .satisfies(frame -> assertThat(new byte[] {frame[30], frame[31], frame[32], frame[33]})
                .containsExactly(192, 168, 1, 2));
    }
}
