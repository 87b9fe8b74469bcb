package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;

/**
 * wlc: weighted least-connection, ipvsadm's default (ip_vs_wlc.c). The smallest
 * {@code (256 * active + inactive) / weight}, compared by cross-multiplying in 64 bits; ties keep the
 * earlier server. lblc and lblcr make the same choice through one of these for destinations their tables do not place.
 */
final class WeightedLeastConnectionScheduler extends ListScheduler
{
    /**
     * The servers with their counter slots and weights, as the list last was: the pass uses it only for the list it
     * was taken of, and its weights until the hook on the next edit replaces it (so a worker may see an edit a moment
     * late, see {@link LeastConnection#weighted(RealServer[], LeastConnection.CountedServers)}). Written by the
     * control plane's hooks.
     */
    private volatile LeastConnection.CountedServers counted = LeastConnection.CountedServers.NONE;

    @Override
    public void init(final VirtualService service)
    {
        super.init(service);
        counted = new LeastConnection.CountedServers(service.servers());
    }

    @Override
    public void onServerAdded(final RealServer server)
    {
        counted = new LeastConnection.CountedServers(service.servers());
    }

    @Override
    public void onServerRemoved(final RealServer server)
    {
        counted = new LeastConnection.CountedServers(service.servers());
    }

    @Override
    public void onServerUpdated(final RealServer server)
    {
        counted = new LeastConnection.CountedServers(service.servers());
    }

    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        return LeastConnection.weighted(service.servers(), counted, context);
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
