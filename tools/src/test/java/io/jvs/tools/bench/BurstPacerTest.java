package io.jvs.tools.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pacer of {@code bench txgen --rate}: bursts due at their own times from the start, a late one caught up at
 * once, a long stall not.
 */
class BurstPacerTest
{
    @Test
    void shouldMakeEachBurstDueAtItsOwnTime()
    {
        // 1 000 000 frames/s in bursts of 10: one every 10 us.
        final BurstPacer pacer = new BurstPacer(1_000, 1_000_000, 10);

        assertThat(pacer.untilDue(1_000)).isZero();
        pacer.sent();
        assertThat(pacer.untilDue(1_000)).isEqualTo(10_000);
        assertThat(pacer.untilDue(6_000)).isEqualTo(5_000);
        assertThat(pacer.untilDue(11_000)).isZero();
        pacer.sent();
        assertThat(pacer.untilDue(11_000)).isEqualTo(10_000);
    }

    @Test
    void shouldCatchUpALateBurstAtOnce()
    {
        final BurstPacer pacer = new BurstPacer(0, 1_000_000, 10);
        pacer.sent();
        // At 45 us the bursts due at 10, 20, 30 and 40 us are all due now; the one at 50 us is not.
        int due = 0;
        while (pacer.untilDue(45_000) <= 0)
        {
            pacer.sent();
            due++;
        }
        assertThat(due).isEqualTo(4);
        assertThat(pacer.untilDue(45_000)).isEqualTo(5_000);
    }

    @Test
    void shouldStartAfreshAfterAStallRatherThanSendTheBacklog()
    {
        final BurstPacer pacer = new BurstPacer(0, 1_000_000, 10);
        pacer.sent();
        // 5 ms behind, beyond MAX_LAG_NS: one burst now, the next a period later.
        assertThat(pacer.untilDue(5_000_000)).isZero();
        pacer.sent();
        assertThat(pacer.untilDue(5_000_000)).isEqualTo(10_000);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 7, 42, 1234, 98765})
    void shouldOfferTheRateOverAnySecondWhateverTheWakeUps(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final long rate = 1_000 + random.nextLong(2_000_000);
        final int burst = 1 + random.nextInt(64);
        final BurstPacer pacer = new BurstPacer(0, rate, burst);
        long frames = 0;
        long now = 0;
        while (now < 1_000_000_000L)
        {
            while (pacer.untilDue(now) <= 0)
            {
                pacer.sent();
                frames += burst;
            }
            // A sender that wakes early or late, by up to half a millisecond, never beyond the lag it catches up.
            now += 1 + random.nextLong(500_000);
        }
        assertThat((double)frames).isBetween(rate * 0.99 - burst, rate * 1.01 + 2.0 * burst);
    }

    @Test
    void shouldRefuseARateOrBurstBelowOne()
    {
        assertThatThrownBy(() -> new BurstPacer(0, 0, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new BurstPacer(0, 10, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
