package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * How jvs rewrites packets for ipvsadm's three forwarding methods, the kernel's {@code ip_vs_nat_xmit},
 * {@code ip_vs_dr_xmit} and {@code ip_vs_tunnel_xmit}: NAT ({@code -m}) rewrites the destination and gives the
 * reply back the virtual address and port, direct routing ({@code -g}) changes only the MACs, the TTL and the
 * IP checksum, and tunnelling ({@code -i}) wraps the packet in IP-in-IP; and the ICMP errors jvs answers with
 * (port unreachable, time exceeded, fragmentation needed). Each is checked byte by byte against frames built
 * independently.
 */
class PipelineRewriteTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress SERVER = IpAddress.parse("192.168.1.2");
    private static final long SERVER_MAC = 0x02_00_00_00_01_02L;

    private PipelineFixture fixture(final String method, final String serverPort)
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-A -u 10.0.0.100:53 -s rr",
                "-a -t 10.0.0.100:80 -r 192.168.1.2:" + serverPort + " " + method,
                "-a -u 10.0.0.100:53 -r 192.168.1.2:53 " + method)
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
    }

    @Test
    void natShouldRewriteTheRequestAndRestoreTheClientsViewOfTheReply()
    {
        final PipelineFixture nat = fixture("-m", "8080");
        final byte[] request = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0));
        final PipelineFixture.Result in = nat.sendOne(request);
        assertThat(Verdict.toString(in.verdict())).isEqualTo("transmit:0");
        final byte[] expectedIn = frame(SERVER_MAC, JVS_MAC, CLIENT, SERVER, 63, Segment.tcp(40000, 8080, SYN, 0));
        assertThat(in.frame()).isEqualTo(expectedIn);
        assertThat(checksumsValidV4(in.frame())).isTrue();

        // The server answers the client; jvs restores the virtual address and port.
        final byte[] reply = frame(JVS_MAC, SERVER_MAC, SERVER, CLIENT, 64, Segment.tcp(8080, 40000, SYN | ACK, 10));
        final PipelineFixture.Result out = nat.sendOne(reply);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] asIfFromTheVip = frame(ROUTER_MAC, JVS_MAC, VIP, CLIENT, 63, Segment.tcp(80, 40000, SYN | ACK, 10));
        assertThat(out.frame()).isEqualTo(asIfFromTheVip);
        assertThat(checksumsValidV4(out.frame())).isTrue();
    }

    @Test
    void natShouldRewriteUdpOverIpv6BothWays()
    {
        final PipelineFixture nat = new PipelineFixture()
            .rules("-A -u [2001:db8::100]:53 -s rr", "-a -u [2001:db8::100]:53 -r [2001:db8:1::2]:5353 -m")
            .neighbour("2001:db8:1::2", SERVER_MAC)
            .start();
        final IpAddress client = IpAddress.parse("2001:db8:ffff::7");
        final IpAddress vip = IpAddress.parse("2001:db8::100");
        final IpAddress server = IpAddress.parse("2001:db8:1::2");
        final PipelineFixture.Result in = nat.sendOne(frame(JVS_MAC, ROUTER_MAC, client, vip, 64,
            Segment.udp(4000, 53, 33)));
        assertThat(in.frame()).isEqualTo(frame(SERVER_MAC, JVS_MAC, client, server, 63, Segment.udp(4000, 5353, 33)));
        assertThat(checksumsValidV6(in.frame())).isTrue();
        final PipelineFixture.Result out = nat.sendOne(frame(JVS_MAC, SERVER_MAC, server, client, 64,
            Segment.udp(5353, 4000, 90)));
        assertThat(out.frame()).isEqualTo(frame(ROUTER_MAC, JVS_MAC, vip, client, 63, Segment.udp(53, 4000, 90)));
        assertThat(checksumsValidV6(out.frame())).isTrue();
    }

    @Test
    void natShouldKeepAUdpChecksumOfZeroAtZero()
    {
        final PipelineFixture nat = fixture("-m", "80");
        final byte[] request = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(4000, 53, 12));
        request[14 + 20 + 6] = 0;
        request[14 + 20 + 7] = 0;
        final PipelineFixture.Result in = nat.sendOne(request);
        assertThat(u16(in.frame(), 14 + 20 + 6)).isZero();
        assertThat(checksumsValidV4(in.frame())).isTrue();
    }

    @Test
    void directRoutingShouldChangeOnlyTheMacsTheTtlAndTheIpChecksum()
    {
        final PipelineFixture dr = fixture("-g", "80");
        final byte[] request = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 20));
        final PipelineFixture.Result out = dr.sendOne(request);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final List<Integer> changed = new ArrayList<>();
        for (int i = 0; i < request.length; i++)
        {
            if (request[i] != out.frame()[i])
            {
                changed.add(i);
            }
        }
        // Destination MAC (0-5), source MAC (6-11), TTL (22) and the IP checksum (24-25) only.
        assertThat(changed).allMatch(i -> i < 12 || i == 22 || i == 24 || i == 25);
        assertThat(mac(out.frame(), 0)).isEqualTo(SERVER_MAC);
        assertThat(mac(out.frame(), 6)).isEqualTo(JVS_MAC);
        assertThat(out.frame()[22]).isEqualTo((byte)63);
        assertThat(checksumsValidV4(out.frame())).isTrue();
    }

    @Test
    void tunnelShouldEncapsulateThePacketWhichDecapsulatesToTheOriginal()
    {
        final PipelineFixture tun = fixture("-i", "80");
        final byte[] request = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 20));
        final PipelineFixture.Result out = tun.sendOne(request);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] frame = out.frame();
        assertThat(frame).hasSize(request.length + 20);
        assertThat(mac(frame, 0)).isEqualTo(SERVER_MAC);
        assertThat(u16(frame, 12)).isEqualTo(0x0800);
        // Outer header: IPIP from the port's address to the server, TTL of the inner after its decrement, DF copied.
        assertThat(frame[14]).isEqualTo((byte)0x45);
        assertThat(u16(frame, 16)).isEqualTo(request.length - 14 + 20);
        assertThat(u16(frame, 20) & 0x4000).isEqualTo(0x4000);
        assertThat(frame[22]).isEqualTo((byte)63);
        assertThat(frame[23]).isEqualTo((byte)4);
        assertThat(i32(frame, 26)).isEqualTo(IpAddress.parse("10.0.0.1").v4());
        assertThat(i32(frame, 30)).isEqualTo(SERVER.v4());
        assertThat(checksum(frame, 14, 20, 0)).isZero();
        // Inside: the original IP packet, TTL one less.
        final byte[] inner = Arrays.copyOfRange(frame, 34, frame.length);
        final byte[] expected = frame(0, 0, CLIENT, VIP, 63, Segment.tcp(40000, 80, SYN, 20));
        assertThat(inner).isEqualTo(Arrays.copyOfRange(expected, 14, expected.length));
    }

    @Test
    void tunnelShouldAnswerFragNeededWithTheReducedMtuWhenDontFragmentIsSet()
    {
        final PipelineFixture tun = fixture("-i", "80");
        final byte[] big = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 1500 - 40));
        final PipelineFixture.Result out = tun.sendOne(big);
        // The frame now carries the answer, back to the sender.
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] answer = out.frame();
        assertThat(mac(answer, 0)).isEqualTo(ROUTER_MAC);
        assertThat(answer[14 + 9]).isEqualTo((byte)1);
        assertThat(i32(answer, 14 + 16)).isEqualTo(CLIENT.v4());
        assertThat(answer[34]).isEqualTo((byte)3);
        assertThat(answer[35]).isEqualTo((byte)4);
        assertThat(u16(answer, 34 + 6)).isEqualTo(1480);
        assertThat(checksumsValidV4(answer)).isTrue();
        assertThat(tun.pipeline.counters().dropped(DropReason.MTU_EXCEEDED)).isEqualTo(1);
    }

    @Test
    void shouldAnswerPortUnreachableFromTheVirtualAddressWhenNoServerCanTakeTheConnection()
    {
        final PipelineFixture none = new PipelineFixture().rules("-A -t 10.0.0.100:80 -s rr").start();
        final byte[] syn = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0));
        final PipelineFixture.Result out = none.sendOne(syn);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] answer = out.frame();
        assertThat(i32(answer, 14 + 12)).isEqualTo(VIP.v4());
        assertThat(i32(answer, 14 + 16)).isEqualTo(CLIENT.v4());
        assertThat(answer[34]).isEqualTo((byte)3);
        assertThat(answer[35]).isEqualTo((byte)3);
        // It quotes the offending IP header and more.
        assertThat(Arrays.copyOfRange(answer, 42, 42 + 20)).isEqualTo(Arrays.copyOfRange(syn, 14, 34));
        assertThat(checksumsValidV4(answer)).isTrue();
        assertThat(none.pipeline.counters().dropped(DropReason.NO_SERVER)).isEqualTo(1);
    }

    @Test
    void shouldAnswerTimeExceededWhenTheTtlRunsOut()
    {
        final PipelineFixture nat = fixture("-m", "80");
        final PipelineFixture.Result out = nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 1,
            Segment.tcp(40000, 80, SYN, 0)));
        assertThat(out.frame()[34]).isEqualTo((byte)11);
        // From the virtual address, as IPVS's decrement_ttl answers (its packet's route is still the local one).
        assertThat(i32(out.frame(), 14 + 12)).isEqualTo(VIP.v4());
        assertThat(nat.pipeline.counters().dropped(DropReason.TTL_EXPIRED)).isEqualTo(1);
    }

    @Test
    void shouldPassWhatIsNoServiceOfOursUnlessToldToDropIt()
    {
        final PipelineFixture nat = fixture("-m", "80");
        final byte[] ssh = frame(JVS_MAC, ROUTER_MAC, CLIENT, IpAddress.parse("10.0.0.1"), 64,
            Segment.tcp(40000, 22, SYN, 0));
        assertThat(nat.sendOne(ssh).verdict()).isEqualTo(Verdict.pass());
        // A TCP segment for a service but of no known connection is the host's too.
        assertThat(nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40001, 80, ACK, 0))).verdict())
            .isEqualTo(Verdict.pass());
        nat.settings = new DataPlaneSettings(false, true, true, false, false, false, true, false, 1000, false, 64,
            false);
        nat.republish();
        assertThat(Verdict.toString(nat.sendOne(ssh).verdict())).isEqualTo("drop:no-service");
    }
}
