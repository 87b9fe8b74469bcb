package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.conn.TcpStates;
import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Verdict;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.jvs.core.pipeline.TestFrames.JVS_MAC;
import static io.jvs.core.pipeline.TestFrames.ROUTER_MAC;
import static io.jvs.core.pipeline.TestFrames.Segment;
import static io.jvs.core.pipeline.TestFrames.frame;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * After each burst the pipeline names the connection-table lines its sweep will read by the next burst, for a table
 * that sweeps every slot (the daemon's); for a table that skips idle blocks (replay's) it names none, as finding
 * them cost more than their misses. A burst of one frame names one home line, so a call naming more is the sweep's;
 * the bursts make entries fall due ahead of the sweep, where a table that skips idle blocks would name several too.
 */
class PipelineSweepPrefetchTest
{
    private static final long TEN_MILLISECONDS = 10_000_000L;

    @Test
    void shouldNameTheLinesTheSweepWillReadForATableThatSweepsEverySlot()
    {
        final RecordingPrefetch prefetch = new RecordingPrefetch();
        final PipelineFixture fixture = fixture(prefetch);

        sendSyns(fixture);

        final ConnectionTable table = fixture.pipeline.connectionsV4();
        final long first = table.slotAddress(0);
        final long end = first + (long)table.slots() * (table.slotAddress(1) - first);
        final List<List<Long>> sweeps = prefetch.calls.stream().filter(call -> call.size() > 1).toList();
        assertThat(sweeps).isNotEmpty();
        for (final List<Long> call : sweeps)
        {
            assertThat(call).allSatisfy(address -> assertThat(address).isBetween(first, end - 1));
        }
    }

    @Test
    void shouldNameNoSweepLinesForTablesThatSkipIdleBlocks()
    {
        final RecordingPrefetch prefetch = new RecordingPrefetch();
        final PipelineFixture fixture = fixture(prefetch);
        fixture.pipeline.connectionsV4().skipIdleBlocks();
        fixture.pipeline.connectionsV6().skipIdleBlocks();

        sendSyns(fixture);

        assertThat(prefetch.calls).isNotEmpty().allSatisfy(call -> assertThat(call).hasSize(1));
    }

    /**
     * 150 bursts of one SYN each, 10 ms apart: each opens a connection that lives its SYN_RECV second, so that from
     * the second second on the sweep has entries due, ahead of it in the table as well as behind.
     */
    private static void sendSyns(final PipelineFixture fixture)
    {
        for (int n = 0; n < 150; n++)
        {
            final PipelineFixture.Result result = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC,
                IpAddress.parse("203.0.113.1"), IpAddress.parse("10.0.0.50"), 64, Segment.tcp(40000 + n, 80, 0x02, 0)));
            assertThat(Verdict.kind(result.verdict())).isEqualTo(Verdict.TRANSMIT);
            fixture.nowNs += TEN_MILLISECONDS;
        }
    }

    private static PipelineFixture fixture(final RecordingPrefetch prefetch)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.50:80 -s rr", "-a -t 10.0.0.50:80 -r 192.168.1.1:80 -m")
            .neighbour("192.168.1.1", 0x02_00_00_00_01_01L);
        fixture.timeouts.setTcpState(TcpStates.SYN_RECV, 1);
        fixture.prefetch = prefetch;
        return fixture.start();
    }
}
