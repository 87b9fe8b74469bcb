package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;

/**
 * wlc: weighted least-connection, ipvsadm's default (ip_vs_wlc.c, spec 4). The smallest
 * {@code (256 * active + inactive) / weight}, compared by cross-multiplying in 64 bits; ties keep the
 * earlier server.
 */
final class WeightedLeastConnectionScheduler extends ListScheduler
{
    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        return LeastConnection.weighted(service.servers());
    }
}
