package io.jvs.forwarder.daemon;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon's own counters: each worker's block is its own (no id of one worker reaches another's), every id
 * fits the block and has a distinct label, and values add up.
 */
class DaemonCountersTest
{
    @Test
    void shouldKeepEveryWorkersCountersApart()
    {
        final int workers = 4;
        final DaemonCounters counters = new DaemonCounters(workers);
        for (int worker = 0; worker < workers; worker++)
        {
            for (int id = 0; id < DaemonCounters.COUNT; id++)
            {
                counters.add(worker, id, 1000L * worker + id + 1);
            }
        }
        counters.add(2, DaemonCounters.HANDED_OFF, 5);
        for (int worker = 0; worker < workers; worker++)
        {
            for (int id = 0; id < DaemonCounters.COUNT; id++)
            {
                final long extra = worker == 2 && id == DaemonCounters.HANDED_OFF ? 5 : 0;
                assertThat(counters.get(worker, id)).as("worker %d id %d", worker, id)
                    .isEqualTo(1000L * worker + id + 1 + extra);
            }
        }
    }

    @Test
    void shouldStartAtZeroAndAddBeyondIntRange()
    {
        final DaemonCounters counters = new DaemonCounters(1);
        assertThat(counters.get(0, DaemonCounters.BURSTS)).isZero();
        counters.add(0, DaemonCounters.BURSTS, Integer.MAX_VALUE);
        counters.add(0, DaemonCounters.BURSTS, Integer.MAX_VALUE);
        assertThat(counters.get(0, DaemonCounters.BURSTS)).isEqualTo(2L * Integer.MAX_VALUE);
    }

    @Test
    void shouldFitEveryIdInABlockOfWholeCacheLinesWithADistinctLabel()
    {
        assertThat(DaemonCounters.COUNT * Long.BYTES).isLessThanOrEqualTo(DaemonCounters.BLOCK);
        assertThat(DaemonCounters.BLOCK % 64).isZero();
        final Set<String> labels = new HashSet<>();
        for (int id = 0; id < DaemonCounters.COUNT; id++)
        {
            assertThat(DaemonCounters.label(id)).isNotBlank();
            labels.add(DaemonCounters.label(id));
        }
        assertThat(labels).hasSize(DaemonCounters.COUNT);
        assertThat(DaemonCounters.label(DaemonCounters.HANDED_OFF)).isEqualTo("handed-off");
        assertThat(DaemonCounters.label(DaemonCounters.NEIGHBOUR_MISSES)).isEqualTo("neighbour-misses");
    }

    @Test
    void shouldShowAWorkersIncrementsToAnotherThread() throws Exception
    {
        final DaemonCounters counters = new DaemonCounters(2);
        final Thread worker = Thread.ofPlatform().start(() ->
        {
            for (int i = 0; i < 1_000_000; i++)
            {
                counters.add(1, DaemonCounters.HANDOFF_RECEIVED, 1);
            }
        });
        long seen = 0;
        while (worker.isAlive())
        {
            final long now = counters.get(1, DaemonCounters.HANDOFF_RECEIVED);
            // A reader may lag but never sees a counter run backwards.
            assertThat(now).isGreaterThanOrEqualTo(seen);
            seen = now;
        }
        worker.join();
        assertThat(counters.get(1, DaemonCounters.HANDOFF_RECEIVED)).isEqualTo(1_000_000);
        assertThat(counters.get(0, DaemonCounters.HANDOFF_RECEIVED)).isZero();
    }
}
