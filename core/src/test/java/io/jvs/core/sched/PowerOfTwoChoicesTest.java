package io.jvs.core.sched;

import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * twos (ip_vs_twos.c): both draws come from [0, total weight of the usable servers] inclusive; a draw lands
 * on the first usable server in list order at which the running weight reaches it; the less loaded choice
 * ({@code overhead / weight}) wins, the first draw on a tie and when both draws land on the same server.
 */
class PowerOfTwoChoicesTest
{
    /** A random source replaying given draws, recording the bounds it was asked for. */
    private static final class ScriptedRandom implements SchedulingContext.RandomSource
    {
        private final List<Integer> bounds = new ArrayList<>();
        private final int[] draws;
        private int next;

        ScriptedRandom(final int... draws)
        {
            this.draws = draws;
        }

        @Override
        public int nextInt(final int bound)
        {
            bounds.add(bound);
            final int draw = draws[next++ % draws.length];
            assertThat(draw).as("scripted draw within [0, %d)", bound).isBetween(0, bound - 1);
            return draw;
        }
    }

    /** Which server each draw of [0, 6] lands on for "A2 B0 C3 D1 E4" with E overloaded. */
    private static final String LANDING = "AAACCCD";

    @Test
    void shouldDrawOverATotalWeightBeyondAnInt()
    {
        // Two servers of INT_MAX: a draw capped at an int's range would land on A every time.
        final ServiceFixture fixture = ServiceFixture.of("twos", SchedulerFlags.NONE,
            "A" + Integer.MAX_VALUE + " B" + Integer.MAX_VALUE, new SchedulingContext(0, 7L));
        int chosenB = 0;
        for (int i = 0; i < 2000; i++)
        {
            chosenB += fixture.pick() == fixture.server('B') ? 1 : 0;
        }
        // With equal loads the first draw's server wins: B about half the time.
        assertThat(chosenB).isBetween(900, 1100);
    }

    @Test
    void shouldDrawEveryLongBelowTheBoundAlikeAndWithinAnIntAsOneIntDraw()
    {
        final SchedulingContext.RandomSource longs = new SchedulingContext.XorShiftRandom(11L);
        final SchedulingContext.RandomSource ints = new SchedulingContext.XorShiftRandom(11L);
        for (int i = 0; i < 100; i++)
        {
            assertThat(longs.nextLong(1000)).isEqualTo(ints.nextInt(1000));
        }
        final long bound = 3L << 31;
        final int[] thirds = new int[3];
        for (int i = 0; i < 30_000; i++)
        {
            final long value = longs.nextLong(bound);
            assertThat(value).isBetween(0L, bound - 1);
            thirds[(int)(value / (1L << 31))]++;
        }
        for (final int count : thirds)
        {
            assertThat(count).isBetween(9_400, 10_600);
        }
    }

    @Test
    void shouldDrawTwiceFromZeroToTheTotalWeightOfTheUsableServers()
    {
        final ScriptedRandom random = new ScriptedRandom(0);
        final ServiceFixture fixture = fixture(random);
        fixture.pick();
        // A2 + C3 + D1 = 6: B has no weight and E is overloaded.
        assertThat(random.bounds).containsExactly(7, 7);
    }

    @Test
    void shouldLandEachDrawOnTheServerWhoseRunningWeightReachesIt()
    {
        for (int first = 0; first <= 6; first++)
        {
            for (int second = 0; second <= 6; second++)
            {
                final ServiceFixture fixture = fixture(new ScriptedRandom(first, second));
                // Equal loads (no connections): the first draw wins.
                assertThat(ServiceFixture.name(fixture.pick())).as("draws %d, %d", first, second)
                    .isEqualTo(String.valueOf(LANDING.charAt(first)));
            }
        }
    }

    @Test
    void shouldPreferTheLessLoadedChoiceWhicheverDrawFoundIt()
    {
        for (final int[] draws : new int[][] {{0, 3}, {3, 0}, {6, 1}, {2, 6}})
        {
            final ServiceFixture fixture = fixture(new ScriptedRandom(draws));
            final RealServer first = fixture.server(LANDING.charAt(draws[0]));
            final RealServer second = fixture.server(LANDING.charAt(draws[1]));
            first.bindConnection(false);
            assertThat(fixture.pick()).as("draws %d, %d", draws[0], draws[1]).isSameAs(second);
        }
    }

    @Test
    void shouldCompareLoadsPerUnitOfWeight()
    {
        // C (weight 3) with 2 active against A (weight 2) with 1: 512/3 > 256/2, so A.
        final ServiceFixture fixture = fixture(new ScriptedRandom(3, 0));
        fixture.server('C').bindConnection(false);
        fixture.server('C').bindConnection(false);
        fixture.server('A').bindConnection(false);
        assertThat(ServiceFixture.name(fixture.pick())).isEqualTo("A");
        // And with C at 1 active: 256/3 < 256/2, so C.
        final ServiceFixture other = fixture(new ScriptedRandom(0, 3));
        other.server('C').bindConnection(false);
        other.server('A').bindConnection(false);
        assertThat(ServiceFixture.name(other.pick())).isEqualTo("C");
    }

    @Test
    void shouldReturnTheServerBothDrawsLandOnHoweverLoaded()
    {
        final ServiceFixture fixture = fixture(new ScriptedRandom(4, 5));
        for (int i = 0; i < 100; i++)
        {
            fixture.server('C').bindConnection(false);
        }
        assertThat(ServiceFixture.name(fixture.pick())).isEqualTo("C");
    }

    @Test
    void shouldFindNoServerWhenNoneIsUsable()
    {
        final ScriptedRandom random = new ScriptedRandom(0);
        final ServiceFixture fixture = ServiceFixture.of("twos", SchedulerFlags.NONE, "A0 B0",
            new SchedulingContext(0, random));
        assertThat(fixture.pick()).isNull();
        assertThat(random.bounds).isEmpty();
    }

    private static ServiceFixture fixture(final ScriptedRandom random)
    {
        final ServiceFixture fixture = ServiceFixture.of("twos", SchedulerFlags.NONE, "A2 B0 C3 D1 E4",
            new SchedulingContext(0, random));
        fixture.service.setThresholds(fixture.server('E'), 1, 0);
        fixture.server('E').bindConnection(false);
        assertThat(fixture.server('E').isUsable()).isFalse();
        return fixture;
    }
}
