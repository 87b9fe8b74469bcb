package io.jvs.core.sched;

import io.jvs.core.service.RealServer;

/**
 * lc: least-connection (ip_vs_lc.c). The usable server with the smallest
 * {@code 256 * active + inactive}; weights only decide usability; ties go to the earliest in the list.
 */
final class LeastConnectionScheduler extends CountedListScheduler
{
    @Override
    LeastConnection.Load load()
    {
        return LeastConnection.Load.CONNECTIONS;
    }

    @Override
    RealServer pass(final RealServer[] servers, final SchedulingContext context)
    {
        RealServer least = null;
        long leastOverhead = 0;
        for (final RealServer server : servers)
        {
            if (!server.isUsable())
            {
                continue;
            }
            final long overhead = server.overhead();
            if (least == null || overhead < leastOverhead)
            {
                least = server;
                leastOverhead = overhead;
            }
        }
        return least;
    }
}
