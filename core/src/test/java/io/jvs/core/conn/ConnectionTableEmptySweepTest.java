package io.jvs.core.conn;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sweep of an empty table looks at nothing and moves its cursor as a sweep of every slot would, budgets larger
 * than the table included: an entry that expires afterwards is removed by exactly the call that reaches its slot.
 */
class ConnectionTableEmptySweepTest
{
    private static final int UDP = 17;

    static LongStream seeds()
    {
        return LongStream.range(1, 51);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldLeaveTheCursorWhereASweepOfEverySlotWould(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final ConnectionTable table = new ConnectionTable(random.nextBoolean(), 16 + random.nextInt(200),
            (t, slot, evicted) -> { });
        final int slots = table.slots();
        final int now = 1_000_000;
        long cursor = 0;
        for (int round = 0; round < 20; round++)
        {
            // Empty: some sweeps, one of them often longer than the table.
            for (int sweeps = random.nextInt(4); sweeps > 0; sweeps--)
            {
                final int budget = 1 + random.nextInt(3 * slots);
                assertThat(table.sweep(now, budget)).isZero();
                cursor = (cursor + budget) % slots;
            }
            // One entry, already due: the sweep that stops just short of its slot leaves it; the next slot's removes
            // it.
            final long client = random.nextLong(1L << 32);
            assertThat(table.lookupForward(UDP, 0, client, 53, 0, 1, 53)).isNegative();
            final int slot = table.insert(UDP, 0, client, 53, 0, 1, 53, now);
            assertThat(slot).isNotNegative();
            table.expiresTick(slot, now - 1);
            final int distance = (int)((slot - cursor + slots) % slots);
            if (distance > 0)
            {
                assertThat(table.sweep(now, distance)).as("slots before the entry's").isZero();
            }
            assertThat(table.sweep(now, 1)).as("the entry's slot, %d from the cursor", distance).isEqualTo(1);
            assertThat(table.size()).isZero();
            // A removal looks at its slot again (a later entry may have shifted into it): the cursor stays there.
            cursor = slot;
        }
    }
}
