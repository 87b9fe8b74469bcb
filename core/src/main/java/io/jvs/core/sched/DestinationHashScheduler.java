package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;

/**
 * dh: destination hashing (ip_vs_dh.c).
 * <p>
 * A table of 256 buckets (table-size=N for another power of two) is filled by walking the buckets while
 * cycling through the servers in list order, one bucket each, weights ignored. A connection goes to the
 * bucket of its destination address, hashed by the service's {@link AddressHash}; if that server is removed,
 * quiesced or overloaded there is no fallback. The table is rebuilt when a server is added or removed, not
 * when a weight changes, since dh ignores weights. Rebuilding remaps nearly every key: dh is not consistent
 * hashing.
 */
final class DestinationHashScheduler extends AbstractTableScheduler
{
    private final int bits;
    private final int buckets;
    private final AddressHash hash;
    private final boolean seedOverload;

    DestinationHashScheduler(final SchedulerSettings settings)
    {
        super(false);
        this.buckets = HashTables.buckets(settings.flags());
        this.bits = Integer.numberOfTrailingZeros(buckets);
        this.hash = AddressHash.of(settings.flags());
        this.seedOverload = settings.flags().seedOverload();
    }

    @Override
    protected int tableSize()
    {
        return buckets;
    }

    @Override
    protected RealServer[] build(final RealServer[] servers)
    {
        final RealServer[] next = new RealServer[buckets];
        if (servers.length > 0)
        {
            for (int i = 0; i < buckets; i++)
            {
                next[i] = servers[i % servers.length];
            }
        }
        return next;
    }

    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        final RealServer server = table[hash.bucket(flow.destinationFold(), bits)];
        if (server == null || !server.isAvailableAndNotOverloaded() || server.weight() <= 0 ||
            (seedOverload && HashTables.isAboveTwiceWeight(server)))
        {
            return null;
        }
        return server;
    }
}
