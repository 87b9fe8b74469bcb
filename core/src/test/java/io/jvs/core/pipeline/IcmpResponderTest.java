package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ICMP errors jvs answers with (port-unreachable for a connection no server can take, as the kernel's
 * {@code ip_vs_leave}; time-exceeded; frag-needed and packet-too-big): their headers, the quote's limit
 * (RFC 1812: an IPv4 error fits 576 bytes; RFC 4443: an ICMPv6 error fits the 1280-byte minimum MTU), the
 * packets never answered
 * (RFC 1122 and RFC 4443: from an unspecified, multicast or broadcast address, to a multicast or broadcast
 * one, later fragments, ICMP errors), and the per-worker rate limit.
 */
class IcmpResponderTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress CLIENT6 = IpAddress.parse("2001:db8:1::7");
    private static final IpAddress VIP6 = IpAddress.parse("2001:db8::100");
    private static final long CLIENT_MAC = 0x02_00_00_00_77_77L;

    /** Services with no server: every new connection is answered with port unreachable. */
    private static PipelineFixture empty(final int perSecond)
    {
        final PipelineFixture fixture = new PipelineFixture().rules("-A -u 10.0.0.100:53 -s rr",
            "-A -u [2001:db8::100]:53 -s rr");
        fixture.publisher = new DataPlanePublisher(fixture.plane());
        fixture.pipeline = new Pipeline(fixture.publisher, 0, 4096, 4096, 64, 256, perSecond);
        return fixture;
    }

    private static byte[] query(final IpAddress from, final IpAddress to, final int payload)
    {
        return frame(JVS_MAC, CLIENT_MAC, from, to, 64, Segment.udp(5353, 53, payload));
    }

    @Test
    void shouldAnswerFromTheVirtualAddressWithAnIcmpHeaderAndTheQuote()
    {
        final PipelineFixture fixture = empty(1000);
        final byte[] query = query(CLIENT, VIP, 12);
        final PipelineFixture.Result out = fixture.sendOne(query);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] answer = out.frame();
        assertThat(mac(answer, 0)).as("back to the sender").isEqualTo(CLIENT_MAC);
        assertThat(mac(answer, 6)).isEqualTo(JVS_MAC);
        assertThat(u16(answer, 12)).isEqualTo(0x0800);
        assertThat(answer[14]).isEqualTo((byte)0x45);
        assertThat(answer[15]).as("internetwork control").isEqualTo((byte)0xC0);
        final int quote = query.length - 14;
        assertThat(u16(answer, 16)).isEqualTo(20 + 8 + quote);
        assertThat(u16(answer, 20)).as("not a fragment").isZero();
        assertThat(answer[22]).isEqualTo((byte)64);
        assertThat(answer[23]).isEqualTo((byte)1);
        assertThat(i32(answer, 26)).isEqualTo(VIP.v4());
        assertThat(i32(answer, 30)).isEqualTo(CLIENT.v4());
        assertThat(answer[34]).isEqualTo((byte)3);
        assertThat(answer[35]).isEqualTo((byte)3);
        assertThat(i32(answer, 38)).as("unused").isZero();
        assertThat(Arrays.copyOfRange(answer, 42, answer.length))
            .isEqualTo(Arrays.copyOfRange(query, 14, query.length));
        assertThat(answer).hasSize(14 + 20 + 8 + quote);
        assertThat(checksumsValidV4(answer)).isTrue();
        assertThat(fixture.pipeline.counters().icmpSent()).isEqualTo(1);
        assertThat(fixture.pipeline.counters().dropped(DropReason.NO_SERVER)).isEqualTo(1);
        // Each answer has an identification of its own.
        final byte[] second = fixture.sendOne(query(CLIENT, VIP, 12)).frame();
        assertThat(u16(second, 18)).isNotEqualTo(u16(answer, 18));
    }

    @Test
    void shouldQuoteAtMostWhatFits576Bytes()
    {
        final PipelineFixture fixture = empty(1000);
        final byte[] query = query(CLIENT, VIP, 1000);
        final byte[] answer = fixture.sendOne(query).frame();
        assertThat(u16(answer, 16)).isEqualTo(576);
        assertThat(answer).hasSize(14 + 576);
        assertThat(Arrays.copyOfRange(answer, 42, answer.length)).isEqualTo(Arrays.copyOfRange(query, 14, 14 + 548));
        assertThat(checksumsValidV4(answer)).isTrue();
    }

    @Test
    void shouldAnswerIpv6WithinTheMinimumMtu()
    {
        final PipelineFixture fixture = empty(1000);
        final byte[] small = query(CLIENT6, VIP6, 12);
        final byte[] answer = fixture.sendOne(small).frame();
        assertThat(mac(answer, 0)).isEqualTo(CLIENT_MAC);
        assertThat(u16(answer, 12)).isEqualTo(0x86DD);
        assertThat(answer[14] >>> 4).isEqualTo(6);
        assertThat(u16(answer, 18)).as("payload length").isEqualTo(8 + small.length - 14);
        assertThat(answer[20]).as("ICMPv6").isEqualTo((byte)58);
        assertThat(answer[21]).as("hop limit").isEqualTo((byte)64);
        assertThat(Arrays.copyOfRange(answer, 22, 38)).isEqualTo(Arrays.copyOfRange(small, 38, 54));
        assertThat(Arrays.copyOfRange(answer, 38, 54)).isEqualTo(Arrays.copyOfRange(small, 22, 38));
        assertThat(answer[54]).as("destination unreachable").isEqualTo((byte)1);
        assertThat(answer[55]).as("port unreachable").isEqualTo((byte)4);
        assertThat(Arrays.copyOfRange(answer, 62, answer.length))
            .isEqualTo(Arrays.copyOfRange(small, 14, small.length));
        assertThat(checksumsValidV6(answer)).isTrue();

        final byte[] large = query(CLIENT6, VIP6, 1400);
        final byte[] clipped = fixture.sendOne(large).frame();
        assertThat(clipped).hasSize(14 + 1280);
        assertThat(u16(clipped, 18)).isEqualTo(1280 - 40);
        assertThat(checksumsValidV6(clipped)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "224.0.0.5", "239.255.255.255", "255.255.255.255"})
    void shouldNeverAnswerAPacketFromAnUnspecifiedMulticastOrBroadcastAddress(final String source)
    {
        final PipelineFixture fixture = empty(1000);
        assertThat(fixture.sendOne(query(IpAddress.parse(source), VIP, 12)).verdict())
            .isEqualTo(Verdict.drop(DropReason.NO_SERVER));
        assertThat(fixture.pipeline.counters().icmpSent()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"::", "ff02::1", "ff05::1:3"})
    void shouldNeverAnswerAnIpv6PacketFromAnUnspecifiedOrMulticastAddress(final String source)
    {
        final PipelineFixture fixture = empty(1000);
        assertThat(fixture.sendOne(query(IpAddress.parse(source), VIP6, 12)).verdict())
            .isEqualTo(Verdict.drop(DropReason.NO_SERVER));
        assertThat(fixture.pipeline.counters().icmpSent()).isZero();
    }

    @Test
    void shouldNeverAnswerWhenRepliesAreOff()
    {
        final PipelineFixture fixture = empty(0);
        assertThat(fixture.sendOne(query(CLIENT, VIP, 12)).verdict()).isEqualTo(Verdict.drop(DropReason.NO_SERVER));
        assertThat(fixture.pipeline.counters().icmpSent()).isZero();
    }

    @Test
    void shouldAnswerABurstOfATenthOfTheRateThenOneAnswerPerInterval()
    {
        // 20 a second: a burst of 2 tokens, one more every 50 ms.
        final PipelineFixture fixture = empty(20);
        final String[] verdicts = new String[4];
        for (int i = 0; i < 4; i++)
        {
            verdicts[i] = Verdict.toString(fixture.sendOne(query(CLIENT, VIP, 12)).verdict());
        }
        assertThat(verdicts).containsExactly("transmit:0", "transmit:0", "drop:no-server", "drop:no-server");
        assertThat(fixture.pipeline.counters().icmpRateLimited()).isEqualTo(2);
        fixture.nowNs += 49_999_999L;
        assertThat(Verdict.toString(fixture.sendOne(query(CLIENT, VIP, 12)).verdict())).isEqualTo("drop:no-server");
        fixture.nowNs += 1;
        assertThat(Verdict.toString(fixture.sendOne(query(CLIENT, VIP, 12)).verdict())).isEqualTo("transmit:0");
        assertThat(Verdict.toString(fixture.sendOne(query(CLIENT, VIP, 12)).verdict())).isEqualTo("drop:no-server");
        // A long pause refills the burst, no more.
        fixture.nowNs += 10_000_000_000L;
        for (int i = 0; i < 4; i++)
        {
            verdicts[i] = Verdict.toString(fixture.sendOne(query(CLIENT, VIP, 12)).verdict());
        }
        assertThat(verdicts).containsExactly("transmit:0", "transmit:0", "drop:no-server", "drop:no-server");
        assertThat(fixture.pipeline.counters().icmpSent()).isEqualTo(5);
    }
}
