package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ICMPv6 errors (RFC 4443) about NAT connections, both ways: the quoted packet's server end rewritten to the
 * virtual one or back, and the ICMPv6 checksum, which covers the pseudo-header, recomputed.
 */
class IcmpErrorsIpv6Test
{
    private static final IpAddress CLIENT = IpAddress.parse("2001:db8:2::7");
    private static final IpAddress VIP = IpAddress.parse("2001:db8::100");
    private static final IpAddress SERVER = IpAddress.parse("2001:db8:1::2");
    private static final IpAddress ROUTER = IpAddress.parse("2001:db8:ffff::1");
    private static final long SERVER_MAC = 0x02_00_00_00_01_02L;

    private static PipelineFixture nat()
    {
        return new PipelineFixture()
            .rules("-A -t [2001:db8::100]:80 -s rr", "-a -t [2001:db8::100]:80 -r [2001:db8:1::2]:8080 -m")
            .neighbour("2001:db8:1::2", SERVER_MAC)
            .start();
    }

    @Test
    void shouldSendAnErrorAboutAReplyToTheServerWithItsQuoteRewritten()
    {
        final PipelineFixture nat = nat();
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        final byte[] reply = frame(ROUTER_MAC, JVS_MAC, VIP, CLIENT, 63, Segment.tcp(80, 40000, SYN | ACK, 0));
        final PipelineFixture.Result out = nat.sendOne(icmpErrorV6(JVS_MAC, ROUTER_MAC, ROUTER, VIP, reply));
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] frame = out.frame();
        final ByteBuffer view = ByteBuffer.wrap(frame);
        assertThat(mac(frame, 0)).isEqualTo(SERVER_MAC);
        assertThat(view.getLong(38)).as("outer destination").isEqualTo(SERVER.high());
        assertThat(view.getLong(46)).isEqualTo(SERVER.low());
        // The quote starts at 14 + 40 + 8 = 62: its source was VIP:80, now the server's.
        assertThat(view.getLong(62 + 8)).as("quoted source").isEqualTo(SERVER.high());
        assertThat(view.getLong(62 + 16)).isEqualTo(SERVER.low());
        assertThat(u16(frame, 62 + 40)).as("quoted source port").isEqualTo(8080);
        assertThat(u16(frame, 62 + 42)).as("quoted destination port").isEqualTo(40000);
        assertThat(Arrays.copyOfRange(frame, 62 + 24, 62 + 40)).as("quoted destination, the client")
            .isEqualTo(Arrays.copyOfRange(reply, 14 + 24, 14 + 40));
        assertThat(checksumsValidV6(frame)).isTrue();
    }

    @Test
    void shouldSendAnErrorFromTheServerToTheClientAsIfFromTheVirtualService()
    {
        final PipelineFixture nat = nat();
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        final byte[] request = frame(SERVER_MAC, JVS_MAC, CLIENT, SERVER, 63, Segment.tcp(40000, 8080, SYN, 0));
        final PipelineFixture.Result out = nat.sendOne(icmpErrorV6(JVS_MAC, SERVER_MAC, SERVER, CLIENT, request));
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] frame = out.frame();
        final ByteBuffer view = ByteBuffer.wrap(frame);
        assertThat(mac(frame, 0)).isEqualTo(ROUTER_MAC);
        assertThat(view.getLong(22)).as("outer source").isEqualTo(VIP.high());
        assertThat(view.getLong(30)).isEqualTo(VIP.low());
        assertThat(view.getLong(62 + 24)).as("quoted destination").isEqualTo(VIP.high());
        assertThat(view.getLong(62 + 32)).isEqualTo(VIP.low());
        assertThat(u16(frame, 62 + 42)).as("quoted destination port").isEqualTo(80);
        assertThat(u16(frame, 62 + 40)).as("quoted source port").isEqualTo(40000);
        assertThat(checksumsValidV6(frame)).isTrue();
    }

    @Test
    void shouldLeaveAnErrorWithAQuoteShorterThanAnIpv6HeaderToTheHost()
    {
        final PipelineFixture nat = nat();
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        final byte[] reply = frame(ROUTER_MAC, JVS_MAC, VIP, CLIENT, 63, Segment.tcp(80, 40000, SYN | ACK, 0));
        final byte[] cut = Arrays.copyOf(reply, 14 + 39);
        assertThat(nat.sendOne(icmpErrorV6(JVS_MAC, ROUTER_MAC, ROUTER, VIP, cut)).verdict()).isEqualTo(Verdict.pass());
        final byte[] notSix = reply.clone();
        notSix[14] = 0x40;
        assertThat(nat.sendOne(icmpErrorV6(JVS_MAC, ROUTER_MAC, ROUTER, VIP, notSix)).verdict())
            .isEqualTo(Verdict.pass());
    }
}
