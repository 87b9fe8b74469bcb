package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;

/**
 * wlc: weighted least-connection, ipvsadm's default (ip_vs_wlc.c, spec 4). The smallest
 * {@code (256 * active + inactive) / weight}, compared by cross-multiplying in 64 bits; ties keep the
 * earlier server.
 */
final class WeightedLeastConnectionScheduler extends ListScheduler
{
    /**
     * Whether the servers shared one weight when the list last changed: only a hint, which the pass checks against
     * the weights it reads (so a worker may see it late). Written by the control plane's hooks.
     */
    private volatile boolean equalWeights;

    @Override
    public void init(final VirtualService service)
    {
        super.init(service);
        equalWeights = LeastConnection.haveEqualWeights(service.servers());
    }

    @Override
    public void onServerAdded(final RealServer server)
    {
        equalWeights = LeastConnection.haveEqualWeights(service.servers());
    }

    @Override
    public void onServerRemoved(final RealServer server)
    {
        equalWeights = LeastConnection.haveEqualWeights(service.servers());
    }

    @Override
    public void onServerUpdated(final RealServer server)
    {
        equalWeights = LeastConnection.haveEqualWeights(service.servers());
    }

    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        return LeastConnection.weighted(service.servers(), equalWeights);
    }
}
