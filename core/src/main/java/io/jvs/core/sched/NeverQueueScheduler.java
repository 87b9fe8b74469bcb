package io.jvs.core.sched;

import io.jvs.core.service.RealServer;

/**
 * nq: never queue (ip_vs_nq.c). The first usable server with no active connection wins at once;
 * otherwise the sed rule over the usable servers.
 */
final class NeverQueueScheduler extends CountedListScheduler
{
    @Override
    LeastConnection.Load load()
    {
        return LeastConnection.Load.NEVER_QUEUE;
    }

    @Override
    RealServer pass(final RealServer[] servers, final SchedulingContext context)
    {
        RealServer least = null;
        long leastOverhead = 0;
        long leastWeight = 0;
        for (final RealServer server : servers)
        {
            if (!server.isUsable())
            {
                continue;
            }
            final int active = server.activeConnections();
            if (active == 0)
            {
                return server;
            }
            final long overhead = active + 1L;
            final long weight = server.weight();
            if (least == null || leastOverhead * weight > overhead * leastWeight)
            {
                least = server;
                leastOverhead = overhead;
                leastWeight = weight;
            }
        }
        return least;
    }
}
