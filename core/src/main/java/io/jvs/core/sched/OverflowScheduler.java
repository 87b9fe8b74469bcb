package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;

/**
 * ovf: overflow-connection (ip_vs_ovf.c). The highest-weight usable server whose active
 * connections do not exceed its weight; when it fills, the next highest takes over. Counts active
 * connections only, which is why it suits TCP and not UDP.
 */
final class OverflowScheduler extends ListScheduler
{
    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        RealServer highest = null;
        int highestWeight = 0;
        for (final RealServer server : service.servers())
        {
            final int weight = server.weight();
            if (weight == 0 || server.isOverloaded() || server.activeConnections() > weight)
            {
                continue;
            }
            if (highest == null || weight > highestWeight)
            {
                highest = server;
                highestWeight = weight;
            }
        }
        return highest;
    }
}
