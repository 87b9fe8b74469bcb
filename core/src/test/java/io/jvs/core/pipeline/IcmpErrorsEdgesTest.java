package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * ICMP errors about connections (ip_vs_in_icmp, ip_vs_out_icmp) at their edges: no TTL left, quotes too
 * short or of a protocol without ports, a quote with IP options, and the forwarding methods that do not
 * rewrite.
 */
class IcmpErrorsEdgesTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress ROUTER = IpAddress.parse("203.0.113.1");
    private static final IpAddress SERVER_A = IpAddress.parse("192.168.1.2");
    private static final long MAC_A = 0x02_00_00_00_01_02L;

    private static PipelineFixture fixture(final String method)
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2" +
                ("-m".equals(method) ? ":8080" : "") + " " + method)
            .neighbour("192.168.1.2", MAC_A)
            .start();
    }

    /** An ICMP error (type 3) with the given TTL quoting {@code quote} (IP header onwards), whole. */
    private static byte[] error(final IpAddress from, final IpAddress to, final int ttl, final long srcMac,
        final byte[] quote)
    {
        final ByteBuffer icmp = ByteBuffer.allocate(8 + quote.length);
        icmp.put((byte)3).put((byte)1).putShort((short)0).putInt(0).put(quote);
        icmp.putShort(2, (short)checksum(icmp.array(), 0, icmp.capacity(), 0));
        return rawIpv4(JVS_MAC, srcMac, from, to, ttl, 1, 0, 7, icmp.array());
    }

    /** The IP packet (from its header) of a frame, cut to {@code length} bytes. */
    private static byte[] ip(final byte[] frame, final int length)
    {
        return Arrays.copyOfRange(frame, 14, 14 + length);
    }

    private static byte[] replyToClient()
    {
        return frame(ROUTER_MAC, JVS_MAC, VIP, CLIENT, 63, Segment.tcp(80, 40000, SYN | ACK, 0));
    }

    @Test
    void shouldDropAnErrorTowardsTheServerWithNoTtlLeft()
    {
        final PipelineFixture nat = fixture("-m");
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        assertThat(nat.sendOne(error(ROUTER, VIP, 1, ROUTER_MAC, ip(replyToClient(), 28))).verdict())
            .isEqualTo(Verdict.drop(DropReason.TTL_EXPIRED));
        assertThat(Verdict.toString(nat.sendOne(error(ROUTER, VIP, 2, ROUTER_MAC, ip(replyToClient(), 28))).verdict()))
            .isEqualTo("transmit:0");
    }

    @Test
    void shouldDropAnErrorTowardsTheClientWithNoTtlLeft()
    {
        final PipelineFixture nat = fixture("-m");
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        final byte[] request = frame(MAC_A, JVS_MAC, CLIENT, SERVER_A, 63, Segment.tcp(40000, 8080, SYN, 0));
        assertThat(nat.sendOne(error(SERVER_A, CLIENT, 1, MAC_A, ip(request, 28))).verdict())
            .isEqualTo(Verdict.drop(DropReason.TTL_EXPIRED));
        assertThat(Verdict.toString(nat.sendOne(error(SERVER_A, CLIENT, 2, MAC_A, ip(request, 28))).verdict()))
            .isEqualTo("transmit:0");
    }

    @Test
    void shouldPassToTheHostAnErrorWhoseQuoteHasNoPortsToMatch()
    {
        final PipelineFixture nat = fixture("-m");
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        final byte[] reply = replyToClient();
        // The IP header and the first 4 bytes of TCP (both ports) are enough; 3 bytes are not.
        assertThat(Verdict.toString(nat.sendOne(error(ROUTER, VIP, 64, ROUTER_MAC, ip(reply, 24))).verdict()))
            .isEqualTo("transmit:0");
        assertThat(nat.sendOne(error(ROUTER, VIP, 64, ROUTER_MAC, ip(reply, 23))).verdict()).isEqualTo(Verdict.pass());
        assertThat(nat.sendOne(error(ROUTER, VIP, 64, ROUTER_MAC, ip(reply, 19))).verdict()).isEqualTo(Verdict.pass());
        // A quoted ICMP packet, or one that is not IPv4, is not about a connection.
        final byte[] echo = ip(replyToClient(), 28);
        echo[9] = 1;
        assertThat(nat.sendOne(error(ROUTER, VIP, 64, ROUTER_MAC, echo)).verdict()).isEqualTo(Verdict.pass());
        final byte[] version = ip(replyToClient(), 28);
        version[0] = 0x65;
        assertThat(nat.sendOne(error(ROUTER, VIP, 64, ROUTER_MAC, version)).verdict()).isEqualTo(Verdict.pass());
        // A header length below 20, or beyond what is quoted.
        final byte[] shortHeader = ip(replyToClient(), 28);
        shortHeader[0] = 0x44;
        assertThat(nat.sendOne(error(ROUTER, VIP, 64, ROUTER_MAC, shortHeader)).verdict()).isEqualTo(Verdict.pass());
        final byte[] longHeader = ip(replyToClient(), 28);
        longHeader[0] = 0x48;
        assertThat(nat.sendOne(error(ROUTER, VIP, 64, ROUTER_MAC, longHeader)).verdict()).isEqualTo(Verdict.pass());
    }

    @Test
    void shouldFindThePortsOfAQuoteWithIpOptions()
    {
        final PipelineFixture nat = fixture("-m");
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        // The reply's IP header grown to 24 bytes (one NOP option word), then its TCP ports.
        final byte[] plain = ip(replyToClient(), 28);
        final ByteBuffer quote = ByteBuffer.allocate(32);
        quote.put(plain, 0, 20).putInt(0x0101_0101).put(plain, 20, 8);
        final byte[] withOptions = quote.array();
        withOptions[0] = 0x46;
        withOptions[10] = 0;
        withOptions[11] = 0;
        final int sum = checksum(withOptions, 0, 24, 0);
        withOptions[10] = (byte)(sum >>> 8);
        withOptions[11] = (byte)sum;
        final PipelineFixture.Result out = nat.sendOne(error(ROUTER, VIP, 64, ROUTER_MAC, withOptions));
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] frame = out.frame();
        assertThat(i32(frame, 42 + 12)).as("quoted source").isEqualTo(SERVER_A.v4());
        assertThat(u16(frame, 42 + 24)).as("quoted source port, after the options").isEqualTo(8080);
        assertThat(u16(frame, 42 + 26)).as("quoted destination port").isEqualTo(40000);
        assertThat(checksum(frame, 42, 24, 0)).as("quoted IP checksum").isZero();
        assertThat(checksumsValidV4(frame)).isTrue();
    }

    @Test
    void shouldRouteAnErrorTowardsADirectRoutedServerUnchangedAndLeaveItsRepliesErrorsToTheHost()
    {
        final PipelineFixture dr = fixture("-g");
        dr.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        final byte[] error = error(ROUTER, VIP, 64, ROUTER_MAC, ip(replyToClient(), 28));
        final PipelineFixture.Result out = dr.sendOne(error);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        assertThat(mac(out.frame(), 0)).isEqualTo(MAC_A);
        // The IP packet as it came, routed: the TTL down by one and the header checksum updated.
        final byte[] routed = Arrays.copyOfRange(error, 14, error.length);
        routed[8]--;
        routed[10] = 0;
        routed[11] = 0;
        final int sum = checksum(routed, 0, 20, 0);
        routed[10] = (byte)(sum >>> 8);
        routed[11] = (byte)sum;
        assertThat(Arrays.copyOfRange(out.frame(), 14, out.frame().length)).isEqualTo(routed);
        // An error from a DR server about its own reply never passes jvs on the way out; if it does, it is
        // the host's.
        final byte[] request = frame(MAC_A, JVS_MAC, CLIENT, VIP, 63, Segment.tcp(40000, 80, SYN, 0));
        assertThat(dr.sendOne(error(SERVER_A, CLIENT, 64, MAC_A, ip(request, 28))).verdict())
            .isEqualTo(Verdict.pass());
    }
}
