package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * TUN (ip_vs_tunnel_xmit) at its edges: the outer header's ECN (RFC 6040: copied, but CE becomes ECT(0)),
 * a fresh identification per packet, the MTU exactly met and exceeded with and without DF, pmtu_disc off, ICMP
 * errors about tunnelled packets relayed to their clients, an IPv6 outer header, the MSS clamp on tunnelled SYNs,
 * and the frame grown into its headroom.
 */
class PipelineTunnelEdgesTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress SERVER = IpAddress.parse("192.168.1.2");
    private static final IpAddress SERVER6 = IpAddress.parse("2001:db8:1::2");
    private static final long SERVER_MAC = 0x02_00_00_00_01_02L;

    private static PipelineFixture tunnel(final boolean clampMss)
    {
        return tunnel(clampMss, true);
    }

    private static PipelineFixture tunnel(final boolean clampMss, final boolean pmtuDisc)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -i",
                "-A -t 10.0.0.100:443 -s rr", "-a -t 10.0.0.100:443 -r [2001:db8:1::2]:443 -i")
            .neighbour("192.168.1.2", SERVER_MAC)
            .neighbour("2001:db8:1::2", SERVER_MAC);
        final DataPlaneSettings d = DataPlaneSettings.defaults();
        fixture.settings = new DataPlaneSettings(d.passUnmatched(), d.allowIpOptions(), d.allowFragments(),
            d.expireNodestConn(), d.expireQuiescentTemplate(), d.sloppyTcp(), d.connReuse(),
            d.activeEstablishedOnly(), d.icmpRepliesPerSecond(), clampMss, d.sweepSlotsPerBurst(),
            d.answerVipEcho(), pmtuDisc, d.scheduleIcmp());
        return fixture.start();
    }

    /** Sets an IPv4 frame's TOS byte, keeping its header checksum right. */
    private static byte[] withTos(final byte[] frame, final int tos)
    {
        frame[15] = (byte)tos;
        return withOuterChecksum(frame);
    }

    private static byte[] syn(final int port, final int payload)
    {
        return frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000 + payload, port, SYN, payload));
    }

    @Test
    void shouldCopyTheTosButTurnCongestionExperiencedIntoEct0()
    {
        final PipelineFixture tun = tunnel(false);
        final int[][] cases = {{0xB8, 0xB8}, {0xB9, 0xB9}, {0xBA, 0xBA}, {0xBB, 0xBA}, {0x03, 0x02}, {0x00, 0x00}};
        for (int i = 0; i < cases.length; i++)
        {
            final byte[] out = tun.sendOne(withTos(syn(80, i), cases[i][0])).frame();
            assertThat(out[15] & 0xFF).as("inner TOS %02x", cases[i][0]).isEqualTo(cases[i][1]);
            assertThat(out[34 + 1] & 0xFF).as("inner TOS kept").isEqualTo(cases[i][0]);
            assertThat(checksum(out, 14, 20, 0)).isZero();
        }
    }

    @Test
    void shouldGiveEachTunnelledPacketItsOwnIdentification()
    {
        final PipelineFixture tun = tunnel(false);
        final int first = u16(tun.sendOne(syn(80, 1)).frame(), 18);
        final int second = u16(tun.sendOne(syn(80, 2)).frame(), 18);
        assertThat(second).isEqualTo((first + 1) & 0xFFFF);
    }

    @Test
    void shouldTunnelAPacketThatFillsTheMtuExactlyAndRefuseOneByteMore()
    {
        final PipelineFixture tun = tunnel(false);
        // 20 + 20 + 1440 = 1480 bytes of IP: 1500 with the outer header.
        final byte[] fits = ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40001, 80, SYN, 1440), 0, 1);
        final PipelineFixture.Result sent = tun.sendOne(fits);
        assertThat(Verdict.toString(sent.verdict())).isEqualTo("transmit:0");
        assertThat(sent.frame()).hasSize(14 + 1500);
        assertThat(u16(sent.frame(), 20) & 0x4000).as("DF copied: not set").isZero();
        // Without DF, one byte more is tunnelled to leave in fragments (the outer header without DF), unanswered.
        final byte[] tooBig = ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40002, 80, SYN, 1441), 0, 2);
        final PipelineFixture.Result fragmented = tun.sendOne(tooBig);
        assertThat(Verdict.toString(fragmented.verdict())).isEqualTo("transmit:0:fragments");
        assertThat(fragmented.frame()).hasSize(14 + 1501);
        assertThat(u16(fragmented.frame(), 20) & 0x4000).as("the outer header without DF").isZero();
        assertThat(tun.pipeline.counters().icmpSent()).isZero();
        // With DF it is answered with the tunnel's MTU.
        final byte[] tooBigDf =
            ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40003, 80, SYN, 1441), 0x4000, 3);
        final byte[] answer = tun.sendOne(tooBigDf).frame();
        assertThat(answer[34]).isEqualTo((byte)3);
        assertThat(answer[35]).isEqualTo((byte)4);
        assertThat(u16(answer, 40)).isEqualTo(1480);
    }

    @Test
    void shouldTunnelWithoutDfAndFragmentWhatDoesNotFitWithPmtuDiscOff()
    {
        final PipelineFixture tun = tunnel(false, false);
        // pmtu_disc 0: the outer header never has DF, and a packet with DF that does not fit the tunnel leaves in
        // fragments instead of being answered (ensure_mtu_is_adequate skips the check for a tunnel).
        final byte[] fitsDf = ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40001, 80, SYN, 1440), 0x4000, 1);
        final PipelineFixture.Result sent = tun.sendOne(fitsDf);
        assertThat(Verdict.toString(sent.verdict())).isEqualTo("transmit:0");
        assertThat(u16(sent.frame(), 20) & 0x4000).as("the outer header without DF").isZero();
        assertThat(u16(sent.frame(), 34 + 6) & 0x4000).as("the inner DF kept").isEqualTo(0x4000);

        final byte[] tooBigDf =
            ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40002, 80, SYN, 1441), 0x4000, 2);
        final PipelineFixture.Result fragmented = tun.sendOne(tooBigDf);
        assertThat(Verdict.toString(fragmented.verdict())).isEqualTo("transmit:0:fragments");
        assertThat(Verdict.fragmentMtu(fragmented.verdict())).isEqualTo(1500);
        assertThat(u16(fragmented.frame(), 20) & 0x4000).as("the outer header without DF").isZero();
        assertThat(tun.pipeline.counters().icmpSent()).isZero();
    }

    @Test
    void shouldSendAnIpv6OuterPacketTooBigForThePathInFragmentsWhenItsIpv4PacketHasNoDf()
    {
        // ip_vs_tunnel_xmit_v6 sets ignore_df, so ip6_fragment splits an outer IPv6 packet over the MTU whose IPv4
        // packet may be fragmented; one whose packet has DF is answered with the MTU less the outer 40 bytes.
        final PipelineFixture tun = tunnel(false);
        final byte[] fits = ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40001, 443, SYN, 1420), 0, 1);
        final PipelineFixture.Result sent = tun.sendOne(fits);
        assertThat(Verdict.toString(sent.verdict())).isEqualTo("transmit:0");
        assertThat(sent.frame()).hasSize(14 + 1500);

        final byte[] tooBig = ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40002, 443, SYN, 1421), 0, 2);
        final PipelineFixture.Result fragmented = tun.sendOne(tooBig);
        assertThat(Verdict.toString(fragmented.verdict())).isEqualTo("transmit:0:fragments");
        assertThat(Verdict.fragmentMtu(fragmented.verdict())).isEqualTo(1500);
        assertThat(u16(fragmented.frame(), 12)).isEqualTo(0x86DD);
        assertThat(fragmented.frame()).hasSize(14 + 1501);
        assertThat(tun.pipeline.counters().icmpSent()).isZero();

        final byte[] tooBigDf =
            ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40003, 443, SYN, 1421), 0x4000, 3);
        final byte[] answer = tun.sendOne(tooBigDf).frame();
        assertThat(answer[34]).as("frag-needed").isEqualTo((byte)3);
        assertThat(answer[35]).isEqualTo((byte)4);
        assertThat(u16(answer, 40)).isEqualTo(1460);

        // pmtu_disc off: DF or not, it leaves in fragments (ensure_mtu_is_adequate skips the check for a tunnel).
        final PipelineFixture noPmtuDisc = tunnel(false, false);
        assertThat(Verdict.inFragments(noPmtuDisc.sendOne(tooBigDf).verdict())).as("pmtu_disc off").isTrue();
    }

    /** A router between jvs and the server (on port 0, as everything in this fixture). */
    private static final IpAddress PATH_ROUTER = IpAddress.parse("192.168.9.1");
    private static final IpAddress OWN = IpAddress.parse("10.0.0.1");

    /** An ICMP error a router on the tunnel's path sends to jvs's address about a frame jvs tunnelled. */
    private static byte[] errorAboutTunnelled(final IpAddress to, final byte[] tunnelled, final int type,
        final int code, final int rest, final int quoted)
    {
        final int length = Math.min(quoted, tunnelled.length - 14);
        final ByteBuffer icmp = ByteBuffer.allocate(8 + length);
        icmp.put((byte)type).put((byte)code).putShort((short)0).putInt(rest);
        icmp.put(tunnelled, 14, length);
        icmp.putShort(2, (short)checksum(icmp.array(), 0, icmp.capacity(), 0));
        return rawIpv4(JVS_MAC, SERVER_MAC, PATH_ROUTER, to, 64, 1, 0, 7, icmp.array());
    }

    @Test
    void shouldRelayAFragNeededAboutATunnelledPacketToItsClientLessTheOuterHeader()
    {
        final PipelineFixture tun = tunnel(false);
        final byte[] tunnelled = tun.sendOne(ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(40001, 80, SYN, 1400), 0x4000, 1)).frame();
        final byte[] innerAsSent = java.util.Arrays.copyOfRange(tunnelled, 34, tunnelled.length);

        // A router beyond jvs takes 1400 at most: the client hears 1380 from the virtual address, about its packet.
        final PipelineFixture.Result relayed = tun.sendOne(errorAboutTunnelled(OWN, tunnelled, 3, 4, 1400, 548));
        assertThat(Verdict.toString(relayed.verdict())).isEqualTo("transmit:0");
        final byte[] out = relayed.frame();
        assertThat(mac(out, 0)).as("to the client's gateway").isEqualTo(ROUTER_MAC);
        assertThat(i32(out, 26)).as("from the virtual address").isEqualTo(VIP.v4());
        assertThat(i32(out, 30)).as("to the client").isEqualTo(CLIENT.v4());
        assertThat(out[34]).isEqualTo((byte)3);
        assertThat(out[35]).isEqualTo((byte)4);
        assertThat(u16(out, 40)).as("the router's MTU less the outer header").isEqualTo(1380);
        // The router quoted 548 bytes of the tunnelled packet: the relay quotes what of them is the client's packet.
        assertThat(java.util.Arrays.equals(java.util.Arrays.copyOfRange(out, 42, out.length),
            java.util.Arrays.copyOf(innerAsSent, 548 - 20))).as("the client's packet, as tunnelled").isTrue();
        assertThat(checksumsValidV4(out)).isTrue();
        assertThat(checksum(out, 34, out.length - 34, 0)).as("ICMP checksum").isZero();

        // No MTU in the error (an old router), or one below min_pmtu: the kernel keeps 552 for the path.
        final byte[] again = tun.sendOne(ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(40002, 80, SYN, 1400), 0x4000, 2)).frame();
        assertThat(u16(tun.sendOne(errorAboutTunnelled(OWN, again, 3, 4, 0, 548)).frame(), 40)).isEqualTo(532);
        final byte[] third = tun.sendOne(ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(40003, 80, SYN, 1400), 0x4000, 3)).frame();
        assertThat(u16(tun.sendOne(errorAboutTunnelled(OWN, third, 3, 4, 300, 548)).frame(), 40)).isEqualTo(532);
    }

    @Test
    void shouldReportThePathMtuAFragNeededAboutATunnelledPacketTellsWhateverThePacketsDf()
    {
        final PipelineFixture tun = tunnel(false);
        final java.util.List<String> learnt = new java.util.ArrayList<>();
        final PathMtuReports.Sink sink = (server, mtu) -> learnt.add(IpAddress.ofV4(server) + " " + mtu);
        final byte[] withDf = tun.sendOne(ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(40001, 80, SYN, 1400), 0x4000, 1)).frame();
        tun.sendOne(errorAboutTunnelled(OWN, withDf, 3, 4, 1400, 548));
        final byte[] withoutDf = tun.sendOne(ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(40002, 80, SYN, 1400), 0, 2)).frame();
        tun.sendOne(errorAboutTunnelled(OWN, withoutDf, 3, 4, 1300, 548));
        // Below min_pmtu the kernel keeps 552; an MTU no less than the route's teaches nothing; nor does another error.
        tun.sendOne(errorAboutTunnelled(OWN, withDf, 3, 4, 300, 548));
        tun.sendOne(errorAboutTunnelled(OWN, withDf, 3, 4, 1500, 548));
        tun.sendOne(errorAboutTunnelled(OWN, withDf, 3, 1, 0, 548));

        assertThat(tun.pipeline.pathMtuReports().drain(sink)).isEqualTo(3);
        assertThat(learnt).containsExactly(SERVER + " 1400", SERVER + " 1300", SERVER + " 552");
        assertThat(tun.pipeline.pathMtuReports().pending()).isZero();
    }

    @Test
    void shouldAskForAClientWithoutANextHopWhenRelayingAnErrorAboutItsTunnelledPacket()
    {
        // The client on a link jvs has sent nothing to (a TUN box never sends to its clients): no neighbour yet.
        final PipelineFixture tun = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -i")
            .neighbour("192.168.1.2", SERVER_MAC);
        tun.topology.route(io.jvs.core.net.IpPrefix.parse("198.51.100.0/24"), 0, Topology.Route.ON_LINK);
        tun.start();
        final byte[] tunnelled = tun.sendOne(ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(40001, 80, SYN, 1400), 0x4000, 1)).frame();
        final byte[] error = errorAboutTunnelled(OWN, tunnelled, 3, 4, 1400, 548);
        final io.jvs.core.stats.TrafficStats stats = tun.pipeline.traffic();
        final int server = tun.publisher.current().slotOf(tun.table.allServers().stream()
            .filter(candidate -> candidate.address().equals(SERVER)).findFirst().orElseThrow());

        assertThat(tun.sendOne(error).verdict()).isEqualTo(
            Verdict.drop(io.jvs.core.packet.DropReason.NO_NEIGHBOUR));
        final java.util.List<String> wanted = new java.util.ArrayList<>();
        tun.pipeline.neighbourMisses().drain((v6, high, low) -> wanted.add(IpAddress.ofV4((int)low).toString()));
        assertThat(wanted).as("the kernel is asked for the client").containsExactly("198.51.100.7");
        final long outBefore = stats.server(server, io.jvs.core.stats.TrafficStatsDescriptor.OUT_PACKETS);
        assertThat(outBefore).as("counted before the next hop is looked for").isEqualTo(1);

        tun.neighbour("198.51.100.7", CLIENT_MAC).republish();
        final PipelineFixture.Result relayed = tun.sendOneAgain(error);
        assertThat(Verdict.kind(relayed.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(mac(relayed.frame(), 0)).isEqualTo(CLIENT_MAC);
        assertThat(stats.server(server, io.jvs.core.stats.TrafficStatsDescriptor.OUT_PACKETS)).as("once").isEqualTo(1);
    }

    @Test
    void shouldRelayOtherErrorsAboutATunnelledPacketAsTheyCame()
    {
        final PipelineFixture tun = tunnel(false);
        final byte[] tunnelled = tun.sendOne(syn(80, 10)).frame();

        final PipelineFixture.Result relayed = tun.sendOne(errorAboutTunnelled(OWN, tunnelled, 3, 1, 0, 48));
        assertThat(Verdict.toString(relayed.verdict())).isEqualTo("transmit:0");
        final byte[] out = relayed.frame();
        assertThat(out[34]).as("host unreachable").isEqualTo((byte)3);
        assertThat(out[35]).isEqualTo((byte)1);
        assertThat(out).as("the quote: the client's IP header and 8 bytes").hasSize(14 + 20 + 8 + 28);
        assertThat(i32(out, 42 + 12)).as("quoted source").isEqualTo(CLIENT.v4());
        assertThat(checksumsValidV4(out)).isTrue();
    }

    @Test
    void shouldLeaveToTheHostErrorsAboutTunnelledPacketsItCannotTieToAConnection()
    {
        final PipelineFixture tun = tunnel(false);
        final byte[] withoutDf = tun.sendOne(ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(40001, 80, SYN, 1400), 0, 1)).frame();
        assertThat(tun.sendOne(errorAboutTunnelled(OWN, withoutDf, 3, 4, 1400, 548)).verdict())
            .as("frag-needed about a packet without DF: the client does no discovery").isEqualTo(Verdict.pass());
        final byte[] tunnelled = tun.sendOne(syn(80, 11)).frame();
        assertThat(tun.sendOne(errorAboutTunnelled(OWN, tunnelled, 3, 1, 0, 28)).verdict())
            .as("a quote without the client's ports").isEqualTo(Verdict.pass());
        final byte[] foreign = tunnelled.clone();
        foreign[26 + 3] ^= 1;
        assertThat(tun.sendOne(errorAboutTunnelled(OWN, withOuterChecksum(foreign), 3, 1, 0, 48)).verdict())
            .as("a tunnel from another address").isEqualTo(Verdict.pass());
        final byte[] laterFragment = tunnelled.clone();
        laterFragment[21] = (byte)185;
        assertThat(tun.sendOne(errorAboutTunnelled(OWN, withOuterChecksum(laterFragment), 3, 1, 0, 48)).verdict())
            .as("about a later fragment of the outer packet").isEqualTo(Verdict.pass());
        // ip_vs_in_icmp takes only destination unreachable, source quench and time exceeded.
        assertThat(tun.sendOne(errorAboutTunnelled(OWN, tunnelled, 5, 1, 0x0A00_0009, 48)).verdict())
            .as("a redirect").isEqualTo(Verdict.pass());
        assertThat(tun.sendOne(errorAboutTunnelled(OWN, tunnelled, 12, 0, 0x0900_0000, 48)).verdict())
            .as("a parameter problem, whose pointer is into the outer header").isEqualTo(Verdict.pass());
        assertThat(tun.pipeline.counters().icmpSent()).as("nothing relayed").isZero();
    }

    /** Puts right the checksum of an untagged frame's (outer) IPv4 header. */
    private static byte[] withOuterChecksum(final byte[] frame)
    {
        frame[24] = 0;
        frame[25] = 0;
        final int sum = checksum(frame, 14, 20, 0);
        frame[24] = (byte)(sum >>> 8);
        frame[25] = (byte)sum;
        return frame;
    }

    @Test
    void shouldTunnelAnIpv6PacketToAnIpv4ServerWithoutDf()
    {
        // ip_vs_prepare_tunneled_skb gives the outer IPv4 header of an IPv6 packet no DF: it fits the tunnel
        // (packet-too-big otherwise), and a narrower path beyond fragments the outer packet instead of dropping it.
        final PipelineFixture tun = new PipelineFixture()
            .rules("-A -t [2001:db8:44::110]:80 -s rr", "-a -t [2001:db8:44::110]:80 -r 192.168.1.2:80 -i")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        final byte[] out = tun.sendOne(frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("2001:db8:9::7"),
            IpAddress.parse("2001:db8:44::110"), 64, Segment.tcp(40001, 80, SYN, 1000))).frame();
        assertThat(u16(out, 12)).isEqualTo(0x0800);
        assertThat(out[23]).as("IPv6 in IPv4").isEqualTo((byte)41);
        assertThat(u16(out, 20) & 0x4000).as("the outer header without DF").isZero();
        assertThat(checksum(out, 14, 20, 0)).isZero();
    }

    @Test
    void shouldWriteAnIpv6OuterHeaderForAnIpv6Server()
    {
        final PipelineFixture tun = tunnel(false);
        final byte[] request = withTos(syn(443, 20), 0xBB);
        final byte[] out = tun.sendOne(request).frame();
        assertThat(u16(out, 12)).isEqualTo(0x86DD);
        final int first = i32(out, 14);
        assertThat(first >>> 28).isEqualTo(6);
        assertThat((first >>> 20) & 0xFF).as("traffic class: CE as ECT(0)").isEqualTo(0xBA);
        assertThat(u16(out, 18)).as("payload length: the inner packet").isEqualTo(request.length - 14);
        assertThat(out[20]).as("next header: IPIP").isEqualTo((byte)4);
        assertThat(out[21]).as("hop limit: the inner TTL after its decrement").isEqualTo((byte)63);
        final ByteBuffer view = ByteBuffer.wrap(out);
        final IpAddress port = IpAddress.parse("2001:db8::1");
        assertThat(view.getLong(22)).as("source: the port's address").isEqualTo(port.high());
        assertThat(view.getLong(30)).isEqualTo(port.low());
        assertThat(view.getLong(38)).as("destination: the server").isEqualTo(SERVER6.high());
        assertThat(view.getLong(46)).isEqualTo(SERVER6.low());
        assertThat(out).hasSize(request.length + 40);
        assertThat(out[54 + 8]).as("inner TTL").isEqualTo((byte)63);
        assertThat(checksum(out, 54, 20, 0)).as("inner IP checksum").isZero();
    }

    @Test
    void shouldGrowTheFrameIntoItsHeadroom()
    {
        final PipelineFixture tun = tunnel(false);
        final byte[] request = syn(80, 10);
        final PipelineFixture.Result out = tun.sendOne(request);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        assertThat(tun.burst.headroom(0)).isEqualTo(PipelineFixture.HEADROOM - 20);
        assertThat(tun.burst.capacity(0)).isEqualTo(PipelineFixture.FRAME_SIZE + 20);
    }

    /** A SYN (or another segment) carrying one option, MSS, in a 24-byte TCP header. */
    private static byte[] withMss(final int flags, final int mss)
    {
        final ByteBuffer tcp = ByteBuffer.allocate(24);
        tcp.putShort((short)40100).putShort((short)80).putInt(1).putInt(0).put((byte)0x60).put((byte)flags)
            .putShort((short)65535).putShort((short)0).putShort((short)0)
            .put((byte)2).put((byte)4).putShort((short)mss);
        return rawIpv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, 6, 0x4000, 9, tcp.array());
    }

    @Test
    void shouldLowerTheMssOfATunnelledSynToFitTheTunnelWhenAsked()
    {
        // 1500 - 20 (outer) - 20 (inner IP) - 20 (TCP) = 1440.
        final byte[] clamped = tunnel(true).sendOne(withMss(SYN, 1460)).frame();
        assertThat(u16(clamped, 34 + 20 + 22)).isEqualTo(1440);
        assertThat(u16(tunnel(true).sendOne(withMss(SYN, 1400)).frame(), 34 + 20 + 22)).isEqualTo(1400);
        assertThat(u16(tunnel(false).sendOne(withMss(SYN, 1460)).frame(), 34 + 20 + 22)).isEqualTo(1460);
    }
}
