package io.jvs.core.sched;

import io.jvs.core.concurrent.SharedKeyTable;

import java.util.concurrent.TimeUnit;

/**
 * The lblc/lblcr garbage collection timer (ip_vs_lblc_check_expire, ip_vs_lblcr_check_expire).
 * <p>
 * Every 60 s: on every 30th tick, a full check drops every entry unused for the expiration sysctl
 * (24 h by default) and the count restarts at 1; on other ticks, if the table holds more than its
 * maximum, entries unused for 6 minutes are dropped, bucket by bucket from the rover on, until
 * {@code 4/3} of the excess (at most half the maximum) are gone.
 */
final class LocalityCollector
{
    static final long CHECK_INTERVAL_NS = TimeUnit.SECONDS.toNanos(60);
    static final int COUNT_FOR_FULL_EXPIRATION = 30;
    static final long ENTRY_TIMEOUT_NS = TimeUnit.MINUTES.toNanos(6);

    private final SharedKeyTable table;
    /** Written by the control plane when the sysctl changes, read at each check. */
    private volatile long expirationNs;
    private int counter = 1;
    private int rover;
    private long nextCheckNs = Long.MIN_VALUE;

    LocalityCollector(final SharedKeyTable table, final long expirationNs)
    {
        this.table = table;
        this.expirationNs = expirationNs;
    }

    /**
     * @param nowNs the scheduling clock; the first call starts the 60 s timer.
     */
    void onTick(final long nowNs)
    {
        if (nextCheckNs == Long.MIN_VALUE)
        {
            nextCheckNs = nowNs + CHECK_INTERVAL_NS;
            return;
        }
        if (nowNs - nextCheckNs < 0)
        {
            return;
        }
        nextCheckNs = nowNs + CHECK_INTERVAL_NS;
        check(nowNs);
    }

    /**
     * One timer expiry.
     *
     * @param nowNs the time.
     */
    void check(final long nowNs)
    {
        final int mask = table.buckets() - 1;
        if (counter % COUNT_FOR_FULL_EXPIRATION == 0)
        {
            int bucket = rover;
            for (int i = 0; i < table.buckets(); i++)
            {
                bucket = (bucket + 1) & mask;
                table.expireBucket(bucket, nowNs, expirationNs);
            }
            rover = bucket;
            counter = 1;
            return;
        }
        final int entries = table.entries();
        final int max = table.maxEntries();
        if (entries <= max)
        {
            counter++;
            return;
        }
        int goal = Math.min((entries - max) * 4 / 3, max / 2);
        int bucket = rover;
        for (int i = 0; i < table.buckets(); i++)
        {
            bucket = (bucket + 1) & mask;
            goal -= table.expireBucket(bucket, nowNs, ENTRY_TIMEOUT_NS);
            if (goal <= 0)
            {
                break;
            }
        }
        rover = bucket;
    }

    int counter()
    {
        return counter;
    }

    /**
     * @param expirationNs the expiration sysctl's new value, which the next full check applies.
     */
    void expirationNs(final long expirationNs)
    {
        this.expirationNs = expirationNs;
    }
}
