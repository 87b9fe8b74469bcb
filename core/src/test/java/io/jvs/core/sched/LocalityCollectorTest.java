package io.jvs.core.sched;

import io.jvs.core.concurrent.SharedKeyTable;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lblc/lblcr garbage collection (ip_vs_lblc_check_expire): its 60 s timer, the full expiration every
 * 30th expiry, and the trimming of an over-full table from the rover on, at times just below and at each
 * threshold.
 */
class LocalityCollectorTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long MINUTE_NS = TimeUnit.MINUTES.toNanos(1);
    private static final long IDLE_NS = LocalityCollector.ENTRY_TIMEOUT_NS;

    /** Fingerprints: the bucket times 1000 plus a serial, so each entry is easy to name. */
    private static long key(final int bucket, final int serial)
    {
        return bucket * 1000L + serial + 1;
    }

    private static void add(final SharedKeyTable table, final int bucket, final int serial, final long lastUseNs)
    {
        assertThat(table.acquire(key(bucket, serial), bucket, lastUseNs, 1)).isNotEqualTo(SharedKeyTable.NOT_FOUND);
    }

    private static boolean has(final SharedKeyTable table, final int bucket, final int serial)
    {
        return table.lookup(key(bucket, serial), bucket) != SharedKeyTable.NOT_FOUND;
    }

    /** Fills bucket {@code bucket} with {@code count} entries used at {@code lastUseNs}, from serial 100. */
    private static void fill(final SharedKeyTable table, final int bucket, final int count, final long lastUseNs)
    {
        for (int i = 0; i < count; i++)
        {
            add(table, bucket, 100 + i, lastUseNs);
        }
    }

    @Test
    void shouldCheckEverySixtySecondsFromTheFirstTick()
    {
        // One entry, idle beyond a 1-minute expiration from the start: only the 30th check drops it,
        // 30 minutes after the first tick, however often the worker ticks in between.
        final SharedKeyTable table = new SharedKeyTable(1);
        final LocalityCollector collector = new LocalityCollector(table, MINUTE_NS);
        add(table, 0, 0, 0);
        final long start = 7 * SECOND_NS;
        collector.onTick(start);
        for (long now = start + 30 * SECOND_NS; now < start + 30 * MINUTE_NS; now += 30 * SECOND_NS)
        {
            collector.onTick(now);
            assertThat(has(table, 0, 0)).as("at %d s", (now - start) / SECOND_NS).isTrue();
        }
        collector.onTick(start + 30 * MINUTE_NS - 1);
        assertThat(has(table, 0, 0)).isTrue();
        collector.onTick(start + 30 * MINUTE_NS);
        assertThat(has(table, 0, 0)).isFalse();
    }

    @Test
    void shouldDropOnTheThirtiethCheckEntriesUnusedForTheExpiration()
    {
        final SharedKeyTable table = new SharedKeyTable(4);
        final long expiration = 10 * MINUTE_NS;
        final LocalityCollector collector = new LocalityCollector(table, expiration);
        final long now = 20 * MINUTE_NS;
        for (int bucket = 0; bucket < 4; bucket++)
        {
            add(table, bucket, 0, now - expiration);
            add(table, bucket, 1, now - expiration + 1);
        }
        for (int check = 1; check < 30; check++)
        {
            collector.check(now);
            assertThat(table.entries()).as("check %d", check).isEqualTo(8);
        }
        collector.check(now);
        for (int bucket = 0; bucket < 4; bucket++)
        {
            assertThat(has(table, bucket, 0)).as("bucket %d, at the expiration", bucket).isFalse();
            assertThat(has(table, bucket, 1)).as("bucket %d, 1 ns short of it", bucket).isTrue();
        }
        // The count restarts: the next full expiration is 30 checks later.
        for (int check = 1; check < 30; check++)
        {
            collector.check(now + expiration);
            assertThat(table.entries()).as("check %d", check).isEqualTo(4);
        }
        collector.check(now + expiration);
        assertThat(table.entries()).isZero();
    }

    @Test
    void shouldLeaveATableAtItsMaximumAlone()
    {
        // 1 bucket: at most 16 entries. At exactly 16 nothing is trimmed, however idle.
        final SharedKeyTable table = new SharedKeyTable(1);
        final LocalityCollector collector = new LocalityCollector(table, TimeUnit.HOURS.toNanos(24));
        fill(table, 0, 16, 0);
        for (int check = 1; check < 30; check++)
        {
            collector.check(IDLE_NS * 10);
            assertThat(table.entries()).isEqualTo(16);
        }
    }

    @Test
    void shouldTrimAnOverFullTableBucketByBucketFromTheRoverUntilTheGoal()
    {
        // 4 buckets: at most 64 entries; 65 makes the goal (65 - 64) * 4 / 3 = 1. Bucket 1 (the first after
        // the rover, 0) holds one entry 1 ns short of the 6-minute idle time, bucket 2 one at exactly 6
        // minutes, bucket 3 one long idle: the walk passes bucket 1, drops bucket 2's and stops there.
        final SharedKeyTable table = new SharedKeyTable(4);
        final LocalityCollector collector = new LocalityCollector(table, TimeUnit.HOURS.toNanos(24));
        final long now = 60 * MINUTE_NS;
        add(table, 1, 0, now - IDLE_NS + 1);
        add(table, 2, 0, now - IDLE_NS);
        add(table, 3, 0, 0);
        fill(table, 0, 32, now);
        fill(table, 1, 30, now);
        assertThat(table.entries()).isEqualTo(65);

        collector.check(now);
        assertThat(has(table, 1, 0)).isTrue();
        assertThat(has(table, 2, 0)).isFalse();
        assertThat(has(table, 3, 0)).isTrue();
        assertThat(table.entries()).isEqualTo(64);

        // Over-full again: the walk goes on after bucket 2, so bucket 3's entry goes before bucket 1's.
        add(table, 2, 1, 0);
        assertThat(table.entries()).isEqualTo(65);
        collector.check(now);
        assertThat(has(table, 3, 0)).isFalse();
        assertThat(has(table, 1, 0)).isTrue();
        assertThat(has(table, 2, 1)).isTrue();
    }

    @Test
    void shouldStopAtTheFirstBucketThatMeetsTheGoal()
    {
        // The goal is 1 and bucket 1 has one idle entry: bucket 3's idle entry stays.
        final SharedKeyTable table = new SharedKeyTable(4);
        final LocalityCollector collector = new LocalityCollector(table, TimeUnit.HOURS.toNanos(24));
        final long now = 60 * MINUTE_NS;
        add(table, 1, 0, 0);
        add(table, 3, 0, 0);
        fill(table, 0, 32, now);
        fill(table, 2, 31, now);
        collector.check(now);
        assertThat(has(table, 1, 0)).isFalse();
        assertThat(has(table, 3, 0)).isTrue();
        assertThat(table.entries()).isEqualTo(64);
    }

    @Test
    void shouldComeBackToTheRoverAfterAWalkThatFindsNothingIdle()
    {
        // Over-full with nothing idle at 5 minutes: a whole walk, nothing dropped, the rover back at 0.
        // At 10 minutes the entries added at 0 are idle; the walk starts again at bucket 1.
        final SharedKeyTable table = new SharedKeyTable(4);
        final LocalityCollector collector = new LocalityCollector(table, TimeUnit.HOURS.toNanos(24));
        final long later = 10 * MINUTE_NS;
        add(table, 1, 0, 0);
        add(table, 2, 0, 0);
        fill(table, 0, 32, later);
        fill(table, 3, 31, later);
        collector.check(5 * MINUTE_NS);
        assertThat(table.entries()).isEqualTo(65);
        collector.check(later);
        assertThat(has(table, 1, 0)).isFalse();
        assertThat(has(table, 2, 0)).isTrue();
    }

    @Test
    void shouldStartTrimmingAfterAFullExpirationWhereTheRoverWas()
    {
        // A full expiration walks every bucket once and leaves the rover where it was (0), so the next
        // trim starts at bucket 1.
        final SharedKeyTable table = new SharedKeyTable(4);
        final LocalityCollector collector = new LocalityCollector(table, TimeUnit.HOURS.toNanos(24));
        final long now = 60 * MINUTE_NS;
        for (int check = 0; check < 30; check++)
        {
            collector.check(now);
        }
        add(table, 1, 0, 0);
        add(table, 2, 0, 0);
        fill(table, 0, 32, now);
        fill(table, 3, 31, now);
        collector.check(now);
        assertThat(has(table, 1, 0)).isFalse();
        assertThat(has(table, 2, 0)).isTrue();
    }
}
