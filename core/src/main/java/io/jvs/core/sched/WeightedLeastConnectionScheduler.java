package io.jvs.core.sched;

import io.jvs.core.service.RealServer;

/**
 * wlc: weighted least-connection, ipvsadm's default (ip_vs_wlc.c). The smallest
 * {@code (256 * active + inactive) / weight}, compared by cross-multiplying in 64 bits; ties keep the
 * earlier server. lblc and lblcr make the same choice through one of these for destinations their tables do not place.
 */
final class WeightedLeastConnectionScheduler extends CountedListScheduler
{
    @Override
    LeastConnection.Load load()
    {
        return LeastConnection.Load.OVERHEAD;
    }

    /** wlc's own passes for a list that is not keyed: the weighted tree, or the kernel's comparison of products. */
    @Override
    RealServer pass(final RealServer[] servers, final SchedulingContext context)
    {
        return LeastConnection.weighted(servers, counted, context);
    }

    /**
     * @param servers the service's servers, as the caller read them.
     * @return the choice among them, or null when none is usable.
     */
    RealServer choose(final RealServer[] servers)
    {
        return LeastConnection.weighted(servers, counted);
    }
}
