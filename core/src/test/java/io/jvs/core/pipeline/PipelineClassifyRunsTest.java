package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Verdict;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.JVS_MAC;
import static io.jvs.core.pipeline.TestFrames.ROUTER_MAC;
import static io.jvs.core.pipeline.TestFrames.Segment;
import static io.jvs.core.pipeline.TestFrames.frame;
import static io.jvs.core.pipeline.TestFrames.mac;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first pass classifies a run of frames to one destination once: frames of one burst that differ from the frame
 * before them only in the protocol, the port or the address still reach their own services, and a frame with a mark
 * is classified by it.
 */
class PipelineClassifyRunsTest
{
    private static final int SYN = 0x02;
    private static final long MAC_TCP_80 = 0x02_00_00_00_01_01L;
    private static final long MAC_UDP_80 = 0x02_00_00_00_01_02L;
    private static final long MAC_TCP_81 = 0x02_00_00_00_01_03L;
    private static final long MAC_OTHER_VIP = 0x02_00_00_00_01_04L;
    private static final long MAC_MARK = 0x02_00_00_00_01_05L;
    private static final IpAddress VIP = IpAddress.parse("10.0.0.50");
    private static final IpAddress OTHER_VIP = IpAddress.parse("10.0.0.51");

    @Test
    void shouldClassifyEachFrameOfABurstByItsOwnDestination()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.50:80 -s rr", "-a -t 10.0.0.50:80 -r 192.168.1.1:80 -m",
                "-A -u 10.0.0.50:80 -s rr", "-a -u 10.0.0.50:80 -r 192.168.1.2:80 -m",
                "-A -t 10.0.0.50:81 -s rr", "-a -t 10.0.0.50:81 -r 192.168.1.3:81 -m",
                "-A -t 10.0.0.51:80 -s rr", "-a -t 10.0.0.51:80 -r 192.168.1.4:80 -m",
                "-A -f 7 -s rr", "-a -f 7 -r 192.168.1.5:0 -m")
            .neighbour("192.168.1.1", MAC_TCP_80)
            .neighbour("192.168.1.2", MAC_UDP_80)
            .neighbour("192.168.1.3", MAC_TCP_81)
            .neighbour("192.168.1.4", MAC_OTHER_VIP)
            .neighbour("192.168.1.5", MAC_MARK)
            .start();
        final byte[][] frames = {
            tcp(1, VIP, 80), tcp(2, VIP, 80), udp(3, VIP, 80), tcp(4, VIP, 80), tcp(5, VIP, 81), tcp(6, VIP, 81),
            tcp(7, OTHER_VIP, 80), tcp(8, VIP, 80), udp(9, VIP, 80), udp(10, VIP, 80), tcp(11, OTHER_VIP, 80),
            tcp(12, VIP, 81), tcp(13, VIP, 80)};
        final long[] expected = {
            MAC_TCP_80, MAC_TCP_80, MAC_UDP_80, MAC_TCP_80, MAC_TCP_81, MAC_TCP_81, MAC_OTHER_VIP, MAC_TCP_80,
            MAC_UDP_80, MAC_UDP_80, MAC_OTHER_VIP, MAC_TCP_81, MAC_TCP_80};
        final PipelineFixture.Result[] results = fixture.send(frames);
        for (int i = 0; i < frames.length; i++)
        {
            assertThat(Verdict.kind(results[i].verdict())).as("frame %d", i).isEqualTo(Verdict.TRANSMIT);
            assertThat(mac(results[i].frame(), 0)).as("frame %d's server", i).isEqualTo(expected[i]);
        }

        // A burst whose frames carry a mark: classified by the mark, whatever the unmarked frame before it was.
        fixture.firewallMark = 7;
        final PipelineFixture.Result marked = fixture.sendOne(tcp(14, VIP, 80));
        assertThat(mac(marked.frame(), 0)).isEqualTo(MAC_MARK);
        fixture.firewallMark = 0;
        assertThat(mac(fixture.send(tcp(15, VIP, 80), tcp(16, VIP, 81))[1].frame(), 0)).isEqualTo(MAC_TCP_81);
    }

    private static byte[] tcp(final int client, final IpAddress destination, final int port)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("203.0.113." + client), destination, 64,
            Segment.tcp(40000, port, SYN, 0));
    }

    private static byte[] udp(final int client, final IpAddress destination, final int port)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("203.0.113." + client), destination, 64,
            Segment.udp(40000, port, 8));
    }
}
