package io.jvs.core.pipeline;

import io.jvs.core.memory.CachePrefetch;
import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Verdict;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.jvs.core.pipeline.TestFrames.JVS_MAC;
import static io.jvs.core.pipeline.TestFrames.ROUTER_MAC;
import static io.jvs.core.pipeline.TestFrames.Segment;
import static io.jvs.core.pipeline.TestFrames.frame;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pipeline told that its frames arrive cold starts each burst by prefetching every frame's header lines, its first
 * and the next when the frame goes on into it, in the burst's order and before any table line; one that is not told
 * names no frame of a burst whose frames all have ports. The frames' fates are the same either way.
 */
class PipelineColdFramesTest
{
    private static final int SYN = 0x02;
    private static final IpAddress VIP = IpAddress.parse("10.0.0.50");

    @Test
    void shouldPrefetchEachFramesHeaderLinesFirstWhenTheFramesArriveCold()
    {
        final RecordingPrefetch cold = new RecordingPrefetch();
        final PipelineFixture fixture = fixture(cold);
        fixture.pipeline.framesArriveCold(true);
        final byte[][] frames = {tcp(1, 0), tcp(2, 200), tcp(3, 4), tcp(4, 1000)};

        final PipelineFixture.Result[] results = fixture.send(frames);

        final List<Long> expected = new ArrayList<>();
        for (int i = 0; i < frames.length; i++)
        {
            final long address = fixture.burst.address(i);
            expected.add(address);
            if (frames[i].length > 64 - (int)(address & 63))
            {
                expected.add(address + 64);
            }
        }
        // The fixture's frames start anywhere in a line: at least the 1 000-byte one goes on into its next line.
        assertThat(expected).hasSizeGreaterThan(frames.length);
        assertThat(cold.calls).isNotEmpty();
        assertThat(cold.calls.get(0)).isEqualTo(expected);
        for (final PipelineFixture.Result result : results)
        {
            assertThat(Verdict.kind(result.verdict())).isEqualTo(Verdict.TRANSMIT);
        }
    }

    @Test
    void shouldNameNoFrameOfABurstWithPortsByDefaultAndDecideAlike()
    {
        final RecordingPrefetch warm = new RecordingPrefetch();
        final PipelineFixture byDefault = fixture(warm);
        final PipelineFixture told = fixture(new RecordingPrefetch());
        told.pipeline.framesArriveCold(true);
        final byte[][] frames = {tcp(1, 0), tcp(2, 200), tcp(1, 0), tcp(5, 1000)};

        final PipelineFixture.Result[] plain = byDefault.send(frames);
        final PipelineFixture.Result[] prefetched = told.send(frames);

        final List<Long> frameAddresses = new ArrayList<>();
        for (int i = 0; i < frames.length; i++)
        {
            frameAddresses.add(byDefault.burst.address(i));
            frameAddresses.add(byDefault.burst.address(i) + 64);
        }
        assertThat(warm.calls).isNotEmpty();
        for (final List<Long> call : warm.calls)
        {
            assertThat(call).doesNotContainAnyElementsOf(frameAddresses);
        }
        for (int i = 0; i < frames.length; i++)
        {
            assertThat(prefetched[i].verdict()).as("frame %d", i).isEqualTo(plain[i].verdict());
            assertThat(prefetched[i].frame()).as("frame %d", i).isEqualTo(plain[i].frame());
        }
    }

    private static PipelineFixture fixture(final CachePrefetch prefetch)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.50:80 -s rr", "-a -t 10.0.0.50:80 -r 192.168.1.1:80 -m",
                "-a -t 10.0.0.50:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.1", 0x02_00_00_00_01_01L)
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L);
        fixture.prefetch = prefetch;
        return fixture.start();
    }

    private static byte[] tcp(final int client, final int payload)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("203.0.113." + client), VIP, 64,
            Segment.tcp(40000, 80, SYN, payload));
    }
}
