package io.jvs.core.sched;

import io.jvs.core.service.RealServer;

/**
 * The weighted least-connection choice that wlc, lblc and lblcr share (ip_vs_wlc.c's ip_vs_wlc_schedule).
 */
final class LeastConnection
{
    /** The key's low bits: the server's index in the list, which breaks ties toward the earlier server. */
    private static final int INDEX_BITS = 16;
    private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;
    private static final int MAX_KEYED_SERVERS = 1 << INDEX_BITS;
    /** Overheads at or above this do not fit beside the index in a positive key. */
    private static final long KEYED_OVERHEAD_LIMIT = 1L << (Long.SIZE - 1 - INDEX_BITS);
    /** {@link #leastKeyOfOneWeight} result: the usable servers do not share one weight. */
    private static final long MIXED_WEIGHTS = -1;

    private LeastConnection()
    {
    }

    /**
     * The first usable server is the candidate; a later server that is not overloaded replaces it when
     * {@code candidateOverhead * weight > overhead * candidateWeight}, compared in 64 bits. Ties keep the
     * earlier server, and a later server of weight 0 can never win.
     *
     * @param servers the service's servers in list order.
     * @return the server with the least overhead per weight, or null when none is usable.
     */
    static RealServer weighted(final RealServer[] servers)
    {
        int i = 0;
        RealServer least = null;
        for (; i < servers.length; i++)
        {
            if (servers[i].isUsable())
            {
                least = servers[i];
                break;
            }
        }
        if (least == null)
        {
            return null;
        }
        long leastOverhead = least.overhead();
        long leastWeight = least.weight();
        for (i++; i < servers.length; i++)
        {
            final RealServer server = servers[i];
            if (server.isOverloaded())
            {
                continue;
            }
            final long overhead = server.overhead();
            final long weight = server.weight();
            if (productAbove(leastOverhead, weight, overhead, leastWeight))
            {
                least = server;
                leastOverhead = overhead;
                leastWeight = weight;
            }
        }
        return least;
    }

    /**
     * The same choice as {@link #weighted(RealServer[])}, taken by a shorter pass when the caller's hint says
     * every server of weight above 0 has the same weight, as a service's servers have unless the operator gave
     * them weights (ipvsadm's and keepalived's default is 1). With one weight, {@code candidateOverhead * weight
     * > overhead * candidateWeight} is {@code candidateOverhead > overhead}: the choice is the first usable
     * server of least overhead, the minimum of the keys {@code overhead << 16 | index}, taken without a branch
     * that depends on the counts. The pass checks the weights it reads, so a stale hint (the conductor edits a
     * weight while a worker schedules) costs the full pass, never a different choice.
     *
     * @param servers      the service's servers in list order.
     * @param equalWeights the hint: true when the servers of weight above 0 were last seen to share one weight.
     * @return the server with the least overhead per weight, or null when none is usable.
     */
    static RealServer weighted(final RealServer[] servers, final boolean equalWeights)
    {
        if (equalWeights && servers.length <= MAX_KEYED_SERVERS)
        {
            final long key = leastKeyOfOneWeight(servers);
            if (key != MIXED_WEIGHTS)
            {
                return key == Long.MAX_VALUE ? null : servers[(int)(key & INDEX_MASK)];
            }
        }
        return weighted(servers);
    }

    /**
     * {@code a * b > c * d}, exactly, for loads {@code a} and {@code c} (below 2^63) and weights {@code b} and
     * {@code d} (below 2^31): the least-connection schedulers' comparison of {@code a / d} with {@code c / b}. The
     * kernel multiplies in 64 bits an overhead that is an int; jvs's overheads are the sum of its workers' counts,
     * so above 2^32 the products are compared in 128 bits.
     */
    static boolean productAbove(final long a, final long b, final long c, final long d)
    {
        if (((a | c) >>> 32) == 0)
        {
            return a * b > c * d;
        }
        final long high = Math.multiplyHigh(a, b);
        final long otherHigh = Math.multiplyHigh(c, d);
        return high != otherHigh ? high > otherHigh : Long.compareUnsigned(a * b, c * d) > 0;
    }

    /**
     * @param servers a service's servers.
     * @return true when every server of weight above 0 has the same weight: the hint for
     *     {@link #weighted(RealServer[], boolean)}, taken on the control plane after each change of the list.
     */
    static boolean haveEqualWeights(final RealServer[] servers)
    {
        int weight = 0;
        for (final RealServer server : servers)
        {
            final int own = server.weight();
            if (own > 0)
            {
                if (weight != 0 && own != weight)
                {
                    return false;
                }
                weight = own;
            }
        }
        return true;
    }

    /**
     * @return the least {@code overhead << 16 | index} of the usable servers, {@link Long#MAX_VALUE} when none is
     *     usable, or {@link #MIXED_WEIGHTS} when their weights differ or an overhead is too large for the key.
     */
    private static long leastKeyOfOneWeight(final RealServer[] servers)
    {
        long least = Long.MAX_VALUE;
        int weight = 0;
        int mixed = 0;
        long overheads = 0;
        for (int i = 0; i < servers.length; i++)
        {
            final RealServer server = servers[i];
            final int own = server.weight();
            if (own > 0 && !server.isOverloaded())
            {
                if (weight == 0)
                {
                    weight = own;
                }
                mixed |= own ^ weight;
                final long overhead = server.overhead();
                overheads |= overhead;
                least = Math.min(least, overhead << INDEX_BITS | i);
            }
        }
        return mixed != 0 || overheads >= KEYED_OVERHEAD_LIMIT ? MIXED_WEIGHTS : least;
    }

    /**
     * The lblc/lblcr test of whether a cached server should give way (not the OVERLOAD flag): it has
     * more active connections than its weight while some server of the service has fewer than half
     * its weight ({@code 2 * active < weight}, the kernel's integer form).
     *
     * @param server  the cached server.
     * @param servers the service's servers.
     * @return true when the server should give way.
     */
    static boolean isLocalityOverloaded(final RealServer server, final RealServer[] servers)
    {
        if (server.activeConnections() <= server.weight())
        {
            return false;
        }
        for (final RealServer other : servers)
        {
            if ((long)other.activeConnections() * 2 < other.weight())
            {
                return true;
            }
        }
        return false;
    }
}
