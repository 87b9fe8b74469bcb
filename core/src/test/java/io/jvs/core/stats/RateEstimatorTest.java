package io.jvs.core.stats;

import org.junit.jupiter.api.Test;

import static io.jvs.core.stats.TrafficStatsDescriptor.CONNECTIONS;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_PACKETS;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_PACKETS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The estimator against ip_vs_est.c's arithmetic worked by hand: each two-second sample moves the scaled rate a
 * quarter of the way to the interval's ({@code rate = delta << 9} for counts, {@code << 4} for bytes), and reads
 * round by adding half the scale ({@code 0x1FF >> 10}, {@code 0xF >> 5}).
 */
class RateEstimatorTest
{
    @Test
    void shouldGiveAQuarterOfTheFirstIntervalsRateRounded()
    {
        final RateEstimator estimator = new RateEstimator();
        // 1000 connections, 3000 packets in, 2000 out, 1 500 000 bytes in, 100 000 out in the first 2 s.
        estimator.sample(new long[] {1000, 3000, 2000, 1_500_000, 100_000});
        // cps: (1000 << 9) >> 2 = 128000 scaled; (128000 + 511) >> 10 = 125 (a quarter of 500 per second).
        assertThat(estimator.rate(CONNECTIONS)).isEqualTo(125);
        // inpps: (3000 << 9) >> 2 = 384000; (384000 + 511) >> 10 = 375.
        assertThat(estimator.rate(IN_PACKETS)).isEqualTo(375);
        // outpps: 256000 -> 250.
        assertThat(estimator.rate(OUT_PACKETS)).isEqualTo(250);
        // inbps: (1500000 << 4) >> 2 = 6000000 scaled by 2^5; (6000000 + 15) >> 5 = 187500.
        assertThat(estimator.rate(IN_BYTES)).isEqualTo(187_500);
        // outbps: (100000 << 4) >> 2 = 400000; (400000 + 15) >> 5 = 12500.
        assertThat(estimator.rate(OUT_BYTES)).isEqualTo(12_500);
    }

    @Test
    void shouldMoveAQuarterOfTheWayEachSample()
    {
        final RateEstimator estimator = new RateEstimator();
        estimator.sample(new long[] {1000, 0, 0, 0, 0});
        estimator.sample(new long[] {2000, 0, 0, 0, 0});
        // 128000 + ((512000 - 128000) >> 2) = 224000 scaled; (224000 + 511) >> 10 = 219.
        assertThat(estimator.rate(CONNECTIONS)).isEqualTo(219);
    }

    @Test
    void shouldConvergeOnASteadyRate()
    {
        final RateEstimator estimator = new RateEstimator();
        final long[] totals = new long[5];
        for (int interval = 0; interval < 200; interval++)
        {
            totals[CONNECTIONS] += 1000;
            totals[IN_BYTES] += 3_000_000;
            estimator.sample(totals);
        }
        assertThat(estimator.rate(CONNECTIONS)).as("500 per second").isEqualTo(500);
        assertThat(estimator.rate(IN_BYTES)).as("1.5 MB per second").isEqualTo(1_500_000);
        assertThat(estimator.rate(IN_PACKETS)).isZero();
    }

    @Test
    void shouldDecayWhenTrafficStopsAndRoundSmallRemaindersAway()
    {
        final RateEstimator estimator = new RateEstimator();
        final long[] totals = {4, 0, 0, 0, 0};
        estimator.sample(totals);
        // (4 << 9) >> 2 = 512 scaled: (512 + 511) >> 10 = 0, below half a connection per second.
        assertThat(estimator.rate(CONNECTIONS)).isZero();
        totals[CONNECTIONS] = 8;
        estimator.sample(totals);
        // 512 + ((2048 - 512) >> 2) = 896: still rounds to 0; another steady sample: 896 + 288 = 1184 -> 1.
        totals[CONNECTIONS] = 12;
        estimator.sample(totals);
        assertThat(estimator.rate(CONNECTIONS)).isEqualTo(1);
        estimator.sample(totals);
        estimator.sample(totals);
        estimator.sample(totals);
        // 1184 -> 888 -> 666 -> 499 (each loses a quarter, the shift rounding towards minus infinity): 0.
        assertThat(estimator.rate(CONNECTIONS)).isZero();
    }

    @Test
    void shouldForgetRatesOnZeroAndMeasureFromThere()
    {
        final RateEstimator estimator = new RateEstimator();
        final long[] totals = {1000, 1000, 1000, 1000, 1000};
        estimator.sample(totals);
        estimator.zero(totals);
        assertThat(estimator.rate(CONNECTIONS)).isZero();
        assertThat(estimator.rate(OUT_BYTES)).isZero();
        estimator.sample(totals);
        assertThat(estimator.rate(IN_PACKETS)).as("no traffic since the zero").isZero();
        totals[IN_PACKETS] += 1000;
        estimator.sample(totals);
        assertThat(estimator.rate(IN_PACKETS)).as("only what came after").isEqualTo(125);
    }

    @Test
    void shouldKeepCountsAtTheFinerScaleSoThatASlowRiseReachesOneSoonerThanInBytes()
    {
        // The same deltas, 1 then 2 then 2 in each field, scaled as ip_vs_est.c scales each kind.
        // Counts (<< 9, read (x + 0x1FF) >> 10):
        //   512 -> 0 + (512 - 0) >> 2 = 128; 1024 -> 128 + (896 >> 2) = 352; 1024 -> 352 + (672 >> 2) = 520;
        //   (520 + 511) >> 10 = 1031 >> 10 = 1.
        // Bytes (<< 4, read (x + 0xF) >> 5):
        //   16 -> 0 + (16 >> 2) = 4; 32 -> 4 + (28 >> 2) = 11; 32 -> 11 + (21 >> 2) = 16;
        //   (16 + 15) >> 5 = 31 >> 5 = 0.
        // The per-second rate is the same figure either way (a quarter of the way to 1 per second); only the
        // precision the kernel keeps differs, and it shows in the rounding.
        final RateEstimator estimator = new RateEstimator();
        estimator.sample(new long[] {1, 1, 1, 1, 1});
        estimator.sample(new long[] {3, 3, 3, 3, 3});
        estimator.sample(new long[] {5, 5, 5, 5, 5});
        assertThat(estimator.rate(CONNECTIONS)).isEqualTo(1);
        assertThat(estimator.rate(IN_PACKETS)).isEqualTo(1);
        assertThat(estimator.rate(OUT_PACKETS)).isEqualTo(1);
        assertThat(estimator.rate(IN_BYTES)).isZero();
        assertThat(estimator.rate(OUT_BYTES)).isZero();
    }
}
