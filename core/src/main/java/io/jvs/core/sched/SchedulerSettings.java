package io.jvs.core.sched;

import java.util.concurrent.TimeUnit;

/**
 * What a scheduler instance is created with: the service's flags and the settings shared by all
 * services (the worker count and the lblc/lblcr sysctls, lblc_expiration and lblcr_expiration).
 *
 * @param flags             the service's {@code -b} flags.
 * @param workers           how many worker threads call schedule (rr and wrr keep a cursor each).
 * @param lblcExpirationNs  lblc_expiration: idle time after which a full check drops an entry.
 * @param lblcrExpirationNs lblcr_expiration: the same for lblcr, and its replica-set shrink period.
 */
public record SchedulerSettings(SchedulerFlags flags, int workers, long lblcExpirationNs, long lblcrExpirationNs)
{
    /** The kernel's default for both expirations: 24 hours. */
    public static final long DEFAULT_EXPIRATION_NS = TimeUnit.HOURS.toNanos(24);

    public SchedulerSettings
    {
        if (workers < 1)
        {
            throw new IllegalArgumentException("at least one worker: " + workers);
        }
    }

    /**
     * @param flags the service's flags.
     * @return settings for one worker with the kernel's default expirations.
     */
    public static SchedulerSettings of(final SchedulerFlags flags)
    {
        return new SchedulerSettings(flags, 1, DEFAULT_EXPIRATION_NS, DEFAULT_EXPIRATION_NS);
    }

    /**
     * @param flags the service's flags.
     * @return these settings with other flags.
     */
    public SchedulerSettings withFlags(final SchedulerFlags flags)
    {
        return new SchedulerSettings(flags, workers, lblcExpirationNs, lblcrExpirationNs);
    }
}
