package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * schedule_icmp: an ICMP error from the client's side about a reply of no connection jvs knows is scheduled as the
 * connection's first packet would be and sent to the server chosen (ip_vs_in_icmp with ip_vs_try_to_schedule), the
 * case of a director behind ECMP that receives the error for a connection another director carries.
 */
class PipelineScheduleIcmpTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress ROUTER = IpAddress.parse("203.0.113.1");
    private static final IpAddress SERVER_A = IpAddress.parse("192.168.1.2");
    private static final long MAC_A = 0x02_00_00_00_01_02L;
    private static final long MAC_B = 0x02_00_00_00_01_03L;
    private static final long MAC_C = 0x02_00_00_00_01_04L;

    private static PipelineFixture fixture(final boolean scheduleIcmp, final String... rules)
    {
        final PipelineFixture fixture = new PipelineFixture().rules(rules)
            .neighbour("192.168.1.2", MAC_A)
            .neighbour("192.168.1.3", MAC_B)
            .neighbour("192.168.1.4", MAC_C)
            .neighbour("2001:db8:1::2", MAC_A);
        final DataPlaneSettings d = DataPlaneSettings.defaults();
        fixture.settings = new DataPlaneSettings(d.passUnmatched(), d.allowIpOptions(), d.allowFragments(),
            d.expireNodestConn(), d.expireQuiescentTemplate(), d.sloppyTcp(), d.connReuse(), d.activeEstablishedOnly(),
            d.icmpRepliesPerSecond(), d.clampMss(), d.sweepSlotsPerBurst(), d.answerVipEcho(), d.pmtuDisc(),
            scheduleIcmp);
        return fixture.start();
    }

    private static PipelineFixture nat(final boolean scheduleIcmp)
    {
        return fixture(scheduleIcmp, "-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m",
            "-a -t 10.0.0.100:80 -r 192.168.1.3:8080 -m", "-a -t 10.0.0.100:80 -r 192.168.1.4:8080 -m");
    }

    /** A reply of the virtual service to a client, as another director or a DR server sent it. */
    private static byte[] reply(final IpAddress client, final int virtualPort)
    {
        return frame(ROUTER_MAC, JVS_MAC, VIP, client, 63, Segment.tcp(virtualPort, 40000, ACK, 0));
    }

    /** A router's fragmentation-needed about a packet, to the packet's source. */
    private static byte[] fragmentationNeeded(final byte[] packet, final IpAddress to)
    {
        return icmpErrorV4(JVS_MAC, ROUTER_MAC, ROUTER, to, 3, 4, packet);
    }

    private static byte[] clientAck()
    {
        return frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, ACK, 0));
    }

    /** Active and inactive connections of all the servers together. */
    private static String counts(final PipelineFixture fixture)
    {
        int active = 0;
        int inactive = 0;
        for (final RealServer real : fixture.table.allServers())
        {
            active += real.activeConnections();
            inactive += real.inactiveConnections();
        }
        return active + "/" + inactive;
    }

    @Test
    void shouldLeaveAnErrorAboutNoConnectionToTheHostByDefault()
    {
        final PipelineFixture nat = nat(false);
        assertThat(nat.sendOne(fragmentationNeeded(reply(CLIENT, 80), VIP)).verdict()).isEqualTo(Verdict.pass());
        assertThat(nat.pipeline.counters().connections()).isZero();
    }

    @Test
    void shouldScheduleAnErrorAboutAReplyAndSendItToTheServerChosenRewrittenForNat()
    {
        final PipelineFixture nat = nat(true);
        final PipelineFixture.Result out = nat.sendOne(fragmentationNeeded(reply(CLIENT, 80), VIP));

        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] frame = out.frame();
        // rr's first server is the one added last, as ip_vs_add_dest puts each new server at the list's head.
        final IpAddress chosen = IpAddress.parse("192.168.1.4");
        assertThat(mac(frame, 0)).isEqualTo(MAC_C);
        assertThat(i32(frame, 30)).as("outer destination, the server").isEqualTo(chosen.v4());
        assertThat(i32(frame, 42 + 12)).as("quoted source, the server").isEqualTo(chosen.v4());
        assertThat(u16(frame, 42 + 20)).as("quoted source port, the server's").isEqualTo(8080);
        assertThat(i32(frame, 42 + 16)).as("quoted destination, the client").isEqualTo(CLIENT.v4());
        assertThat(checksumsValidV4(frame)).isTrue();
        assertThat(nat.pipeline.counters().connections()).isEqualTo(1);
        assertThat(nat.pipeline.openedServer(0)).as("the frame opened a connection").isPositive();
        assertThat(counts(nat)).as("a new entry, inactive as ip_vs_conn_new binds one").isEqualTo("0/1");

        // The client's next segment, no SYN, follows the entry to the same server and establishes it.
        final PipelineFixture.Result ack = nat.sendOne(clientAck());
        assertThat(Verdict.toString(ack.verdict())).isEqualTo("transmit:0");
        assertThat(mac(ack.frame(), 0)).isEqualTo(MAC_C);
        assertThat(u16(ack.frame(), 36)).isEqualTo(8080);
        assertThat(counts(nat)).isEqualTo("1/0");
        assertThat(nat.pipeline.counters().connections()).isEqualTo(1);
    }

    @Test
    void shouldGiveTheEntryAnErrorMadeThreeSecondsToLive()
    {
        final PipelineFixture kept = nat(true);
        kept.sendOne(fragmentationNeeded(reply(CLIENT, 80), VIP));
        kept.nowNs += 2_900_000_000L;
        assertThat(Verdict.toString(kept.sendOne(clientAck()).verdict())).isEqualTo("transmit:0");

        final PipelineFixture expired = nat(true);
        expired.sendOne(fragmentationNeeded(reply(CLIENT, 80), VIP));
        expired.nowNs += 3_100_000_000L;
        // No entry, and a segment without SYN opens none: the host's.
        assertThat(expired.sendOne(clientAck()).verdict()).isEqualTo(Verdict.pass());
        assertThat(counts(expired)).isEqualTo("0/0");
    }

    @Test
    void shouldSendTheErrorToTheServerAnotherDirectorChoseForTheClientWithSourceHashing()
    {
        final String[] rules = {"-A -t 10.0.0.100:80 -s sh", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -g",
            "-a -t 10.0.0.100:80 -r 192.168.1.3:80 -g", "-a -t 10.0.0.100:80 -r 192.168.1.4:80 -g"};
        final PipelineFixture carrying = fixture(true, rules);
        final PipelineFixture other = fixture(true, rules);
        final java.util.Set<Long> servers = new java.util.HashSet<>();
        for (int client = 1; client <= 40; client++)
        {
            final IpAddress address = IpAddress.parse("198.51.100." + client);
            final byte[] syn = frame(JVS_MAC, ROUTER_MAC, address, VIP, 64, Segment.tcp(40000, 80, SYN, 0));
            final long chosen = mac(carrying.sendOne(syn).frame(), 0);
            final PipelineFixture.Result error = other.sendOne(fragmentationNeeded(reply(address, 80), VIP));
            assertThat(Verdict.toString(error.verdict())).isEqualTo("transmit:0");
            assertThat(mac(error.frame(), 0)).as("client %s", address).isEqualTo(chosen);
            assertThat(i32(error.frame(), 30)).as("DR leaves the destination").isEqualTo(VIP.v4());
            servers.add(chosen);
        }
        assertThat(servers).as("the clients spread over the servers").hasSize(3);
    }

    @Test
    void shouldLeaveToTheHostAnErrorWhoseQuoteNamesNoService()
    {
        final PipelineFixture nat = nat(true);
        assertThat(nat.sendOne(fragmentationNeeded(reply(CLIENT, 81), VIP)).verdict()).isEqualTo(Verdict.pass());
        assertThat(nat.pipeline.counters().connections()).isZero();
    }

    @Test
    void shouldDropWithoutAnswerAnErrorNoServerCanTake()
    {
        final PipelineFixture nat = fixture(true, "-A -t 10.0.0.100:80 -s wlc",
            "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m -w 0");
        assertThat(nat.sendOne(fragmentationNeeded(reply(CLIENT, 80), VIP)).verdict())
            .isEqualTo(Verdict.drop(DropReason.NO_SERVER));
        assertThat(nat.pipeline.openedServer(0)).isNegative();
        assertThat(nat.pipeline.counters().connections()).isZero();
    }

    @Test
    void shouldDropAnErrorWithNoTtlLeftBeforeSchedulingIt()
    {
        final PipelineFixture nat = nat(true);
        final byte[] error = fragmentationNeeded(reply(CLIENT, 80), VIP);
        error[22] = 1;
        error[24] = 0;
        error[25] = 0;
        final int sum = checksum(error, 14, 20, 0);
        error[24] = (byte)(sum >>> 8);
        error[25] = (byte)sum;
        assertThat(nat.sendOne(error).verdict()).isEqualTo(Verdict.drop(DropReason.TTL_EXPIRED));
        assertThat(nat.pipeline.counters().connections()).isZero();
    }

    @Test
    void shouldScheduleAnErrorAboutAOnePacketServiceWithoutAnEntry()
    {
        final PipelineFixture ops = fixture(true, "-A -u 10.0.0.100:53 -s rr -o",
            "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -m");
        final byte[] reply = frame(ROUTER_MAC, JVS_MAC, VIP, CLIENT, 63, Segment.udp(53, 5353, 20));
        final PipelineFixture.Result out = ops.sendOne(fragmentationNeeded(reply, VIP));
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        assertThat(i32(out.frame(), 30)).isEqualTo(SERVER_A.v4());
        assertThat(ops.pipeline.counters().connections()).isEqualTo(1);
        assertThat(counts(ops)).as("no entry").isEqualTo("0/0");
    }

    @Test
    void shouldLookTheServiceUpByTheErrorsOwnFirewallMark()
    {
        final PipelineFixture marked = fixture(true, "-A -f 5 -s rr", "-a -f 5 -r 192.168.1.2 -m");
        assertThat(marked.sendOne(fragmentationNeeded(reply(CLIENT, 80), VIP)).verdict()).isEqualTo(Verdict.pass());
        marked.firewallMark = 5;
        final PipelineFixture.Result out = marked.sendOne(fragmentationNeeded(reply(CLIENT, 80), VIP));
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        assertThat(i32(out.frame(), 30)).isEqualTo(SERVER_A.v4());
        assertThat(u16(out.frame(), 42 + 20)).as("a port-0 server keeps the quoted port").isEqualTo(80);
    }

    @Test
    void shouldScheduleAnIcmpv6ErrorAboutAReply()
    {
        final IpAddress client = IpAddress.parse("2001:db8:2::7");
        final IpAddress vip = IpAddress.parse("2001:db8::100");
        final IpAddress server = IpAddress.parse("2001:db8:1::2");
        final PipelineFixture nat = fixture(true, "-A -t [2001:db8::100]:80 -s rr",
            "-a -t [2001:db8::100]:80 -r [2001:db8:1::2]:8080 -m");
        final byte[] reply = frame(ROUTER_MAC, JVS_MAC, vip, client, 63, Segment.tcp(80, 40000, ACK, 0));
        final PipelineFixture.Result out = nat.sendOne(icmpErrorV6(JVS_MAC, ROUTER_MAC,
            IpAddress.parse("2001:db8:ffff::1"), vip, reply));
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final ByteBuffer view = ByteBuffer.wrap(out.frame());
        assertThat(view.getLong(38)).as("outer destination").isEqualTo(server.high());
        assertThat(view.getLong(46)).isEqualTo(server.low());
        assertThat(u16(out.frame(), 62 + 40)).as("quoted source port").isEqualTo(8080);
        assertThat(checksumsValidV6(out.frame())).isTrue();
        assertThat(nat.pipeline.counters().connections()).isEqualTo(1);
    }
}
