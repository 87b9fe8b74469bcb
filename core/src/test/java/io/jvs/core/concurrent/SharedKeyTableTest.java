package io.jvs.core.concurrent;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared key table on one thread: the forms of its fingerprints, finding and adding keys, the bucket
 * and table limits, reuse of retired ways, expiry exactly at the idle time, busy entries, and the
 * millisecond below which a use is not recorded.
 */
class SharedKeyTableTest
{
    private static final long MS = 1_000_000L;

    @Test
    void shouldFingerprintIpv4ExactlyAndIpv6AndCompoundKeysInTheirOwnForms()
    {
        assertThat(SharedKeyTable.fingerprint(false, 0, 0x0A00_0001L)).isEqualTo(1L << 32 | 0x0A00_0001L);
        assertThat(SharedKeyTable.fingerprint(false, 99, 0xFFFF_FFFF_0A00_0001L)).isEqualTo(1L << 32 | 0x0A00_0001L);
        final Set<Long> seen = new HashSet<>();
        for (long i = 0; i < 1000; i++)
        {
            final long v6 = SharedKeyTable.fingerprint(true, 0x2001_0DB8_0000_0000L + (i & 7), i >> 3);
            assertThat(v6 >>> 61).as("IPv6 form").isEqualTo(1);
            assertThat(seen.add(v6)).as("distinct %d", i).isTrue();
            final long compound = SharedKeyTable.fingerprint(i, i * 3, i * 7);
            assertThat(compound >>> 60).as("compound form").isEqualTo(1);
            assertThat(seen.add(compound)).isTrue();
        }
        // Each word of a compound key counts, and so does each half of an IPv6 address.
        final long base = SharedKeyTable.fingerprint(1, 2, 3);
        assertThat(SharedKeyTable.fingerprint(0, 2, 3)).isNotEqualTo(base);
        assertThat(SharedKeyTable.fingerprint(1, 0, 3)).isNotEqualTo(base);
        assertThat(SharedKeyTable.fingerprint(1, 2, 0)).isNotEqualTo(base);
        assertThat(SharedKeyTable.fingerprint(true, 1, 0)).isNotEqualTo(SharedKeyTable.fingerprint(true, 0, 1));
        assertThat(SharedKeyTable.fingerprint(true, 0, 0)).isNotEqualTo(SharedKeyTable.fingerprint(true, 0, 1));
    }

    @Test
    void shouldAddAKeyOnceAndFindItInItsBucketOnly()
    {
        final SharedKeyTable table = new SharedKeyTable(4);
        assertThat(table.ways()).isEqualTo(4 * SharedKeyTable.WAYS);
        assertThat(table.maxEntries()).isEqualTo(4 * SharedKeyTable.ENTRIES_PER_BUCKET);
        final long key = SharedKeyTable.fingerprint(false, 0, 7);
        assertThat(table.lookup(key, 2)).isEqualTo(SharedKeyTable.NOT_FOUND);
        final int way = table.acquire(key, 2, 5 * MS, 42);
        assertThat(way).isBetween(2 * SharedKeyTable.WAYS, 3 * SharedKeyTable.WAYS - 1);
        assertThat(table.acquire(key, 2, 9 * MS, 43)).isEqualTo(way);
        assertThat(table.lookup(key, 2)).isEqualTo(way);
        assertThat(table.lookup(key, 1)).isEqualTo(SharedKeyTable.NOT_FOUND);
        assertThat(table.payload(way)).isEqualTo(42);
        assertThat(table.lastUse(way)).isEqualTo(5 * MS);
        assertThat(table.lastMod(way)).isEqualTo(5 * MS);
        assertThat(table.liveKey(way)).isEqualTo(key);
        assertThat(table.liveKey(way + 1)).isEqualTo(SharedKeyTable.NOT_FOUND);
        assertThat(table.liveCopies(key, 2)).isEqualTo(1);
        assertThat(table.entries()).isEqualTo(1);
        assertThat(table.countLive()).isEqualTo(1);
        table.lastMod(way, 11 * MS);
        table.lastUse(way, 12 * MS);
        assertThat(table.lastMod(way)).isEqualTo(11 * MS);
        assertThat(table.lastUse(way)).isEqualTo(12 * MS);
    }

    @Test
    void shouldKeepAWholeKeyInTheRecordInsteadOfLastMod()
    {
        final SharedKeyTable table = new SharedKeyTable(4);
        final long fingerprint = SharedKeyTable.fingerprint(3, 0x2001_0DB8_0000_0001L, 0xFFL);
        final int way = table.acquire(fingerprint, 1, 100, 7, 0x2001_0DB8_0000_0001L, 0xFFL);
        assertThat(table.keyHigh(way)).isEqualTo(0x2001_0DB8_0000_0001L);
        assertThat(table.keyLow(way)).isEqualTo(0xFFL);
        assertThat(table.acquire(fingerprint, 1, 200, 9, 1, 2)).as("found: keeps its words").isEqualTo(way);
        assertThat(table.keyLow(way)).isEqualTo(0xFFL);
        assertThat(table.payload(way)).isEqualTo(7);

        final int other = table.acquire(SharedKeyTable.fingerprint(false, 0, 0x0A00_0001L), 1, 300, 1);
        assertThat(table.lastMod(other)).as("without words, lastMod as before").isEqualTo(300);
    }

    @Test
    void shouldStopAddingOnceTheTableHoldsMoreThanItsMaximum()
    {
        // One bucket: 32 ways, at most 16 entries; as in the kernel the 17th still gets in, the 18th not.
        final SharedKeyTable table = new SharedKeyTable(1);
        for (int i = 0; i < 17; i++)
        {
            assertThat(table.acquire(SharedKeyTable.fingerprint(false, 0, i), 0, 0, i)).as("key %d", i).isNotNegative();
        }
        assertThat(table.entries()).isEqualTo(17);
        assertThat(table.acquire(SharedKeyTable.fingerprint(false, 0, 17), 0, 0, 17))
            .isEqualTo(SharedKeyTable.NOT_FOUND);
        assertThat(table.countLive()).isEqualTo(17);
    }

    @Test
    void shouldRefuseAKeyWhenItsBucketHasNoWayLeft()
    {
        // 4 buckets allow 64 entries; 32 of them in bucket 0 fill its ways.
        final SharedKeyTable table = new SharedKeyTable(4);
        for (int i = 0; i < SharedKeyTable.WAYS; i++)
        {
            assertThat(table.acquire(SharedKeyTable.fingerprint(false, 0, i), 0, 0, i)).isEqualTo(i);
        }
        assertThat(table.acquire(SharedKeyTable.fingerprint(false, 0, 99), 0, 0, 99))
            .isEqualTo(SharedKeyTable.NOT_FOUND);
        assertThat(table.acquire(SharedKeyTable.fingerprint(false, 0, 99), 1, 0, 99)).isNotNegative();
    }

    @Test
    void shouldExpireExactlyAtTheIdleTimeAndReuseTheWay()
    {
        final SharedKeyTable table = new SharedKeyTable(2);
        final long first = SharedKeyTable.fingerprint(false, 0, 1);
        final long second = SharedKeyTable.fingerprint(false, 0, 2);
        final int firstWay = table.acquire(first, 1, 100 * MS, 1);
        final int secondWay = table.acquire(second, 1, 150 * MS, 2);
        assertThat(table.expireBucket(1, 150 * MS - 1, 50 * MS)).isZero();
        assertThat(table.expireBucket(1, 150 * MS, 50 * MS)).isEqualTo(1);
        assertThat(table.lookup(first, 1)).isEqualTo(SharedKeyTable.NOT_FOUND);
        assertThat(table.liveKey(firstWay)).isEqualTo(SharedKeyTable.NOT_FOUND);
        assertThat(table.liveCopies(first, 1)).isZero();
        assertThat(table.lookup(second, 1)).isEqualTo(secondWay);
        assertThat(table.entries()).isEqualTo(1);
        // A new key takes the retired way rather than a fresh one.
        final long third = SharedKeyTable.fingerprint(false, 0, 3);
        assertThat(table.acquire(third, 1, 200 * MS, 3)).isEqualTo(firstWay);
        assertThat(table.entries()).isEqualTo(2);
        assertThat(table.countLive()).isEqualTo(2);
    }

    @Test
    void shouldKeepBusyEntriesAndTellTheListenerWhatItRetires()
    {
        final SharedKeyTable table = new SharedKeyTable(1);
        table.acquire(SharedKeyTable.fingerprint(false, 0, 1), 0, 0, 0x10);
        table.acquire(SharedKeyTable.fingerprint(false, 0, 2), 0, 0, 0x01);
        final List<Long> retired = new ArrayList<>();
        assertThat(table.expireBucket(0, MS, 0, 0x0F, retired::add)).isEqualTo(1);
        assertThat(retired).containsExactly(0x10L);
        assertThat(table.entries()).isEqualTo(1);
        assertThat(table.lookup(SharedKeyTable.fingerprint(false, 0, 2), 0)).isNotNegative();
    }

    @Test
    void shouldRecordAUseOnlyWhenAMillisecondOrMoreHasPassed()
    {
        final SharedKeyTable table = new SharedKeyTable(1);
        final int way = table.acquire(SharedKeyTable.fingerprint(false, 0, 1), 0, 10 * MS, 0);
        table.touch(way, 11 * MS - 1);
        assertThat(table.lastUse(way)).isEqualTo(10 * MS);
        table.touch(way, 11 * MS);
        assertThat(table.lastUse(way)).isEqualTo(11 * MS);
    }

    @Test
    void shouldRetireEverythingWhenFlushed()
    {
        final SharedKeyTable table = new SharedKeyTable(2);
        for (int i = 0; i < 20; i++)
        {
            table.acquire(SharedKeyTable.fingerprint(false, 0, i), i & 1, Long.MAX_VALUE - i, i);
        }
        table.flush();
        assertThat(table.entries()).isZero();
        assertThat(table.countLive()).isZero();
    }
}
