package io.jvs.core.sched;

import io.jvs.core.service.RealServer;

/**
 * sed: shortest expected delay (ip_vs_sed.c). Like wlc with {@code active + 1} as the load,
 * so inactive connections do not count and an idle heavy server is preferred to an idle light one.
 */
final class ShortestExpectedDelayScheduler extends CountedListScheduler
{
    @Override
    LeastConnection.Load load()
    {
        return LeastConnection.Load.EXPECTED_DELAY;
    }

    @Override
    RealServer pass(final RealServer[] servers, final SchedulingContext context)
    {
        RealServer least = null;
        long leastOverhead = 0;
        long leastWeight = 0;
        for (final RealServer server : servers)
        {
            if (least == null)
            {
                if (server.isUsable())
                {
                    least = server;
                    leastOverhead = server.activeConnections() + 1L;
                    leastWeight = server.weight();
                }
                continue;
            }
            if (server.isOverloaded())
            {
                continue;
            }
            final long overhead = server.activeConnections() + 1L;
            final long weight = server.weight();
            if (leastOverhead * weight > overhead * leastWeight)
            {
                least = server;
                leastOverhead = overhead;
                leastWeight = weight;
            }
        }
        return least;
    }
}
