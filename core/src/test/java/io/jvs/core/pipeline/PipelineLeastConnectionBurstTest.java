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
 * wlc schedules a burst's later connections from the burst's first pass with this worker's own changes applied: a
 * connection activated, deactivated or removed on another server earlier in the same burst counts for the next
 * choice, as it would with every server read again. Each case is built so that a choice from the pass's stale keys
 * would pick another server. DR (inbound only), so a client's ACK establishes its connection.
 */
class PipelineLeastConnectionBurstTest
{
    private static final int SYN = 0x02;
    private static final int RST = 0x04;
    private static final int ACK = 0x10;
    private static final long MAC_A = 0x02_00_00_00_01_01L;
    private static final long MAC_B = 0x02_00_00_00_01_02L;
    private static final long MAC_C = 0x02_00_00_00_01_03L;
    private static final IpAddress VIP = IpAddress.parse("10.0.0.50");

    @Test
    void shouldCountAConnectionActivatedEarlierInTheBurst()
    {
        // The older kernels' rule, so that a SYN_RECV connection is inactive and the ACK that establishes it activates it.
        final PipelineFixture fixture = threeServers(true);
        expect(fixture.send(tcp(1, SYN), tcp(2, SYN), tcp(3, SYN)), MAC_A, MAC_B, MAC_C);
        // All three at overhead 1: c4 goes to A (the first); c2's ACK makes B's 256; c5 goes to C, not to B.
        expect(fixture.send(tcp(4, SYN), tcp(2, ACK), tcp(5, SYN)), MAC_A, MAC_B, MAC_C);
    }

    @Test
    void shouldCountAConnectionDeactivatedEarlierInTheBurst()
    {
        final PipelineFixture fixture = threeServers(false);
        expect(fixture.send(tcp(1, SYN), tcp(2, SYN), tcp(3, SYN)), MAC_A, MAC_B, MAC_C);
        expect(fixture.send(tcp(1, ACK), tcp(2, ACK), tcp(3, ACK)), MAC_A, MAC_B, MAC_C);
        // All three at 256: c4 goes to A (512, SYN_RECV is active); c3's RST takes C to 1; c5 goes to C, not to B.
        expect(fixture.send(tcp(4, SYN), tcp(3, RST), tcp(5, SYN)), MAC_A, MAC_C, MAC_C);
    }

    @Test
    void shouldCountAConnectionRemovedEarlierInTheBurst()
    {
        final PipelineFixture fixture = threeServers(false);
        expect(fixture.send(tcp(1, SYN), tcp(2, SYN), tcp(3, SYN)), MAC_A, MAC_B, MAC_C);
        expect(fixture.send(tcp(6, SYN)), MAC_A);
        expect(fixture.send(tcp(1, ACK), tcp(2, ACK), tcp(3, ACK), tcp(6, ACK)), MAC_A, MAC_B, MAC_C, MAC_A);
        // An established connection's RST closes it (a SYN_RECV one's would not: ip_vs_proto_tcp's state table).
        expect(fixture.send(tcp(6, RST)), MAC_A);
        // A 257 (c6 closed, still counted), B and C 256: c4 goes to B (512); c6's new SYN removes its closed entry,
        // taking A to 256, and is scheduled afresh: to A, not to C.
        expect(fixture.send(tcp(4, SYN), tcp(6, SYN)), MAC_B, MAC_A);
    }

    private static PipelineFixture threeServers(final boolean activeEstablishedOnly)
    {
        final PipelineFixture fixture = new PipelineFixture();
        final DataPlaneSettings d = fixture.settings;
        fixture.settings = new DataPlaneSettings(d.passUnmatched(), d.allowIpOptions(), d.allowFragments(),
            d.expireNodestConn(), d.expireQuiescentTemplate(), d.sloppyTcp(), d.connReuse(), activeEstablishedOnly,
            d.icmpRepliesPerSecond(), d.clampMss(), d.sweepSlotsPerBurst(), d.answerVipEcho(), d.pmtuDisc(),
            d.scheduleIcmp());
        return fixture
            // ip_vs_add_dest puts a new server at the head of the list: added C, B, A, the list is A, B, C.
            .rules("-A -t 10.0.0.50:80 -s wlc", "-a -t 10.0.0.50:80 -r 192.168.1.3:80 -g",
                "-a -t 10.0.0.50:80 -r 192.168.1.2:80 -g", "-a -t 10.0.0.50:80 -r 192.168.1.1:80 -g")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B)
            .neighbour("192.168.1.3", MAC_C)
            .start();
    }

    private static void expect(final PipelineFixture.Result[] results, final long... servers)
    {
        assertThat(results).hasSize(servers.length);
        for (int i = 0; i < servers.length; i++)
        {
            assertThat(Verdict.kind(results[i].verdict())).as("frame %d", i).isEqualTo(Verdict.TRANSMIT);
            assertThat(mac(results[i].frame(), 0)).as("frame %d's server", i).isEqualTo(servers[i]);
        }
    }

    private static byte[] tcp(final int client, final int flags)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("203.0.113." + client), VIP, 64,
            Segment.tcp(40000, 80, flags, 0));
    }
}
