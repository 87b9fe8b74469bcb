package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;

/**
 * twos: power of two choices (ip_vs_twos.c). Two servers drawn at random in proportion to their
 * weights; the one with less {@code overhead / weight} wins, the first draw on a tie. The random source
 * is the worker's own, injected through the context.
 */
final class PowerOfTwoChoicesScheduler extends ListScheduler
{
    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        final RealServer[] servers = service.servers();
        long totalWeight = 0;
        for (final RealServer server : servers)
        {
            if (server.isUsable())
            {
                totalWeight += server.weight();
            }
        }
        if (totalWeight == 0)
        {
            return null;
        }
        // The kernel draws from [0, total] inclusive, so the bound is total + 1. Its total is an int, which weights
        // near INT_MAX overflow; jvs's is a long, drawn in full (the same single draw as before within an int).
        long draw1 = context.random().nextLong(totalWeight + 1);
        long draw2 = context.random().nextLong(totalWeight + 1);
        RealServer choice1 = null;
        RealServer choice2 = null;
        for (final RealServer server : servers)
        {
            if (!server.isUsable())
            {
                continue;
            }
            final int weight = server.weight();
            draw1 -= weight;
            draw2 -= weight;
            if (draw1 <= 0 && choice1 == null)
            {
                choice1 = server;
            }
            if (draw2 <= 0 && choice2 == null)
            {
                choice2 = server;
            }
            if (choice1 != null && choice2 != null)
            {
                break;
            }
        }
        if (choice1 == null)
        {
            return choice2;
        }
        if (choice2 != null &&
            LeastConnection.productAbove(choice1.overhead(), choice2.weight(), choice2.overhead(), choice1.weight()))
        {
            return choice2;
        }
        return choice1;
    }
}
