package io.jvs.forwarder.bench;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.stats.TrafficStats;
import io.jvs.core.stats.TrafficStatsDescriptor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The synthetic load behind the pipeline benchmarks does what their figures claim: every frame is
 * forwarded, and the new-connection load keeps its table turning over without filling it.
 */
class PipelineWorkloadTest
{
    private static final int BURST = 32;

    @ParameterizedTest
    @EnumSource(PipelineWorkload.Mode.class)
    void shouldForwardEveryFrameOfTheEstablishedFlows(final PipelineWorkload.Mode mode)
    {
        final PipelineWorkload workload = new PipelineWorkload(mode, "wlc", 5000, false, BURST).setUp();
        for (int i = 0; i < 1000; i++)
        {
            assertThat(workload.runBurst()).isEqualTo(BURST);
            // runBurst counts by the pipeline's own counter; the verdicts must say the same.
            for (int frame = 0; frame < BURST; frame++)
            {
                assertThat(Verdict.kind(workload.burst().verdict(frame))).isEqualTo(Verdict.TRANSMIT);
            }
        }
        assertThat(workload.pipeline().connectionsV4().size()).isEqualTo(5000);
        assertThat(workload.bytesPerConnection()).isEqualTo(64.0);
    }

    @Test
    void shouldForwardEveryClientFrameAndEveryServersReplyWithReplies()
    {
        final PipelineWorkload workload = PipelineWorkload.withReplies("wlc", 5000, BURST).setUp();
        final TrafficStats traffic = workload.pipeline().traffic();
        final long outBefore = sum(traffic, TrafficStatsDescriptor.OUT_PACKETS);
        final long inBefore = sum(traffic, TrafficStatsDescriptor.IN_PACKETS);
        for (int i = 0; i < 1000; i++)
        {
            assertThat(workload.runBurst()).isEqualTo(BURST);
        }
        // The first burst has no replies to send yet: every client frame then; after it, every other frame.
        assertThat(sum(traffic, TrafficStatsDescriptor.OUT_PACKETS) - outBefore).isEqualTo(999L * BURST / 2);
        assertThat(sum(traffic, TrafficStatsDescriptor.IN_PACKETS) - inBefore).isEqualTo(BURST + 999L * BURST / 2);
        assertThat(workload.pipeline().connectionsV4().size()).isEqualTo(5000);
        assertThat(workload.toString()).endsWith(" replies");
    }

    @Test
    void shouldRefuseRepliesWhereServersWouldNotSendThemThroughJvs()
    {
        assertThatThrownBy(() -> new PipelineWorkload(PipelineWorkload.Mode.DR, "wlc", 100, false, BURST, true, 10))
            .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PipelineWorkload(PipelineWorkload.Mode.NAT, "wlc", 100, true, BURST, true, 10))
            .isInstanceOf(IllegalArgumentException.class);
    }

    private static long sum(final TrafficStats traffic, final int field)
    {
        long total = 0;
        for (int slot = 0; slot < traffic.serviceSlots(); slot++)
        {
            total += traffic.service(slot, field);
        }
        return total;
    }

    @ParameterizedTest
    @EnumSource(PipelineWorkload.Mode.class)
    void shouldWeighTheServersAsGiven(final PipelineWorkload.Mode mode)
    {
        final int capacity = 16_384;
        final PipelineWorkload workload =
            new PipelineWorkload(mode, "wlc", capacity, true, BURST, new int[] {1, 2, 3, 4}).setUp();
        // 6 400 SYNs, before the first entry's SYN_RECV second is over (capacity / 2 connections): wlc then spreads
        // them over the servers in proportion to their weights, exactly at every multiple of the weights' sum, 40.
        for (int i = 0; i < 6400 / BURST; i++)
        {
            assertThat(workload.runBurst()).isEqualTo(BURST);
        }
        final TrafficStats traffic = workload.pipeline().traffic();
        final List<Long> connections = new ArrayList<>();
        for (int slot = 0; slot < traffic.serverSlots(); slot++)
        {
            final long opened = traffic.server(slot, TrafficStatsDescriptor.CONNECTIONS);
            if (opened > 0)
            {
                connections.add(opened);
            }
        }
        // Servers 1-16 weigh 1, 2, 3, 4, 1, 2...: 160 connections a unit of weight.
        assertThat(connections).containsExactlyInAnyOrder(160L, 160L, 160L, 160L, 320L, 320L, 320L, 320L,
            480L, 480L, 480L, 480L, 640L, 640L, 640L, 640L);
        assertThat(workload.toString()).endsWith(" new-flows weights=1,2,3,4");
        assertThat(new PipelineWorkload(mode, "wlc", 1024, true, BURST).toString()).endsWith(" new-flows");
    }

    @Test
    void shouldRefuseWeightsThatCannotBeGivenToItsServers()
    {
        assertThat(PipelineWorkload.weightsProblem(new int[] {0, 0})).contains("above 0");
        assertThat(PipelineWorkload.weightsProblem(new int[] {3, -1})).contains("not -1");
        assertThat(PipelineWorkload.weightsProblem(new int[17])).contains("not 17");
        assertThat(PipelineWorkload.weightsProblem(new int[0])).contains("not 0");
        assertThat(PipelineWorkload.weightsProblem(new int[] {0, 5})).isNull();
        assertThatThrownBy(() -> new PipelineWorkload(PipelineWorkload.Mode.NAT, "wlc", 100, true, BURST,
            new int[] {0})).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("above 0");
    }

    @ParameterizedTest
    @EnumSource(PipelineWorkload.Mode.class)
    void shouldSetUpAmongAcksOfTheFlowsAlreadyOpen(final PipelineWorkload.Mode mode)
    {
        final int flows = 5000;
        final PipelineWorkload workload = new PipelineWorkload(mode, "wlc", flows, false, BURST).setUp();
        final long frames = workload.pipeline().counters().frames();
        // The first SYN alone; then the first ACK with the second SYN, before any flow is open; then a burst per
        // flow, each the last flow's ACK, the next SYN and ACKs of open flows.
        assertThat(frames).isEqualTo(1 + 2 + (long)BURST * (flows - 1));
        assertThat(workload.pipeline().counters().fastPath())
            .as("all but the SYNs follow a flow in the fast loop, the ACK that establishes it too")
            .isEqualTo(frames - flows);
        assertThat(workload.pipeline().connectionsV4().size()).isEqualTo(flows);
    }

    @ParameterizedTest
    @EnumSource(PipelineWorkload.Mode.class)
    void shouldOpenTheFlowsLeftAfterTheMixedBurstsInBurstsFilledWithHandshakes(final PipelineWorkload.Mode mode)
    {
        final int flows = 5000;
        final PipelineWorkload workload = new PipelineWorkload(mode, "wlc", flows, false, BURST, false, 1000).setUp();
        final long frames = workload.pipeline().counters().frames();
        // 1 000 mixed bursts as above (3 + 32 * 998 frames: SYNs of the first 1 000 flows, ACKs of 999), then the
        // remaining 8 001 handshakes (one ACK, 4 000 SYNs and their ACKs), 16 SYNs and 16 ACKs a burst: only the
        // first of those bursts (1 ACK, 16 SYNs) and the last (16 ACKs) leave room for ACKs of open flows.
        assertThat(frames).isEqualTo(3 + (long)BURST * 998 + 1 + 2L * (flows - 1000) + 15 + 16);
        assertThat(workload.pipeline().counters().fastPath()).isEqualTo(frames - flows);
        assertThat(workload.pipeline().connectionsV4().size()).isEqualTo(flows);
        final long before = workload.pipeline().counters().fastPath();
        for (int i = 0; i < 100; i++)
        {
            assertThat(workload.runBurst()).isEqualTo(BURST);
        }
        assertThat(workload.pipeline().counters().fastPath() - before).as("every flow established")
            .isEqualTo(100L * BURST);
    }

    @Test
    void shouldWriteEveryFrameAtTheStartOfACacheLineAsTheCPeerDoes()
    {
        // The C peer's frames start on a page, 2048 bytes apart. A 60-byte frame that starts mid-line spans two lines
        // (16 bytes in, from a plain direct buffer, it did): a second line a frame that the C never touches.
        for (final boolean newFlows : new boolean[] {false, true})
        {
            final PipelineWorkload workload =
                new PipelineWorkload(PipelineWorkload.Mode.NAT, "wlc", 4096, newFlows, BURST).setUp();
            workload.runBurst();
            final FrameBurst burst = workload.burst();
            assertThat(burst.count).isEqualTo(BURST);
            for (int i = 0; i < burst.count; i++)
            {
                assertThat(burst.address(i) % 64).as("frame %d's offset in its line, new flows %s", i, newFlows)
                    .isZero();
                assertThat(burst.length(i)).isEqualTo(PipelineWorkload.FRAME_LENGTH);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(PipelineWorkload.Mode.class)
    void shouldCountTheEstablishedLoadOnTheFastPathAndNewConnectionsOffIt(final PipelineWorkload.Mode mode)
    {
        final PipelineWorkload established = new PipelineWorkload(mode, "wlc", 5000, false, BURST).setUp();
        final long before = established.pipeline().counters().fastPath();
        for (int i = 0; i < 100; i++)
        {
            established.runBurst();
        }
        assertThat(established.pipeline().counters().fastPath() - before).isEqualTo(100L * BURST);

        final PipelineWorkload opening = new PipelineWorkload(mode, "rr", 16_384, true, BURST).setUp();
        for (int i = 0; i < 100; i++)
        {
            assertThat(opening.runBurst()).isEqualTo(BURST);
        }
        assertThat(opening.pipeline().counters().fastPath()).as("a SYN opens a connection: never the fast path")
            .isZero();
        assertThat(opening.pipeline().counters().frames()).isEqualTo(100L * BURST);
    }

    @ParameterizedTest
    @EnumSource(PipelineWorkload.Mode.class)
    void shouldKeepTheNewConnectionTableTurningOverBelowItsCapacity(final PipelineWorkload.Mode mode)
    {
        final int capacity = 16_384;
        final PipelineWorkload workload = new PipelineWorkload(mode, "rr", capacity, true, BURST).setUp();
        // Five table lifetimes: 2.5 virtual seconds per capacity / 2 connections.
        final int bursts = 5 * capacity / BURST;
        for (int i = 0; i < bursts; i++)
        {
            assertThat(workload.runBurst()).isEqualTo(BURST);
        }
        final ConnectionTable table = workload.pipeline().connectionsV4();
        assertThat(table.refusals()).isZero();
        assertThat(table.size()).isBetween(capacity / 2, capacity * 95 / 100);
        assertThat(workload.pipeline().counters().connectionsEnded())
            .as("entries expire and are swept while new ones arrive").isGreaterThan((long)capacity * 3);
    }
}
