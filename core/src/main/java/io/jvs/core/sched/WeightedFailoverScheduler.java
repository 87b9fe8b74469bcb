package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;

/**
 * fo: weighted fail-over (ip_vs_fo.c). Always the usable server of highest weight; ties go to
 * the earliest in the list, so traffic moves only when that server is quiesced or overloaded.
 */
final class WeightedFailoverScheduler extends ListScheduler
{
    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        RealServer highest = null;
        int highestWeight = 0;
        for (final RealServer server : service.servers())
        {
            final int weight = server.weight();
            if (!server.isOverloaded() && weight > highestWeight)
            {
                highest = server;
                highestWeight = weight;
            }
        }
        return highest;
    }
}
