package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * IPv6 through the pipeline: IPv6-in-IPv6 tunnels, packet-too-big, fragments and hop limits.
 */
class PipelineIpv6Test
{
    private static final IpAddress CLIENT = IpAddress.parse("2001:db8:ffff::7");
    private static final IpAddress VIP = IpAddress.parse("2001:db8::100");
    private static final IpAddress SERVER = IpAddress.parse("2001:db8:1::2");
    private static final long SERVER_MAC = 0x02_00_00_00_01_02L;

    private static PipelineFixture fixture(final String method)
    {
        return new PipelineFixture()
            .rules("-A -u [2001:db8::100]:53 -s rr", "-a -u [2001:db8::100]:53 -r [2001:db8:1::2]:53 " + method,
                "-A -t [2001:db8::100]:80 -s rr", "-a -t [2001:db8::100]:80 -r [2001:db8:1::2]:80 " + method)
            .neighbour("2001:db8:1::2", SERVER_MAC)
            .start();
    }

    @Test
    void shouldTunnelIpv6InIpv6WhichDecapsulatesToTheOriginal()
    {
        final PipelineFixture tun = fixture("-i");
        final byte[] request = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(4000, 53, 30));
        final PipelineFixture.Result out = tun.sendOne(request);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] frame = out.frame();
        assertThat(frame).hasSize(request.length + 40);
        assertThat(mac(frame, 0)).isEqualTo(SERVER_MAC);
        assertThat(u16(frame, 12)).isEqualTo(0x86DD);
        assertThat(frame[14] >> 4).isEqualTo(6);
        assertThat(u16(frame, 18)).as("outer payload length").isEqualTo(request.length - 14);
        assertThat(frame[20]).as("next header: IPv6").isEqualTo((byte)41);
        assertThat(frame[21]).as("outer hop limit").isEqualTo((byte)63);
        assertThat(Arrays.copyOfRange(frame, 22, 38)).isEqualTo(bytes(IpAddress.parse("2001:db8::1")));
        assertThat(Arrays.copyOfRange(frame, 38, 54)).isEqualTo(bytes(SERVER));
        final byte[] expected = frame(0, 0, CLIENT, VIP, 63, Segment.udp(4000, 53, 30));
        assertThat(Arrays.copyOfRange(frame, 54, frame.length)).isEqualTo(Arrays.copyOfRange(expected, 14, expected.length));
    }

    @Test
    void shouldAnswerPacketTooBigWhenTheTunnelCannotCarryThePacket()
    {
        final PipelineFixture tun = fixture("-i");
        final byte[] big = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(4000, 53, 1500 - 48));
        final PipelineFixture.Result out = tun.sendOne(big);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] answer = out.frame();
        assertThat(answer[20]).as("ICMPv6").isEqualTo((byte)58);
        assertThat(answer[54]).as("packet too big").isEqualTo((byte)2);
        assertThat(i32(answer, 58)).as("MTU less the outer header").isEqualTo(1460);
        assertThat(Arrays.copyOfRange(answer, 22, 38)).as("from the VIP: icmp6_send's local destination")
            .isEqualTo(bytes(VIP));
        assertThat(Arrays.copyOfRange(answer, 38, 54)).as("to the client").isEqualTo(bytes(CLIENT));
        assertThat(checksumsValidV6(answer)).isTrue();
        assertThat(answer.length).isLessThanOrEqualTo(14 + 1280);
        assertThat(tun.pipeline.counters().dropped(DropReason.MTU_EXCEEDED)).isEqualTo(1);
    }

    @Test
    void laterIpv6FragmentsShouldFollowTheirFirst()
    {
        final PipelineFixture nat = fixture("-m");
        final byte[] first = ipv6Fragment(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 0, true, 77, udpBytes(4000, 53, 40));
        final byte[] later = ipv6Fragment(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 6, false, 77, payload(60));
        final byte[] orphan = ipv6Fragment(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 6, false, 78, payload(60));
        final PipelineFixture.Result[] results = nat.send(first, later, orphan);
        assertThat(Verdict.toString(results[0].verdict())).isEqualTo("transmit:0");
        assertThat(Verdict.toString(results[1].verdict())).isEqualTo("transmit:0");
        assertThat(Arrays.copyOfRange(results[1].frame(), 38, 54)).as("rewritten destination").isEqualTo(bytes(SERVER));
        assertThat(Arrays.copyOfRange(results[1].frame(), 62, 122)).as("payload untouched").isEqualTo(payload(60));
        assertThat(Verdict.toString(results[2].verdict())).isEqualTo("drop:fragment-orphan");
    }

    @Test
    void shouldAnswerTimeExceededWhenTheHopLimitRunsOut()
    {
        final PipelineFixture nat = fixture("-m");
        final PipelineFixture.Result out = nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 1,
            Segment.tcp(40000, 80, SYN, 0)));
        assertThat(out.frame()[54]).isEqualTo((byte)3);
        assertThat(checksumsValidV6(out.frame())).isTrue();
        assertThat(nat.pipeline.connectionsV6().size()).isZero();
    }

    @Test
    void shouldPassAReplyFromADirectRoutingServerUntouched()
    {
        final PipelineFixture dr = fixture("-g");
        dr.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        // A DR server answers from the VIP; should such a frame reach jvs it is not NAT's to rewrite.
        final byte[] reply = frame(JVS_MAC, SERVER_MAC, SERVER, CLIENT, 64, Segment.tcp(80, 40000, SYN | ACK, 0));
        assertThat(dr.sendOne(reply).verdict()).isEqualTo(Verdict.pass());
    }

    private static byte[] bytes(final IpAddress address)
    {
        return java.nio.ByteBuffer.allocate(16).putLong(address.high()).putLong(address.low()).array();
    }
}
