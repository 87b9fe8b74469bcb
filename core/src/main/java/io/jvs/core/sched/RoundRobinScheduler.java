package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;

/**
 * rr: round-robin (ip_vs_rr.c).
 * <p>
 * From the server after the cursor, scan to the end of the list for a server that is not overloaded
 * and has weight above 0; if none, wrap to the head and scan up to and including the cursor's own
 * server. Each worker has its own cursor, so that workers share no lock; with one worker the sequence is the
 * kernel's, and with several each worker's own sequence is.
 * A removed server's cursor moves to its predecessor, so nobody is skipped; a new server at the head is
 * reached at the next wrap.
 */
final class RoundRobinScheduler implements Scheduler
{
    private final WorkerCursor[] cursors;
    private VirtualService service;

    RoundRobinScheduler(final SchedulerSettings settings)
    {
        this.cursors = WorkerCursor.forWorkers(settings.workers());
    }

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

    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        final RealServer[] list = service.servers();
        final WorkerCursor cursor = cursors[context.workerIndex()];
        if (cursor.isStale(list))
        {
            cursor.follow(list);
        }
        final int last = cursor.index();
        for (int i = last + 1; i < list.length; i++)
        {
            if (list[i].isUsable())
            {
                cursor.index(i);
                return list[i];
            }
        }
        for (int i = 0; i <= last; i++)
        {
            if (list[i].isUsable())
            {
                cursor.index(i);
                return list[i];
            }
        }
        return null;
    }
}
