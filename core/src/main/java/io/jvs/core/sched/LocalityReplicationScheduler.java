package io.jvs.core.sched;

import io.jvs.core.concurrent.SharedKeyTable;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;

/**
 * lblcr: locality-based least-connection with replication (ip_vs_lblcr.c). A destination
 * address maps to a set of servers; the least loaded member serves it, and when that member is
 * locality-overloaded wlc adds another server to the set. A set with more than one member that has not
 * changed for lblcr_expiration loses its most loaded member.
 * <p>
 * Two kernel quirks are kept on purpose: the shrink runs before the overload decision, whatever its
 * outcome; and with equal loads the least and the most loaded member are the same, so the server
 * returned may be the one just erased from the set.
 */
final class LocalityReplicationScheduler extends AbstractLocalityScheduler
{
    /** lblcr_expiration: written by the control plane when the sysctl changes, read by the workers. */
    private volatile long expirationNs;

    LocalityReplicationScheduler(final SchedulerSettings settings)
    {
        super(settings, settings.lblcrExpirationNs());
        this.expirationNs = settings.lblcrExpirationNs();
    }

    @Override
    public void sysctls(final SchedulerSettings settings)
    {
        expirationNs = settings.lblcrExpirationNs();
        collectorExpirationNs(settings.lblcrExpirationNs());
    }

    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        final RealServer[] servers = service.servers();
        final long fingerprint = fingerprintOf(flow);
        final int bucket = bucketOf(flow);
        final long nowNs = context.nowNs();
        int way = table.lookup(fingerprint, bucket);
        if (way != SharedKeyTable.NOT_FOUND)
        {
            table.touch(way, nowNs);
            final long set = table.payload(way);
            final RealServer least = leastLoaded(set);
            if (ReplicaSet.hasSeveral(set) && nowNs - table.lastMod(way) > expirationNs)
            {
                shrink(way, nowNs);
            }
            if (least != null && !LeastConnection.isLocalityOverloaded(least, servers))
            {
                return least;
            }
        }
        final RealServer chosen = leastConnection(servers);
        if (chosen == null)
        {
            return null;
        }
        final int slot = chosen.schedulerSlot();
        if (slot == ServerSlots.NONE || !isAlive())
        {
            return chosen;
        }
        if (way == SharedKeyTable.NOT_FOUND)
        {
            way = table.acquire(fingerprint, bucket, nowNs, ReplicaSet.of(slot));
        }
        if (way != SharedKeyTable.NOT_FOUND)
        {
            addMember(way, slot, nowNs);
        }
        return chosen;
    }

    private void addMember(final int way, final int slot, final long nowNs)
    {
        long set;
        long updated;
        do
        {
            set = table.payload(way);
            updated = ReplicaSet.insert(set, slot);
            if (updated == set)
            {
                return;
            }
        }
        while (!table.compareAndSetPayload(way, set, updated));
        table.lastMod(way, nowNs);
    }

    private void shrink(final int way, final long nowNs)
    {
        long set;
        long updated;
        do
        {
            set = table.payload(way);
            if (ReplicaSet.size(set) <= 1)
            {
                return;
            }
            final RealServer most = mostLoaded(set);
            if (most == null)
            {
                return;
            }
            updated = ReplicaSet.erase(set, most.schedulerSlot());
        }
        while (!table.compareAndSetPayload(way, set, updated));
        table.lastMod(way, nowNs);
    }

    /**
     * Weighted least-connection over the set: the first AVAILABLE member of weight above 0 that is not
     * OVERLOAD starts; a later AVAILABLE, not OVERLOAD member replaces it on a strictly smaller load.
     */
    private RealServer leastLoaded(final long set)
    {
        RealServer least = null;
        long leastOverhead = 0;
        long leastWeight = 0;
        for (int lane = 0; lane < ReplicaSet.CAPACITY; lane++)
        {
            final int member = ReplicaSet.member(set, lane);
            if (member == 0)
            {
                break;
            }
            final RealServer server = slots.get(member);
            if (server == null || !server.isAvailableAndNotOverloaded())
            {
                continue;
            }
            final long overhead = server.overhead();
            final long weight = server.weight();
            if (least == null)
            {
                if (weight > 0)
                {
                    least = server;
                    leastOverhead = overhead;
                    leastWeight = weight;
                }
            }
            else if (LeastConnection.productAbove(leastOverhead, weight, overhead, leastWeight))
            {
                least = server;
                leastOverhead = overhead;
                leastWeight = weight;
            }
        }
        return least;
    }

    /**
     * Weighted most-connection over the set: the first member of weight above 0 starts (OVERLOAD and
     * AVAILABLE are not checked, as in the kernel); a later member of weight above 0 replaces it on a
     * strictly larger load.
     */
    private RealServer mostLoaded(final long set)
    {
        RealServer most = null;
        long mostOverhead = 0;
        long mostWeight = 0;
        for (int lane = 0; lane < ReplicaSet.CAPACITY; lane++)
        {
            final int member = ReplicaSet.member(set, lane);
            if (member == 0)
            {
                break;
            }
            final RealServer server = slots.get(member);
            if (server == null)
            {
                continue;
            }
            final long overhead = server.overhead();
            final long weight = server.weight();
            if (weight <= 0)
            {
                continue;
            }
            if (most == null || LeastConnection.productAbove(overhead, mostWeight, mostOverhead, weight))
            {
                most = server;
                mostOverhead = overhead;
                mostWeight = weight;
            }
        }
        return most;
    }
}
