package io.jvs.core.stats;

import static io.jvs.core.stats.TrafficStatsDescriptor.FIELDS;

/**
 * The kernel's rate estimator for one service or real server ({@code net/netfilter/ipvs/ip_vs_est.c}): every two
 * seconds it samples the five counters and moves each rate a quarter of the way towards the last interval's,
 * an exponentially weighted moving average with weight 1/4. Connection and packet rates are kept scaled by 2^10
 * and byte rates by 2^5 (the interval's difference shifted left by 9 and 4, which is the per-second rate of a
 * two-second interval so scaled), and read rounded as {@code ip_vs_read_estimator} rounds them, so
 * {@code ipvsadm --rate} prints the same figures a kernel director would for the same traffic.
 * <p>
 * Not thread-safe: one thread (the conductor) samples, zeroes and reads.
 */
public final class RateEstimator
{
    /** The sampling interval of {@code ip_vs_est.c}: two seconds. */
    public static final long INTERVAL_NS = 2_000_000_000L;

    private final long[] last = new long[FIELDS];
    private final long[] scaled = new long[FIELDS];

    /**
     * Takes one two-second sample.
     *
     * @param totals the counters now, by {@link TrafficStatsDescriptor} field id.
     */
    public void sample(final long[] totals)
    {
        for (int field = 0; field < FIELDS; field++)
        {
            final int shift = isBytes(field) ? 4 : 9;
            final long rate = (totals[field] - last[field]) << shift;
            last[field] = totals[field];
            scaled[field] += (rate - scaled[field]) >> 2;
        }
    }

    /**
     * Forgets the rates and counts from {@code totals} on, as {@code ip_vs_zero_estimator} does for
     * {@code ipvsadm -Z}.
     */
    public void zero(final long[] totals)
    {
        for (int field = 0; field < FIELDS; field++)
        {
            last[field] = totals[field];
            scaled[field] = 0;
        }
    }

    /**
     * @param field a {@link TrafficStatsDescriptor} field id: CONNECTIONS gives connections per second, the packet
     *              fields packets per second, the byte fields bytes per second.
     * @return the rate, rounded as {@code ip_vs_read_estimator} does.
     */
    public long rate(final int field)
    {
        return isBytes(field) ? (scaled[field] + 0xF) >> 5 : (scaled[field] + 0x1FF) >> 10;
    }

    private static boolean isBytes(final int field)
    {
        return field == TrafficStatsDescriptor.IN_BYTES || field == TrafficStatsDescriptor.OUT_BYTES;
    }
}
