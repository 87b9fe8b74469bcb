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
 * Fragments follow their first fragment's server; ICMP errors about connections are passed on with
 * their quoted packet rewritten.
 */
class PipelineFragmentAndIcmpTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress SERVER_A = IpAddress.parse("192.168.1.2");
    private static final IpAddress SERVER_B = IpAddress.parse("192.168.1.3");
    private static final long MAC_A = 0x02_00_00_00_01_02L;
    private static final long MAC_B = 0x02_00_00_00_01_03L;

    private static PipelineFixture nat()
    {
        return new PipelineFixture()
            .rules("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.1.3:53 -m",
                "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -m",
                "-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m")
            .neighbour("192.168.1.2", MAC_A)
            .neighbour("192.168.1.3", MAC_B)
            .start();
    }

    @Test
    void laterFragmentsShouldFollowTheirFirstFragmentsServer()
    {
        final PipelineFixture nat = nat();
        // Two datagrams from two clients: rr sends them to A and B; their later fragments must follow.
        final IpAddress other = IpAddress.parse("198.51.100.8");
        final byte[] firstA = ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(4000, 53, 40), 0x2000, 0x100);
        final byte[] firstB = ipv4(JVS_MAC, ROUTER_MAC, other, VIP, 64, Segment.udp(4000, 53, 40), 0x2000, 0x200);
        final byte[] laterA = rawIpv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, UDP, 6, 0x100, payload(100));
        final byte[] laterB = rawIpv4(JVS_MAC, ROUTER_MAC, other, VIP, 64, UDP, 6, 0x200, payload(100));
        final PipelineFixture.Result[] results = nat.send(firstA, firstB, laterB, laterA);
        assertThat(mac(results[0].frame(), 0)).isEqualTo(MAC_A);
        assertThat(mac(results[1].frame(), 0)).isEqualTo(MAC_B);
        assertThat(mac(results[2].frame(), 0)).isEqualTo(MAC_B);
        assertThat(mac(results[3].frame(), 0)).isEqualTo(MAC_A);
        // The later fragment's IP destination is rewritten, its checksum kept valid, its payload untouched.
        assertThat(i32(results[3].frame(), 30)).isEqualTo(SERVER_A.v4());
        assertThat(checksum(results[3].frame(), 14, 20, 0)).isZero();
        assertThat(Arrays.copyOfRange(results[3].frame(), 34, 134)).isEqualTo(payload(100));
        assertThat(nat.pipeline.counters().fragmentsFollowed()).isEqualTo(2);
    }

    @Test
    void laterFragmentsShouldFollowAFirstFragmentOfAnExistingConnection()
    {
        final PipelineFixture nat = nat();
        // The flow exists before the fragmented datagram comes (afs.pcap in the tcpdump corpus does this).
        nat.sendOne(ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(4000, 53, 10), 0x4000, 0x400));
        final byte[] first = ipv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(4000, 53, 40), 0x2000, 0x401);
        final byte[] later = rawIpv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, UDP, 6, 0x401, payload(100));
        final PipelineFixture.Result[] results = nat.send(first, later);
        assertThat(Verdict.toString(results[1].verdict())).isEqualTo("transmit:0");
        assertThat(mac(results[1].frame(), 0)).isEqualTo(mac(results[0].frame(), 0));
    }

    @Test
    void aPacketWithNoTtlLeftShouldOpenNoConnection()
    {
        final PipelineFixture nat = nat();
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 1, Segment.tcp(40000, 80, SYN, 0)));
        assertThat(nat.pipeline.connectionsV4().size()).isZero();
        assertThat(nat.pipeline.counters().dropped(DropReason.TTL_EXPIRED)).isEqualTo(1);
    }

    @Test
    void aLaterFragmentBeforeItsFirstShouldBeDroppedAsAnOrphan()
    {
        final PipelineFixture nat = nat();
        final byte[] later = rawIpv4(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, UDP, 6, 0x300, payload(64));
        assertThat(Verdict.toString(nat.sendOne(later).verdict())).isEqualTo("drop:fragment-orphan");
        assertThat(nat.pipeline.counters().dropped(DropReason.FRAGMENT_ORPHAN)).isEqualTo(1);
    }

    @Test
    void anIcmpErrorAboutAReplyShouldReachTheServerWithItsQuoteRewritten()
    {
        final PipelineFixture nat = nat();
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        // A router near the client could not deliver a reply VIP:80 -> client:40000 and tells the VIP.
        final byte[] reply = frame(ROUTER_MAC, JVS_MAC, VIP, CLIENT, 63, Segment.tcp(80, 40000, SYN | ACK, 0));
        final IpAddress router = IpAddress.parse("203.0.113.1");
        final byte[] error = icmpErrorV4(JVS_MAC, ROUTER_MAC, router, VIP, 3, 1, reply);
        final PipelineFixture.Result out = nat.sendOne(error);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] frame = out.frame();
        assertThat(mac(frame, 0)).isEqualTo(MAC_A);
        assertThat(i32(frame, 30)).as("outer destination").isEqualTo(SERVER_A.v4());
        assertThat(i32(frame, 42 + 12)).as("quoted source").isEqualTo(SERVER_A.v4());
        assertThat(u16(frame, 42 + 20)).as("quoted source port").isEqualTo(8080);
        assertThat(checksum(frame, 42, 20, 0)).as("quoted IP checksum").isZero();
        assertThat(checksumsValidV4(frame)).isTrue();
    }

    @Test
    void anIcmpErrorFromTheServerShouldReachTheClientAsIfFromTheVirtualService()
    {
        final PipelineFixture nat = nat();
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        final byte[] request = frame(MAC_A, JVS_MAC, CLIENT, SERVER_A, 63, Segment.tcp(40000, 8080, SYN, 0));
        final byte[] error = icmpErrorV4(JVS_MAC, MAC_A, SERVER_A, CLIENT, 3, 3, request);
        final PipelineFixture.Result out = nat.sendOne(error);
        assertThat(Verdict.toString(out.verdict())).isEqualTo("transmit:0");
        final byte[] frame = out.frame();
        assertThat(mac(frame, 0)).isEqualTo(ROUTER_MAC);
        assertThat(i32(frame, 26)).as("outer source").isEqualTo(VIP.v4());
        assertThat(i32(frame, 42 + 16)).as("quoted destination").isEqualTo(VIP.v4());
        assertThat(u16(frame, 42 + 22)).as("quoted destination port").isEqualTo(80);
        assertThat(checksumsValidV4(frame)).isTrue();
    }

    @Test
    void anIcmpErrorAboutNoKnownConnectionShouldGoToTheHost()
    {
        final PipelineFixture nat = nat();
        final byte[] stray = frame(ROUTER_MAC, JVS_MAC, VIP, CLIENT, 63, Segment.tcp(80, 41000, ACK, 0));
        final byte[] error = icmpErrorV4(JVS_MAC, ROUTER_MAC, IpAddress.parse("203.0.113.1"), VIP, 3, 1, stray);
        assertThat(nat.sendOne(error).verdict()).isEqualTo(Verdict.pass());
    }
}
