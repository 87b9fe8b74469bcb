package io.jvs.core.sched;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The workers' xorshift64* source (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", 2016: shifts 12, 25, 27 and the multiplier 0x2545F4914F6CDD1D), whose high 32
 * output bits are scaled to the bound by a multiply and shift.
 */
class XorShiftRandomTest
{
    @Test
    void shouldFollowXorshift64StarFromSeedOne()
    {
        // Worked by hand: from state 1, x ^= x >>> 12 leaves 1, x ^= x << 25 gives 0x2000001 and
        // x ^= x >>> 27 leaves it; 0x2000001 * 0x2545F4914F6CDD1D mod 2^64 = 0x47E4CE4B896CDD1D, whose high
        // word 0x47E4CE4B scaled to 2^30 is 0x11F93392. The next two outputs continue the same recurrence.
        final SchedulingContext.XorShiftRandom random = new SchedulingContext.XorShiftRandom(1);
        assertThat(random.nextInt(1 << 30)).isEqualTo(0x11F9_3392);
        assertThat(random.nextInt(1 << 30)).isEqualTo(0x2AF3_E9AA);
        assertThat(random.nextInt(1 << 30)).isEqualTo(0x2E74_4363);
    }

    @Test
    void shouldScaleTheHighWordToTheBound()
    {
        // 0x47E4CE4B * 1000 >>> 32 = 280.
        assertThat(new SchedulingContext.XorShiftRandom(1).nextInt(1000)).isEqualTo(280);
    }

    @Test
    void shouldReplaceSeedZeroByTheGoldenRatioConstant()
    {
        final SchedulingContext.XorShiftRandom zero = new SchedulingContext.XorShiftRandom(0);
        final SchedulingContext.XorShiftRandom golden = new SchedulingContext.XorShiftRandom(0x9E37_79B9_7F4A_7C15L);
        for (int i = 0; i < 3; i++)
        {
            assertThat(zero.nextInt(1 << 30)).isEqualTo(golden.nextInt(1 << 30));
        }
        assertThat(new SchedulingContext.XorShiftRandom(0).nextInt(1 << 30)).isEqualTo(0x0360_ECF8);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 42, -1, 0x1234_5678_9ABC_DEF0L})
    void shouldStayWithinTheBoundAndCoverItEvenly(final long seed)
    {
        final SchedulingContext.XorShiftRandom random = new SchedulingContext.XorShiftRandom(seed);
        final int[] counts = new int[10];
        for (int i = 0; i < 100_000; i++)
        {
            final int value = random.nextInt(10);
            assertThat(value).isBetween(0, 9);
            counts[value]++;
        }
        for (final int count : counts)
        {
            assertThat(count).isBetween(9_500, 10_500);
        }
    }
}
