package io.jvs.core.sched;

import io.jvs.core.service.VirtualService;

/**
 * Base of the schedulers that pick from the live list each time (fo, ovf, twos, and through
 * {@link CountedListScheduler} lc, wlc, sed and nq, which keep only what they took of the list). Their cost is one pass
 * over the servers' counters, or less.
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
