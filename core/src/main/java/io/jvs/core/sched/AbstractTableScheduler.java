package io.jvs.core.sched;

import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;

/**
 * What dh, sh and mh share: a lookup table of servers, rebuilt whole on the control plane when the
 * servers change and published with one volatile store, so that schedule only reads it.
 */
abstract class AbstractTableScheduler implements Scheduler
{
    private final boolean rebuildOnUpdate;
    protected VirtualService service;
    protected volatile RealServer[] table;

    /**
     * @param rebuildOnUpdate whether a weight change rebuilds the table (sh and mh weigh their fill;
     *                        dh does not, and the kernel's dh has no upd_dest hook).
     */
    AbstractTableScheduler(final boolean rebuildOnUpdate)
    {
        this.rebuildOnUpdate = rebuildOnUpdate;
    }

    /**
     * @param servers the service's servers in list order.
     * @return a new table for them.
     */
    protected abstract RealServer[] build(RealServer[] servers);

    /**
     * @return the number of entries in the table.
     */
    protected abstract int tableSize();

    @Override
    public void init(final VirtualService service)
    {
        this.service = service;
        table = build(service.servers());
    }

    @Override
    public void done()
    {
        table = new RealServer[tableSize()];
    }

    @Override
    public void onServerAdded(final RealServer server)
    {
        table = build(service.servers());
    }

    @Override
    public void onServerRemoved(final RealServer server)
    {
        table = build(service.servers());
    }

    @Override
    public void onServerUpdated(final RealServer server)
    {
        if (rebuildOnUpdate)
        {
            table = build(service.servers());
        }
    }

    /**
     * @return a copy of the table, for tests and tools.
     */
    RealServer[] table()
    {
        return table.clone();
    }
}
