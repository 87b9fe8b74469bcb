package io.jvs.core.conn;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ConnectionTable#sweepAhead} names the lines the next sweeps read, each once: the lines of the entries a
 * sweep removes are named before it removes them, a table that skips idle blocks names no line of a block with
 * nothing due, and nothing is named beyond what was asked.
 */
class ConnectionTableSweepAheadTest
{
    private static final int UDP = 17;
    private static final int MAX_LINES = 256;
    private final UnsafeBuffer addresses = new UnsafeBuffer(BufferUtil.allocateDirectAligned(MAX_LINES * 8, 64));

    /**
     * Random tables, inserts and budgets: between two sweeps the pipeline asks, a burst at a time, for the lines the
     * next sweep will have due. Each call covers the lines from where the last stopped to as far as it was asked; it
     * names a covered line whenever the line holds an entry already due (every covered line, in a table that looks
     * at every slot, and none without an entry in one that skips idle blocks), nothing outside what it covers, and
     * no line twice before a sweep passes it; and every entry a sweep removes lies on a covered line.
     */
    @ParameterizedTest(name = "seed {0}, capacity {1}, v6 {2}, skip idle blocks {3}")
    @CsvSource({"1, 1000, false, false", "2, 1000, false, true", "3, 5000, true, false", "4, 5000, true, true",
        "5, 64, false, true", "6, 20000, false, true", "7, 3000, false, false", "8, 300, true, true"})
    void shouldNameEveryCoveredLineThatHoldsADueEntry(final long seed, final int capacity, final boolean v6,
        final boolean skipIdleBlocks)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Set<Long> named = new TreeSet<>();
        final Set<Long> covered = new TreeSet<>();
        final List<Long> uncoveredRemovals = new ArrayList<>();
        final int[] removals = {0};
        final boolean[] overrunning = {false};
        final ConnectionTable table = new ConnectionTable(v6, capacity, (t, slot, evicted) ->
        {
            removals[0]++;
            if (!overrunning[0] && !covered.contains(lineOf(t, slot)))
            {
                uncoveredRemovals.add(t.clientLow(slot));
            }
        });
        if (skipIdleBlocks)
        {
            table.skipIdleBlocks();
        }
        final int slotsPerLine = slotsPerLine(table);
        int now = 1_000;
        int namedLines = 0;
        for (int round = 0; round < 300; round++)
        {
            final int inserts = random.nextInt(capacity / 16 + 1);
            for (int i = 0; i < inserts && table.size() < capacity * 3 / 4; i++)
            {
                final long client = random.nextLong(1L << 32);
                if (table.lookupForward(UDP, 0, client, 53, 0, 1, 53) >= 0)
                {
                    continue;
                }
                final int slot = table.insert(UDP, 0, client, 53, 0, 1, 53, now);
                table.expiresTick(slot, now + 1 + random.nextInt(random.nextInt(3) == 0 ? 30 : 3000));
            }
            now += random.nextInt(20);
            // The next sweep's budget, asked for ahead of it in a few steps as bursts would, within what one call
            // may name.
            final int budget = 1 + random.nextInt(Math.min(table.slots() / 8, MAX_LINES / 2 * slotsPerLine));
            final int steps = 1 + random.nextInt(4);
            final int runLines = 1 + random.nextInt(8);
            for (int step = 1; step <= steps; step++)
            {
                final int target = budget * step / steps;
                final int cursor = table.sweepCursor();
                final int before = table.aheadOfSweep();
                final int count = table.sweepAhead(now, target, runLines, addresses.addressOffset(), MAX_LINES);
                final int after = table.aheadOfSweep();
                assertThat(after).as("covers what was asked").isGreaterThanOrEqualTo(target);
                final Set<Long> namedNow = new TreeSet<>();
                for (int i = 0; i < count; i++)
                {
                    final long line = addresses.getLong(i * 8);
                    assertThat(named.add(line)).as("named again before a sweep passed it").isTrue();
                    namedNow.add(line);
                }
                if (before >= target)
                {
                    assertThat(count).isZero();
                    continue;
                }
                final Set<Long> coveredNow = new TreeSet<>();
                final int first = cursor + before - (cursor + before) % slotsPerLine;
                for (int line = first; line < cursor + after; line += slotsPerLine)
                {
                    final int slot = line % table.slots();
                    final long address = table.slotAddress(slot);
                    coveredNow.add(address);
                    boolean holdsEntry = false;
                    boolean holdsDue = false;
                    for (int s = slot; s < slot + slotsPerLine; s++)
                    {
                        holdsEntry |= table.isUsed(s);
                        holdsDue |= table.isUsed(s) && table.expiresTick(s) - now <= 0;
                    }
                    if (!skipIdleBlocks || holdsDue)
                    {
                        assertThat(namedNow).as("line of slot %d", slot).contains(address);
                    }
                    if (skipIdleBlocks && !holdsEntry)
                    {
                        assertThat(namedNow).as("line of slot %d", slot).doesNotContain(address);
                    }
                }
                assertThat(coveredNow).containsAll(namedNow);
                covered.addAll(coveredNow);
                namedLines += count;
            }
            // Now and then the sweep goes further than was asked for (a longer pause than expected), past the lines
            // named, and the naming starts again where it stopped, in the middle of a line.
            final int from = table.sweepCursor();
            final int overrun = random.nextInt(4) == 0 ? 1 + random.nextInt(2 * slotsPerLine + 5) : 0;
            overrunning[0] = overrun > 0;
            table.sweep(now, budget + overrun);
            forgetPassed(named, table, from, table.sweepCursor());
            forgetPassed(covered, table, from, table.sweepCursor());
        }
        assertThat(removals[0]).as("some entries expired").isPositive();
        assertThat(namedLines).as("some lines named").isPositive();
        assertThat(uncoveredRemovals).as("entries removed from lines not covered").isEmpty();
    }

    @Test
    void shouldNameEveryLineWithAnEntryOfADueBlockOnceAndNoneWhenNothingIsDue()
    {
        final ConnectionTable table = new ConnectionTable(false, 4096, (t, slot, evicted) -> { });
        table.skipIdleBlocks();
        final int now = 100;
        final Set<Long> lines = new TreeSet<>();
        final SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 300; i++)
        {
            final long client = random.nextLong(1L << 32);
            assertThat(table.lookupForward(UDP, 0, client, 53, 0, 1, 53)).isNegative();
            final int slot = table.insert(UDP, 0, client, 53, 0, 1, 53, now);
            table.expiresTick(slot, now + 10);
            lines.add(lineOf(table, slot));
        }
        final Set<Long> named = new TreeSet<>();
        int count;
        // A few lines at a time (and a few times that many looked at), each call going on where the last stopped.
        int calls = 0;
        while (table.aheadOfSweep() < table.slots())
        {
            count = table.sweepAhead(now + 20, table.slots(), 2, addresses.addressOffset(), 6);
            assertThat(++calls).isLessThan(table.slots());
            assertThat(count).isLessThanOrEqualTo(6);
            for (int i = 0; i < count; i++)
            {
                assertThat(named.add(addresses.getLong(i * 8))).isTrue();
            }
        }
        assertThat(named).isEqualTo(lines);

        // Swept with nothing due: each block's bound is now its entries' expiry, so until then nothing is worth naming
        // but the lines of the block the sweep stopped in, whose bound it has not finished.
        table.sweep(now, table.slots());
        assertThat(table.size()).isEqualTo(300);
        final int lastSwept = (table.sweepCursor() - 1 + table.slots()) % table.slots();
        final int stoppedIn = lastSwept - lastSwept % ConnectionTable.BLOCK_SLOTS;
        count = table.sweepAhead(now, table.slots(), 2, addresses.addressOffset(), MAX_LINES);
        for (int i = 0; i < count; i++)
        {
            assertThat(addresses.getLong(i * 8)).isBetween(table.slotAddress(stoppedIn),
                table.slotAddress(stoppedIn + ConnectionTable.BLOCK_SLOTS - 1));
        }
        table.sweep(now, table.slots());
        assertThat(table.sweepAhead(now + 20, table.slots(), 2, addresses.addressOffset(), MAX_LINES))
            .isGreaterThan(count);

        // Everything expired and swept (a removal takes a slot of the budget too): an empty table names nothing.
        table.sweep(now + 20, 2 * table.slots());
        assertThat(table.size()).isZero();
        assertThat(table.sweepAhead(now + 20, table.slots(), 2, addresses.addressOffset(), MAX_LINES)).isZero();
    }

    @Test
    void shouldGoARunOfLinesFurtherThanAskedWhenTheCoverFallsShort()
    {
        final ConnectionTable table = new ConnectionTable(false, 4096, (t, slot, evicted) -> { });
        assertThat(table.lookupForward(UDP, 0, 7, 53, 0, 1, 53)).isNegative();
        final int slot = table.insert(UDP, 0, 7, 53, 0, 1, 53, 0);
        table.expiresTick(slot, 1_000);
        // A table that looks at every slot reads every line: 40 slots and a run of 8 lines further are slots 0 to 55,
        // 28 lines.
        assertThat(table.sweepAhead(5, 40, 8, addresses.addressOffset(), MAX_LINES)).isEqualTo(28);
        assertThat(addresses.getLong(0)).isEqualTo(table.slotAddress(0));
        assertThat(addresses.getLong(27 * 8)).isEqualTo(table.slotAddress(54));
        assertThat(table.sweepAhead(5, 56, 8, addresses.addressOffset(), MAX_LINES)).isZero();
        // A sweep of 30 slots: the cover reaches 26 slots past its cursor. Asked for 48, it goes on from slot 56 to 30
        // + 48 + 16 = 94: 19 lines.
        table.sweep(5, 30);
        assertThat(table.sweepAhead(5, 48, 8, addresses.addressOffset(), MAX_LINES)).isEqualTo(19);
        assertThat(addresses.getLong(0)).isEqualTo(table.slotAddress(56));
        assertThat(addresses.getLong(18 * 8)).isEqualTo(table.slotAddress(92));
        // No more than asked at once, and on from there at the next call.
        table.sweep(5, table.slots());
        assertThat(table.sweepAhead(5, table.slots(), 8, addresses.addressOffset(), 10)).isEqualTo(10);
        assertThat(table.sweepAhead(5, table.slots(), 8, addresses.addressOffset(), 10)).isEqualTo(10);
        assertThat(addresses.getLong(0)).isEqualTo(table.slotAddress(table.sweepCursor() + 20));
    }

    private static int slotsPerLine(final ConnectionTable table)
    {
        return (int)(64 / (table.slotAddress(1) - table.slotAddress(0)));
    }

    private static long lineOf(final ConnectionTable table, final int slot)
    {
        final long address = table.slotAddress(slot);
        return address - (address - table.slotAddress(0)) % 64;
    }

    /**
     * Drops the lines a sweep from slot {@code from} to {@code to} passed: they may be named again when it comes
     * round. The line it stopped in stays.
     */
    private static void forgetPassed(final Set<Long> named, final ConnectionTable table, final int from, final int to)
    {
        final int slotsPerLine = slotsPerLine(table);
        final int end = to - to % slotsPerLine;
        for (int slot = from - from % slotsPerLine; slot != end; slot = (slot + slotsPerLine) % table.slots())
        {
            named.remove(table.slotAddress(slot));
        }
    }
}
