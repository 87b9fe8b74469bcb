package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;

/**
 * sh: source hashing (ip_vs_sh.c).
 * <p>
 * The fill is weighted: walking the 256 buckets, the current server takes a bucket and, once it has
 * taken {@code weight} of them, the next server in list order takes over (a weight-0 server still takes
 * one bucket per round, and lookups landing there fail or fall back). A connection goes to the bucket
 * {@code hash(sourcePort + sourceAddress)}, the port only with sh-port. With sh-fallback an unusable
 * bucket is followed by probing {@code (offset + 2 * ih) mod size} for offsets 0, 1, ..., as the kernel
 * does. Every server change, weights included, refills the table.
 */
final class SourceHashScheduler extends AbstractTableScheduler
{
    private final int bits;
    private final int buckets;
    private final AddressHash hash;
    private final boolean fallback;
    private final boolean hashPort;
    private final boolean seedOverload;

    SourceHashScheduler(final SchedulerSettings settings)
    {
        super(true);
        final SchedulerFlags flags = settings.flags();
        this.buckets = HashTables.buckets(flags);
        this.bits = Integer.numberOfTrailingZeros(buckets);
        this.hash = AddressHash.of(flags);
        this.fallback = flags.fallback();
        this.hashPort = flags.port();
        this.seedOverload = flags.seedOverload();
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
            int current = 0;
            int taken = 0;
            for (int i = 0; i < buckets; i++)
            {
                next[i] = servers[current];
                if (++taken >= servers[current].weight())
                {
                    current = (current + 1) % servers.length;
                    taken = 0;
                }
            }
        }
        return next;
    }

    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        final RealServer[] buckets = this.table;
        final int mask = this.buckets - 1;
        final int port = hashPort ? flow.sourcePort() : 0;
        final int home = hash.bucket(port + flow.sourceFold(), bits);
        RealServer server = buckets[home];
        if (server == null)
        {
            return null;
        }
        if (!HashTables.isUnavailable(server, seedOverload))
        {
            return server;
        }
        if (!fallback)
        {
            return null;
        }
        for (int offset = 0; offset < this.buckets; offset++)
        {
            // The kernel re-hashes with (offset + home) added to the hash, so probes start at 2 * home.
            server = buckets[(offset + home + home) & mask];
            if (server == null)
            {
                return null;
            }
            if (!HashTables.isUnavailable(server, seedOverload))
            {
                return server;
            }
        }
        return null;
    }
}
