package io.jvs.core.pipeline;

import io.jvs.core.memory.OffHeapAllocator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An idle worker's pipeline records a newly published snapshot without a burst or a sweep, so the conductor's wait
 * for every worker to take it (before added servers get their weights) ends as soon as the idle loop comes round.
 */
class PipelineFollowSnapshotTest
{
    @Test
    void shouldRecordTheCurrentSnapshotBetweenBursts()
    {
        final PipelineFixture fixture = new PipelineFixture(1)
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L)
            .start();
        final WorkerEpochs epochs = new WorkerEpochs(1);
        final Pipeline pipeline = new Pipeline(fixture.publisher, 0, 1024, 1024, 64, 256, 0, OffHeapAllocator.DIRECT,
            new TemplateTable(1024), epochs);
        final long first = fixture.publisher.current().generation();
        assertThat(epochs.oldest()).isEqualTo(first);

        fixture.rules("-a -t 10.0.0.100:80 -r 192.168.1.3:80 -m");
        fixture.republish();
        final long second = fixture.publisher.current().generation();
        assertThat(second).isGreaterThan(first);
        assertThat(epochs.oldest()).as("nothing recorded before the idle loop").isEqualTo(first);

        pipeline.followSnapshot();
        assertThat(epochs.oldest()).isEqualTo(second);
        pipeline.followSnapshot();
        assertThat(epochs.oldest()).isEqualTo(second);
    }
}
