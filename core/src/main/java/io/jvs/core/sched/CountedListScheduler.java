package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;

/**
 * Base of the least-load schedulers (lc, wlc, sed, nq): each keeps what it last took of its service's list, the
 * servers with their counter slots, weights and scales ({@link LeastConnection.CountedServers}), taken again by the
 * control plane's hooks on every change of the list or of a weight, so that a choice reads only the servers' counter
 * slots and, within a worker's burst, one server's again.
 */
abstract class CountedListScheduler extends ListScheduler
{
    /**
     * The list as last taken: a pass uses it only for the list it was taken of, and its weights until the hook on the
     * next edit replaces it (so a worker may see an edit a moment late, see
     * {@link LeastConnection#weighted(RealServer[], LeastConnection.CountedServers)}). Written by the control plane's
     * hooks, read by the workers: one volatile read gives an immutable whole.
     */
    protected volatile LeastConnection.CountedServers counted = LeastConnection.CountedServers.NONE;

    /** @return what this scheduler's keys compare. */
    abstract LeastConnection.Load load();

    @Override
    public void init(final VirtualService service)
    {
        super.init(service);
        take();
    }

    @Override
    public void onServerAdded(final RealServer server)
    {
        take();
    }

    @Override
    public void onServerRemoved(final RealServer server)
    {
        take();
    }

    @Override
    public void onServerUpdated(final RealServer server)
    {
        take();
    }

    private void take()
    {
        counted = new LeastConnection.CountedServers(service.servers(), load());
    }

    @Override
    public final RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        final RealServer[] servers = service.servers();
        final LeastConnection.CountedServers taken = counted;
        final int position = LeastConnection.keyedChoice(servers, taken, context);
        if (position >= 0)
        {
            return taken.usableServers[position];
        }
        return position == LeastConnection.NONE_USABLE ? null : pass(servers, context);
    }

    /**
     * @param servers the service's servers, as the caller read them.
     * @param context the scheduling worker's context.
     * @return the scheduler's choice by a pass of its own, for the lists and loads the keys do not serve.
     */
    abstract RealServer pass(RealServer[] servers, SchedulingContext context);
}
