package io.jvs.core.sched;

import io.jvs.core.service.VirtualService;

/**
 * Base of the schedulers that keep no state of their own and pick by walking the live list each time
 * (lc, wlc, sed, nq, fo, ovf, twos). Their cost is one pass over the servers' counters.
 */
abstract class ListScheduler implements Scheduler
{
    protected VirtualService service;

    @Override
    public void init(final VirtualService service)
    {
        this.service = service;
    }

    @Override
    public boolean readsFlow()
    {
        return false;
    }
}
