package io.jvs.core.sched;

import io.jvs.core.concurrent.SharedKeyTable;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;

/**
 * lblc: locality-based least-connection (ip_vs_lblc.c), for cache clusters: a destination
 * address keeps going to the server that served it last.
 * <p>
 * The cached server is kept while it is AVAILABLE, has weight above 0 and is not locality-overloaded
 * (more active connections than its weight while some server is below half its weight). Its OVERLOAD
 * flag is not consulted on that path, as in the kernel. Otherwise wlc picks over all servers and the
 * entry is replaced. Entries of removed servers stay until replaced or expired.
 */
final class LocalityBasedScheduler extends AbstractLocalityScheduler
{
    LocalityBasedScheduler(final SchedulerSettings settings)
    {
        super(settings, settings.lblcExpirationNs());
    }

    @Override
    public void sysctls(final SchedulerSettings settings)
    {
        collectorExpirationNs(settings.lblcExpirationNs());
    }

    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        final RealServer[] servers = service.servers();
        final long fingerprint = fingerprintOf(flow);
        final int bucket = bucketOf(flow);
        final long nowNs = context.nowNs();
        final int way = table.lookup(fingerprint, bucket);
        if (way != SharedKeyTable.NOT_FOUND)
        {
            table.touch(way, nowNs);
            final RealServer cached = slots.get((int)table.payload(way));
            if (cached != null && cached.isAvailable() && cached.weight() > 0 &&
                !LeastConnection.isLocalityOverloaded(cached, servers))
            {
                return cached;
            }
        }
        final RealServer chosen = leastConnection(servers);
        if (chosen == null)
        {
            return null;
        }
        final int slot = chosen.schedulerSlot();
        if (slot != ServerSlots.NONE && isAlive())
        {
            final int entry = table.acquire(fingerprint, bucket, nowNs, slot);
            if (entry != SharedKeyTable.NOT_FOUND && table.payload(entry) != slot)
            {
                table.payload(entry, slot);
                table.touch(entry, nowNs);
            }
        }
        return chosen;
    }
}
