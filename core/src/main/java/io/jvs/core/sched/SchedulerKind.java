package io.jvs.core.sched;

import java.util.Locale;
import java.util.function.Function;

/**
 * Every scheduler jvs has, by the name ipvsadm's {@code -s} gives it.
 */
public enum SchedulerKind
{
    RR("rr", RoundRobinScheduler::new),
    WRR("wrr", WeightedRoundRobinScheduler::new),
    LC("lc", settings -> new LeastConnectionScheduler()),
    WLC("wlc", settings -> new WeightedLeastConnectionScheduler()),
    SED("sed", settings -> new ShortestExpectedDelayScheduler()),
    NQ("nq", settings -> new NeverQueueScheduler()),
    FO("fo", settings -> new WeightedFailoverScheduler()),
    OVF("ovf", settings -> new OverflowScheduler()),
    TWOS("twos", settings -> new PowerOfTwoChoicesScheduler()),
    LBLC("lblc", LocalityBasedScheduler::new),
    LBLCR("lblcr", LocalityReplicationScheduler::new),
    DH("dh", DestinationHashScheduler::new),
    SH("sh", SourceHashScheduler::new),
    MH("mh", MaglevScheduler::new);

    /** ipvsadm's default scheduler. */
    public static final String DEFAULT_NAME = "wlc";

    private final String schedulerName;
    private final Function<SchedulerSettings, Scheduler> factory;

    SchedulerKind(final String schedulerName, final Function<SchedulerSettings, Scheduler> factory)
    {
        this.schedulerName = schedulerName;
        this.factory = factory;
    }

    /**
     * @return the name, as given to ipvsadm's -s.
     */
    public String schedulerName()
    {
        return schedulerName;
    }

    /**
     * @param settings the service's flags and the shared settings.
     * @return a new scheduler instance for one service, not yet initialised.
     */
    public Scheduler create(final SchedulerSettings settings)
    {
        return factory.apply(settings);
    }

    /**
     * @param name a scheduler name such as "wrr".
     * @return the kind, or null when jvs has no scheduler of that name.
     */
    public static SchedulerKind byName(final String name)
    {
        for (final SchedulerKind kind : values())
        {
            if (kind.schedulerName.equals(name.toLowerCase(Locale.ROOT)))
            {
                return kind;
            }
        }
        return null;
    }
}
