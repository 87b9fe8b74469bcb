package io.jvs.core.conn;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sweep skips blocks whose entries are all due later: whatever the inserts, timer changes (earlier as
 * well as later), removals and sweep budgets, a full pass must still remove every entry that was due, and
 * nothing else. Seeded random runs against a plain map of what each connection's timer says. (The plain
 * sweep, which looks at every slot, is the one {@code ConnectionTableTest} and the pipeline tests use.)
 */
class ConnectionTableSweepTest
{
    private static final int UDP = 17;

    @ParameterizedTest(name = "seed {0}, capacity {1}, v6 {2}")
    @CsvSource({"1, 64, false", "2, 1000, false", "3, 5000, false", "4, 1000, true", "5, 20000, false",
        "6, 3000, true", "7, 100, false", "8, 40000, false"})
    void shouldRemoveExactlyTheDueEntriesWhateverTheBlocksSkipped(final long seed, final int capacity,
        final boolean v6)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Map<Long, Integer> expiries = new HashMap<>();
        final long[] removedClient = {-1};
        final ConnectionTable table = new ConnectionTable(v6, capacity, (t, slot, evicted) ->
        {
            assertThat(evicted).isFalse();
            removedClient[0] = t.clientLow(slot);
            final Integer expiry = expiries.remove(t.clientLow(slot));
            assertThat(expiry).as("a connection the table knew").isNotNull();
        });
        table.skipIdleBlocks();
        int now = 1_000_000 + random.nextInt(1 << 20);
        for (int round = 0; round < 60; round++)
        {
            // New connections, up to three quarters full.
            final int inserts = random.nextInt(capacity / 4 + 1);
            for (int i = 0; i < inserts && expiries.size() < capacity * 3 / 4; i++)
            {
                final long client = random.nextLong(v6 ? 1L << 40 : 1L << 32);
                if (expiries.containsKey(client) || table.lookupForward(UDP, 0, client, 53, 0, 1, 53) >= 0)
                {
                    continue;
                }
                final int slot = table.insert(UDP, 0, client, 53, 0, 1, 53, now);
                assertThat(slot).isNotNegative();
                final int expiry = now + 1 + random.nextInt(3000);
                table.expiresTick(slot, expiry);
                expiries.put(client, expiry);
            }
            // Timers re-armed, some earlier than before (a state with a shorter timeout).
            for (final Long client : expiries.keySet().stream().filter(c -> random.nextInt(4) == 0).toList())
            {
                final int slot = table.lookupForward(UDP, 0, client, 53, 0, 1, 53);
                assertThat(slot).isNotNegative();
                final int expiry = now + 1 + random.nextInt(random.nextBoolean() ? 50 : 3000);
                table.expiresTick(slot, expiry);
                expiries.put(client, expiry);
            }
            now += random.nextInt(1500);
            // Part of a pass with an odd budget, then the rest of a pass and one more: every slot seen.
            final int budget = 1 + random.nextInt(table.slots());
            table.sweep(now, budget);
            table.sweep(now, table.slots());
            table.sweep(now, table.slots());
            for (final Map.Entry<Long, Integer> entry : expiries.entrySet())
            {
                assertThat(entry.getValue() - now).as("left in the table though due").isPositive();
                assertThat(table.lookupForward(UDP, 0, entry.getKey(), 53, 0, 1, 53)).isNotNegative();
            }
            assertThat(table.size()).isEqualTo(expiries.size());
        }
        assertThat(removedClient[0]).as("some entries expired").isNotEqualTo(-1);
    }

    /**
     * What the sweep skips (blocks with nothing due, empty slots) still counts against its budget slot by slot,
     * and an entry's block is bounded by its first real timer rather than the placeholder {@code insert} gives
     * it: so a table that skips removes the same entries, in the same order and in the same calls, as one that
     * looks at every slot, whatever the budgets. A replay's output then does not depend on what is skipped.
     */
    @ParameterizedTest(name = "seed {0}, capacity {1}, v6 {2}")
    @CsvSource({"11, 64, false", "12, 1000, false", "13, 5000, true", "14, 20000, false", "15, 3000, false",
        "16, 100, true"})
    void shouldRemoveWhatASweepOfEverySlotRemovesInTheSameCalls(final long seed, final int capacity,
        final boolean v6)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final List<Long> removedByPlain = new ArrayList<>();
        final List<Long> removedBySkipping = new ArrayList<>();
        final ConnectionTable plain = new ConnectionTable(v6, capacity,
            (t, slot, evicted) -> removedByPlain.add(t.clientLow(slot)));
        final ConnectionTable skipping = new ConnectionTable(v6, capacity,
            (t, slot, evicted) -> removedBySkipping.add(t.clientLow(slot)));
        skipping.skipIdleBlocks();
        final List<Long> clients = new ArrayList<>();
        int now = 1_000_000 + random.nextInt(1 << 20);
        for (int round = 0; round < 200; round++)
        {
            final int inserts = random.nextInt(capacity / 8 + 1);
            for (int i = 0; i < inserts && plain.size() < capacity * 3 / 4; i++)
            {
                final long client = random.nextLong(v6 ? 1L << 40 : 1L << 32);
                if (plain.lookupForward(UDP, 0, client, 53, 0, 1, 53) >= 0)
                {
                    continue;
                }
                // The first timer, as the pipeline gives it: some shorter than the placeholder, most longer.
                final int expiry = now + 1 + random.nextInt(random.nextInt(4) == 0 ? 200 : 3000);
                final boolean open = random.nextBoolean();
                clients.add(client);
                for (final ConnectionTable table : List.of(plain, skipping))
                {
                    // An insert follows the lookup that found nothing, in each table.
                    assertThat(table.lookupForward(UDP, 0, client, 53, 0, 1, 53)).isNegative();
                    final int slot = table.insert(UDP, 0, client, 53, 0, 1, 53, now);
                    assertThat(slot).isNotNegative();
                    if (open)
                    {
                        table.open(slot, 1, 0, 0, expiry);
                    }
                    else
                    {
                        table.expiresTick(slot, expiry);
                    }
                }
            }
            // Timers of entries made so far re-armed later, as the data path mostly re-arms them (the skipping table's
            // bounds stay where they were), or moved to any tick, earlier too (then its block's bound is lowered).
            for (int i = 0; i < inserts && !clients.isEmpty(); i++)
            {
                final long client = clients.get(random.nextInt(clients.size()));
                final int slot = plain.lookupForward(UDP, 0, client, 53, 0, 1, 53);
                if (slot >= 0)
                {
                    final int other = skipping.lookupForward(UDP, 0, client, 53, 0, 1, 53);
                    if (random.nextBoolean())
                    {
                        final int later = plain.expiresTick(slot) + random.nextInt(3000);
                        plain.expiresTick(slot, later);
                        skipping.expiresTick(other, later);
                    }
                    else
                    {
                        final int tick = now + random.nextInt(3000);
                        plain.expiresTick(slot, tick);
                        skipping.expiresTick(other, tick);
                    }
                }
            }
            now += random.nextInt(200);
            final int budget = 1 + random.nextInt(Math.max(1, plain.slots() / (1 + random.nextInt(8))));
            final int expiredPlain = plain.sweep(now, budget);
            final int expiredSkipping = skipping.sweep(now, budget);
            assertThat(expiredSkipping).as("expired in round %d", round).isEqualTo(expiredPlain);
            assertThat(removedBySkipping).as("removed, in order, by round %d", round).isEqualTo(removedByPlain);
            assertThat(skipping.size()).isEqualTo(plain.size());
        }
        assertThat(removedByPlain).as("entries removed").hasSizeGreaterThan(capacity / 4);
    }
}
