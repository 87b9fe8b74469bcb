package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;

/**
 * mh: Maglev consistent hashing (ip_vs_mh.c; Eisenbud et al., NSDI 2016, section 3.4).
 * <p>
 * Each server gets a permutation of the M table slots from two hashes of its address and port
 * ({@code offset = h1 % M}, {@code skip = h2 % (M - 1) + 1}). The table is filled round-robin over
 * the servers in list order, each taking {@code turns} slots per round (its last non-zero weight
 * divided by the gcd, shifted so the largest fits 6 bits), each slot the next free one of its
 * permutation. A connection goes to slot {@code h1(source address + port) % M}; with mh-fallback an
 * unusable slot is followed by re-hashing with offsets. Because mh builds from the last non-zero
 * weight, quiescing a server does not reshuffle the table. All of that happens on the control plane;
 * schedule is one hash and one array read. M defaults to 4093 and may be any prime (table-size=N).
 */
final class MaglevScheduler extends AbstractTableScheduler
{
    /** The kernel's default table size (CONFIG_IP_VS_MH_TAB_INDEX = 12). */
    static final int DEFAULT_TABLE_SIZE = 4093;
    /** The largest table jvs builds (the kernel's largest choice). */
    static final int MAX_TABLE_SIZE = 131071;

    private static final long HASH1_KEY = 2654435761L;
    private static final long HASH2_KEY = 2654446892L;
    /** The kernel keeps turns within 6 bits (IP_VS_MH_TAB_BITS = 12 / 2). */
    private static final int TURN_BITS = 6;

    private final int tableSize;
    private final boolean fallback;
    private final boolean hashPort;

    MaglevScheduler(final SchedulerSettings settings)
    {
        super(true);
        final SchedulerFlags flags = settings.flags();
        this.tableSize = flags.tableSize() != 0 ? flags.tableSize() : DEFAULT_TABLE_SIZE;
        this.fallback = flags.fallback();
        this.hashPort = flags.port();
    }

    /**
     * @return the table size M.
     */
    @Override
    protected int tableSize()
    {
        return tableSize;
    }

    @Override
    protected RealServer[] build(final RealServer[] servers)
    {
        if (servers.length > tableSize)
        {
            throw new IllegalStateException(
                "mh: " + servers.length + " servers do not fit a table of " + tableSize + " slots");
        }
        final int count = servers.length;
        int gcd = 0;
        int maxWeight = 0;
        for (final RealServer server : servers)
        {
            final int weight = server.lastWeight();
            if (weight > 0)
            {
                gcd = gcd == 0 ? weight : Weights.gcd(gcd, weight);
                maxWeight = Math.max(maxWeight, weight);
            }
        }
        final RealServer[] next = new RealServer[tableSize];
        if (gcd == 0)
        {
            return next;
        }
        final int shift = Math.max(0, (32 - Integer.numberOfLeadingZeros(maxWeight / gcd)) - TURN_BITS);

        final int[] position = new int[count];
        final int[] skip = new int[count];
        final int[] turns = new int[count];
        for (int i = 0; i < count; i++)
        {
            final RealServer server = servers[i];
            final int key = server.port() + server.address().fold();
            position[i] = Integer.remainderUnsigned(HalfSipHash.hash(HASH1_KEY, HASH1_KEY, key), tableSize);
            skip[i] = Integer.remainderUnsigned(HalfSipHash.hash(HASH2_KEY, HASH2_KEY, key), tableSize - 1) + 1;
            final int lastWeight = server.lastWeight();
            final int shifted = (lastWeight / gcd) >> shift;
            turns[i] = shifted != 0 ? shifted : (lastWeight != 0 ? 1 : 0);
        }

        final boolean[] taken = new boolean[tableSize];
        int filled = 0;
        while (filled < tableSize)
        {
            for (int i = 0; i < count && filled < tableSize; i++)
            {
                for (int turn = 0; turn < turns[i] && filled < tableSize; turn++)
                {
                    int slot = position[i];
                    while (taken[slot])
                    {
                        slot += skip[i];
                        if (slot >= tableSize)
                        {
                            slot -= tableSize;
                        }
                    }
                    position[i] = slot;
                    taken[slot] = true;
                    next[slot] = servers[i];
                    filled++;
                }
            }
        }
        return next;
    }

    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        final RealServer[] lookup = this.table;
        final int key = (hashPort ? flow.sourcePort() : 0) + flow.sourceFold();
        final int home = Integer.remainderUnsigned(HalfSipHash.hash(HASH1_KEY, HASH1_KEY, key), tableSize);
        RealServer server = lookup[home];
        if (server == null)
        {
            return null;
        }
        if (server.isUsable())
        {
            return server;
        }
        if (!fallback)
        {
            return null;
        }
        for (int offset = 0; offset < tableSize; offset++)
        {
            final int rehashOffset = (int)((offset + (long)home) % tableSize);
            final int slot = Integer.remainderUnsigned(
                HalfSipHash.hash(HASH1_KEY, HASH1_KEY, rehashOffset + key), tableSize);
            server = lookup[slot];
            if (server == null)
            {
                return null;
            }
            if (server.isUsable())
            {
                return server;
            }
        }
        return null;
    }
}
