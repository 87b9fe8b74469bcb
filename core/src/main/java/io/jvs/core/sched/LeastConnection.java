package io.jvs.core.sched;

import io.jvs.core.service.RealServer;
import org.agrona.UnsafeApi;

import java.util.Arrays;

import static io.jvs.core.service.ConnectionCountersDescriptor.FLAGS_OFFSET;
import static io.jvs.core.service.ConnectionCountersDescriptor.FLAG_OVERLOAD;

/**
 * The weighted least-connection choice that wlc, lblc and lblcr share (ip_vs_wlc.c's ip_vs_wlc_schedule), and the
 * keyed pass and burst tree that lc, sed and nq take too, each with its own load ({@link Load}).
 */
final class LeastConnection
{
    /**
     * What a least-load scheduler compares, per weight: the server of least load per weight wins, the earlier one on
     * a tie, among the usable servers not overloaded.
     */
    enum Load
    {
        /** wlc (and lblc, lblcr): the overhead, {@code 256 * active + inactive}, per weight (ip_vs_wlc.c). */
        OVERHEAD,
        /** lc: the overhead, weights deciding only which servers are usable (ip_vs_lc.c). */
        CONNECTIONS,
        /** sed: {@code active + 1} per weight (ip_vs_sed.c). */
        EXPECTED_DELAY,
        /** nq: the first server without an active connection, or else sed's choice (ip_vs_nq.c). */
        NEVER_QUEUE
    }

    /**
     * {@link #keyedChoice} result: the list is not keyed, or a load does not fit a key: the scheduler's own pass
     * decides.
     */
    static final int NOT_KEYED = -1;

    /** The key's low bits: the server's index in the list, which breaks ties toward the earlier server. */
    private static final int INDEX_BITS = 16;
    private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;
    private static final int MAX_KEYED_SERVERS = 1 << INDEX_BITS;
    /** Scaled overheads at or above this do not fit beside the index in a positive key. */
    private static final long KEYED_OVERHEAD_LIMIT = 1L << (Long.SIZE - 1 - INDEX_BITS);
    /**
     * The largest scale a server of a keyed list may have ({@link CountedServers#keyed}): overheads below 2^31 (eight
     * million active connections a server) then still fit in a key, and larger ones take the exact pass.
     */
    static final long MAX_SCALE = 1L << 16;
    /** {@link #leastKey} result: an overhead too large for the key, so the full pass decides. */
    private static final long TAKE_FULL_PASS = -1;
    /**
     * {@link #leastPositionOfBurst} and {@link #keyedChoice} result: no server of weight above 0 is free of OVERLOAD.
     */
    static final int NONE_USABLE = -2;

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
     * The same choice as {@link #weighted(RealServer[])}, taken by a shorter pass when the list the scheduler last
     * took is keyed ({@link CountedServers#keyed}): its usable servers' weights have a small least common multiple
     * {@code L}, as the weights operators give do (1 for all, ipvsadm's and keepalived's default; 1 to 4; 10, 20,
     * 50). Then {@code candidateOverhead * weight > overhead * candidateWeight} is {@code candidateOverhead * (L /
     * candidateWeight) > overhead * (L / weight)}, both sides a whole number: the choice is the first usable server of
     * least scaled overhead, the minimum of the keys {@code overhead * (L / weight) << 16 | position}, taken without a
     * branch that depends on the counts, and reading only the servers' counter slots (one line a server with one
     * worker), not the server objects. The weights are the hint's: taken on the control plane with the list, and
     * taken again by the scheduler's hook whenever the conductor edits a weight (a weight changes nowhere else), so a
     * worker that reads the hint a moment before the new one is published schedules as if the edit came a moment
     * later, as a CPU that read a destination's weight just before the kernel's atomic_set would. The pass reads each
     * server's counts and its OVERLOAD flag, which a bind on any worker may set at any time. Other lists of servers
     * counted alike are compared as the kernel compares them ({@link #leastPositionOfWeights}), from the same counter
     * slots and the hint's weights.
     *
     * @param servers the service's servers in list order.
     * @param counted what the scheduler last took of the service's list: used only when its servers are these.
     * @return the server with the least overhead per weight, or null when none is usable.
     */
    static RealServer weighted(final RealServer[] servers, final CountedServers counted)
    {
        if (counted.servers == servers && counted.keyed)
        {
            final long key = leastKey(counted);
            if (key != TAKE_FULL_PASS)
            {
                return key == Long.MAX_VALUE ? null : counted.usableServers[(int)(key & INDEX_MASK)];
            }
        }
        else if (counted.servers == servers && counted.sameWorkers)
        {
            final int position = leastPositionOfWeights(counted);
            return position < 0 ? null : counted.usableServers[position];
        }
        return weighted(servers);
    }

    /**
     * {@link #weighted(RealServer[])}'s pass for a list that is not keyed, over the hint's lists: each server's
     * counts and OVERLOAD flag read from its counter slot (one line a server with one worker), its weight from the
     * hint, which the scheduler's hook takes again whenever the conductor edits a weight, as for a keyed list. The
     * hint's lists hold only the servers whose weight was above 0; the kernel's pass skips the others too, as a
     * later server of weight 0 never wins its comparison.
     *
     * @return the position, in the hint's usable lists, of the first usable server not overloaded with the least
     *     overhead per weight, or -1 when there is none.
     */
    private static int leastPositionOfWeights(final CountedServers counted)
    {
        final long[] slots = counted.usableSlots;
        final int[] weights = counted.usableWeights;
        final int workers = counted.workers;
        int least = -1;
        long leastOverhead = 0;
        long leastWeight = 0;
        for (int i = 0; i < slots.length; i++)
        {
            final long slot = slots[i];
            // Opaque, as the kernel's atomic_read of a destination's flags: the latest value, no order.
            if ((UnsafeApi.getIntOpaque(null, slot + FLAGS_OFFSET) & FLAG_OVERLOAD) != 0)
            {
                continue;
            }
            final long overhead = RealServer.overheadAt(slot, workers);
            final long weight = weights[i];
            if (least < 0 || productAbove(leastOverhead, weight, overhead, leastWeight))
            {
                least = i;
                leastOverhead = overhead;
                leastWeight = weight;
            }
        }
        return least;
    }

    /**
     * {@link #weighted(RealServer[], CountedServers)} for a worker's scheduling context. When the context's worker
     * reports its count changes, a burst's later connections are scheduled from the keys the burst's first pass
     * took, with the one server this worker changed since (the server it bound the last connection to) read again:
     * for this worker's own changes the choice is the one a full pass would make, and another worker's changes (its
     * counts, an OVERLOAD its bind set) reach the choice from the next burst, a few microseconds later, as they may
     * reach a CPU of the kernel a moment after its ip_vs_wlc_schedule read the counts. More than one server changed,
     * another service's pass between, or a new burst: a full pass.
     *
     * @param servers the service's servers in list order.
     * @param counted what the scheduler last took of the service's list: used only when its servers are these.
     * @param context the scheduling worker's context.
     * @return the server with the least overhead per weight, or null when none is usable.
     */
    static RealServer weighted(final RealServer[] servers, final CountedServers counted, final SchedulingContext context)
    {
        if (context.reportsCounts() && counted.servers == servers && counted.keyed)
        {
            final int position = leastPositionOfBurst(counted, context);
            if (position >= 0)
            {
                return counted.usableServers[position];
            }
            if (position == NONE_USABLE)
            {
                return null;
            }
        }
        else if (context.reportsCounts() && counted.servers == servers && counted.sameWorkers)
        {
            final int position = leastPositionOfWeightedBurst(counted, context);
            return position < 0 ? null : counted.usableServers[position];
        }
        return weighted(servers, counted);
    }

    /**
     * A least-load scheduler's choice from its keys, as {@link #weighted(RealServer[], CountedServers,
     * SchedulingContext)} takes wlc's: a burst's later connections from the burst's tree when the context reports its
     * count changes, the least key of every server otherwise.
     *
     * @param servers the service's servers in list order.
     * @param counted what the scheduler last took of the service's list, with its load: used only when its servers
     *                are these.
     * @param context the scheduling worker's context.
     * @return the chosen server's position in {@code counted}'s usable lists, {@link #NONE_USABLE}, or
     *     {@link #NOT_KEYED} when the scheduler's own pass must decide.
     */
    static int keyedChoice(final RealServer[] servers, final CountedServers counted, final SchedulingContext context)
    {
        if (counted.servers != servers || !counted.keyed)
        {
            return NOT_KEYED;
        }
        if (context.reportsCounts())
        {
            final int position = leastPositionOfBurst(counted, context);
            return position >= 0 || position == NONE_USABLE ? position : NOT_KEYED;
        }
        final long key = leastKey(counted);
        return key == TAKE_FULL_PASS ? NOT_KEYED : key == Long.MAX_VALUE ? NONE_USABLE : (int)(key & INDEX_MASK);
    }

    /**
     * @return the position (in the hint's usable lists) of the least key of the servers not overloaded,
     *     {@link #NONE_USABLE}, or {@link #TAKE_FULL_PASS} when an overhead is too large for the key.
     */
    private static int leastPositionOfBurst(final CountedServers counted, final SchedulingContext context)
    {
        final BurstKeys kept = context.leastConnectionKeys;
        final long changed = takeChange(context);
        final long least;
        if (kept.holds(counted, changed))
        {
            if (changed == SchedulingContext.NONE_CHANGED)
            {
                least = kept.tree[1];
            }
            else
            {
                final int chosen = kept.chosen;
                final long key = keyAt(changed, counted, chosen);
                if (key == TAKE_FULL_PASS)
                {
                    kept.counted = null;
                    return (int)TAKE_FULL_PASS;
                }
                least = kept.replace(chosen, key);
            }
        }
        else
        {
            least = fullPass(counted, kept);
            if (least == TAKE_FULL_PASS)
            {
                kept.counted = null;
                return (int)TAKE_FULL_PASS;
            }
            kept.counted = counted;
        }
        if (least == Long.MAX_VALUE)
        {
            kept.counted = null;
            return NONE_USABLE;
        }
        final int chosen = (int)(least & INDEX_MASK);
        kept.chosen = chosen;
        kept.chosenSlot = counted.usableSlots[chosen];
        return chosen;
    }

    /**
     * {@link #leastPositionOfBurst} for a list that is not keyed: the tree's leaves hold the servers' overheads,
     * its nodes the position of least overhead per weight below them, compared as the kernel compares two servers
     * ({@link #productAbove}, the earlier one on a tie), so the root is the kernel's choice.
     *
     * @return the position (in the hint's usable lists) of the choice, or {@link #NONE_USABLE}.
     */
    private static int leastPositionOfWeightedBurst(final CountedServers counted, final SchedulingContext context)
    {
        final BurstKeys kept = context.leastConnectionKeys;
        final long changed = takeChange(context);
        final int least;
        if (kept.holds(counted, changed))
        {
            least = changed == SchedulingContext.NONE_CHANGED ? kept.winners[1] :
                kept.replaceOverhead(kept.chosen, overheadOrOverloaded(changed, counted.workers), counted.usableWeights);
        }
        else
        {
            least = weightedFullPass(counted, kept);
            kept.counted = counted;
        }
        if (kept.overheads[least] == Long.MAX_VALUE)
        {
            kept.counted = null;
            return NONE_USABLE;
        }
        kept.chosen = least;
        kept.chosenSlot = counted.usableSlots[least];
        return least;
    }

    /**
     * Reads every server's counts and OVERLOAD flag into {@code kept}'s leaves and finds each node's winner.
     *
     * @return the root's winner.
     */
    private static int weightedFullPass(final CountedServers counted, final BurstKeys kept)
    {
        final long[] slots = counted.usableSlots;
        final int count = slots.length;
        final int width = count <= 1 ? 1 : Integer.highestOneBit(count - 1) << 1;
        if (kept.overheads.length < width)
        {
            // Once for each list longer than any before, on the first new connection after the edit.
            kept.overheads = new long[width];
            kept.winners = new int[2 * width];
        }
        kept.width = width;
        final long[] overheads = kept.overheads;
        final int[] winners = kept.winners;
        for (int i = 0; i < width; i++)
        {
            overheads[i] = i < count ? overheadOrOverloaded(slots[i], counted.workers) : Long.MAX_VALUE;
            winners[width + i] = i;
        }
        for (int node = width - 1; node >= 1; node--)
        {
            winners[node] = kept.winnerOf(winners[2 * node], winners[2 * node + 1], counted.usableWeights);
        }
        return winners[1];
    }

    /**
     * @return the counter slot of the server whose counts the worker changed since it last asked, or
     *     {@link SchedulingContext#NONE_CHANGED}; the context then has none again.
     */
    private static long takeChange(final SchedulingContext context)
    {
        final long changed = context.changedCounts;
        context.changedCounts = SchedulingContext.NONE_CHANGED;
        return changed;
    }

    /** A server's overhead, or {@link Long#MAX_VALUE} when it is overloaded. */
    private static long overheadOrOverloaded(final long slot, final int workers)
    {
        return (UnsafeApi.getIntOpaque(null, slot + FLAGS_OFFSET) & FLAG_OVERLOAD) != 0 ? Long.MAX_VALUE :
            RealServer.overheadAt(slot, workers);
    }

    /**
     * Reads every server's counts and OVERLOAD flag into {@code kept}'s keys.
     *
     * @return the least key, or {@link #TAKE_FULL_PASS} when an overhead is too large for the key.
     */
    private static long fullPass(final CountedServers counted, final BurstKeys kept)
    {
        final long[] slots = counted.usableSlots;
        final long[] scales = counted.usableScales;
        final int workers = counted.workers;
        final Load load = counted.load;
        final int count = slots.length;
        final int width = count <= 1 ? 1 : Integer.highestOneBit(count - 1) << 1;
        long[] tree = kept.tree;
        if (tree.length < 2 * width)
        {
            // Once for each list longer than any before, on the first new connection after the edit.
            tree = new long[2 * width];
            kept.tree = tree;
        }
        kept.width = width;
        long overheads = 0;
        for (int i = 0; i < count; i++)
        {
            final long slot = slots[i];
            final boolean overloaded = (UnsafeApi.getIntOpaque(null, slot + FLAGS_OFFSET) & FLAG_OVERLOAD) != 0;
            final long overhead = loadAt(slot, workers, load);
            overheads |= overhead;
            tree[width + i] = overloaded ? Long.MAX_VALUE : overhead * scales[i] << INDEX_BITS | i;
        }
        if (overheads >= counted.keyedOverheadLimit)
        {
            return TAKE_FULL_PASS;
        }
        for (int i = width + count; i < 2 * width; i++)
        {
            tree[i] = Long.MAX_VALUE;
        }
        for (int i = width - 1; i >= 1; i--)
        {
            tree[i] = Math.min(tree[2 * i], tree[2 * i + 1]);
        }
        return tree[1];
    }

    /**
     * @return the key of the server at {@code position} whose counter slot is {@code slot}: {@link Long#MAX_VALUE}
     *     when it is overloaded, {@link #TAKE_FULL_PASS} when its overhead is too large for the key.
     */
    private static long keyAt(final long slot, final CountedServers counted, final int position)
    {
        if ((UnsafeApi.getIntOpaque(null, slot + FLAGS_OFFSET) & FLAG_OVERLOAD) != 0)
        {
            return Long.MAX_VALUE;
        }
        final long overhead = loadAt(slot, counted.workers, counted.load);
        return overhead >= counted.keyedOverheadLimit ? TAKE_FULL_PASS :
            overhead * counted.usableScales[position] << INDEX_BITS | position;
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
     * @return the load of the server whose counter slot is {@code slot}, as {@code load} counts it: nq's is 0 without
     *     an active connection, so that the first such server has the least key, and sed's otherwise.
     */
    private static long loadAt(final long slot, final int workers, final Load load)
    {
        return switch (load)
        {
            case OVERHEAD, CONNECTIONS -> RealServer.overheadAt(slot, workers);
            case EXPECTED_DELAY -> RealServer.activeAt(slot, workers) + 1;
            case NEVER_QUEUE ->
            {
                final long active = RealServer.activeAt(slot, workers);
                yield active == 0 ? 0 : active + 1;
            }
        };
    }

    /**
     * @param weights the weights of a list's usable servers, each above 0.
     * @return each weight's scale, {@code L / weight} for the weights' least common multiple {@code L}, or null when
     *     a scale would be above {@link #MAX_SCALE}: all 1 for one weight, 12, 6, 4 and 3 for 1, 2, 3 and 4.
     */
    static long[] scales(final int[] weights)
    {
        long least = Long.MAX_VALUE;
        for (final int weight : weights)
        {
            least = Math.min(least, weight);
        }
        long multiple = 1;
        for (final int weight : weights)
        {
            final long reduced = multiple / Weights.gcd(multiple, weight);
            // The new multiple, reduced * weight, at most MAX_SCALE * least: then no scale is above MAX_SCALE.
            if (reduced > MAX_SCALE * least / weight)
            {
                return null;
            }
            multiple = reduced * weight;
        }
        final long[] scales = new long[weights.length];
        for (int i = 0; i < weights.length; i++)
        {
            scales[i] = multiple / weights[i];
        }
        return scales;
    }

    private static long[] ones(final int count)
    {
        final long[] ones = new long[count];
        Arrays.fill(ones, 1);
        return ones;
    }

    /**
     * @return the least {@code overhead * scale << 16 | position} of the keyed list's usable servers not overloaded,
     *     {@link Long#MAX_VALUE} when there is none, or {@link #TAKE_FULL_PASS} when an overhead is too large for the
     *     key.
     */
    private static long leastKey(final CountedServers counted)
    {
        final long[] slots = counted.usableSlots;
        final long[] scales = counted.usableScales;
        final int workers = counted.workers;
        final Load load = counted.load;
        long least = Long.MAX_VALUE;
        long overheads = 0;
        for (int i = 0; i < slots.length; i++)
        {
            final long slot = slots[i];
            // Opaque, as the kernel's atomic_read of a destination's flags: the latest value, no order.
            if ((UnsafeApi.getIntOpaque(null, slot + FLAGS_OFFSET) & FLAG_OVERLOAD) == 0)
            {
                final long overhead = loadAt(slot, workers, load);
                overheads |= overhead;
                least = Math.min(least, overhead * scales[i] << INDEX_BITS | i);
            }
        }
        return overheads >= counted.keyedOverheadLimit ? TAKE_FULL_PASS : least;
    }

    /**
     * A service's servers as a least-connection scheduler last took them, with their counter slots' addresses, weights
     * and whether their overheads can be compared as keys: taken on the control plane whenever the list or a weight
     * changes, read by the workers' passes. Immutable, so one volatile read gives a consistent whole.
     */
    static final class CountedServers
    {
        static final CountedServers NONE = new CountedServers(new RealServer[0]);

        /** What the keys compare. */
        final Load load;
        final RealServer[] servers;
        /** The counter slots of the servers whose weight was above 0, in list order. */
        final long[] usableSlots;
        /** The servers themselves, so that a choice by position is one load from the server. */
        final RealServer[] usableServers;
        /** Their weights when the hint was taken. */
        final int[] usableWeights;
        final int workers;
        /** Every server is counted by the same number of workers, so one overhead formula reads all their slots. */
        final boolean sameWorkers;
        /**
         * Each usable server's scale ({@link #scales}): its overhead times its scale orders it among the others as its
         * overhead per weight does, exactly. All 1 for one weight; empty when the list is not keyed.
         */
        final long[] usableScales;
        /** Overheads below this, a power of two, fit in a key once scaled. */
        final long keyedOverheadLimit;
        /**
         * Every server is counted by the same number of workers, the list fits the key's index and the usable weights
         * have scales up to {@link #MAX_SCALE}: a server's overhead then orders it as a key, {@code overhead * scale
         * << 16 | position}.
         */
        final boolean keyed;

        /** The list as wlc takes it. */
        CountedServers(final RealServer[] servers)
        {
            this(servers, Load.OVERHEAD);
        }

        CountedServers(final RealServer[] servers, final Load load)
        {
            this.servers = servers;
            this.load = load;
            final int workers = servers.length == 0 ? 1 : servers[0].workers();
            boolean sameWorkers = true;
            int usable = 0;
            for (final RealServer server : servers)
            {
                sameWorkers &= server.workers() == workers;
                usable += server.weight() > 0 ? 1 : 0;
            }
            this.usableSlots = new long[usable];
            this.usableServers = new RealServer[usable];
            this.usableWeights = new int[usable];
            for (int i = 0, u = 0; i < servers.length && u < usable; i++)
            {
                final int weight = servers[i].weight();
                if (weight > 0)
                {
                    usableSlots[u] = servers[i].countersAddress();
                    usableServers[u] = servers[i];
                    usableWeights[u] = weight;
                    u++;
                }
            }
            this.workers = workers;
            this.sameWorkers = sameWorkers;
            // lc compares the overheads alone: every scale 1, whatever the weights.
            final long[] scales = load == Load.CONNECTIONS ? ones(usable) : scales(usableWeights);
            this.keyed = sameWorkers && servers.length <= MAX_KEYED_SERVERS && scales != null;
            this.usableScales = keyed ? scales : new long[0];
            long largest = 1;
            for (final long scale : usableScales)
            {
                largest = Math.max(largest, scale);
            }
            // Divided by the least power of two not below the largest scale: a power of two still, so that an OR of
            // the overheads tells whether any reaches it.
            this.keyedOverheadLimit = KEYED_OVERHEAD_LIMIT >>> (Long.SIZE - Long.numberOfLeadingZeros(largest - 1));
        }
    }

    /**
     * The keys {@code overhead * scale << 16 | position} a worker's last wlc pass of a burst took, by position in the
     * hint's usable lists ({@link Long#MAX_VALUE} for a server that was overloaded), at the leaves of a tree of
     * minimums, and the position it chose: one for each worker, in its scheduling context, written and read by that
     * worker alone. The server bound last gets its key again and the least comes from its path to the root, a minimum
     * a level with the sibling's (four for 16 servers), instead of the least of every key. A list that is not keyed
     * has no such key: its tree holds the overheads at its leaves and, at each node, the position that wins below it
     * ({@link #winnerOf}).
     */
    static final class BurstKeys
    {
        /** The hint the keys were taken under, or null when they are not to be used. */
        CountedServers counted;
        /** Node {@code i}'s children are {@code 2i} and {@code 2i + 1}; the leaves start at {@link #width}. */
        long[] tree = new long[2];
        /** How many leaves: the least power of two not below the number of usable servers. */
        int width = 1;
        int chosen;
        /** The counter slot of the server at {@link #chosen}. */
        long chosenSlot;
        /**
         * For a list that is not keyed: each position's overhead ({@link Long#MAX_VALUE} for a server that was
         * overloaded, and past the last server).
         */
        long[] overheads = new long[1];
        /** For a list that is not keyed: node {@code i}'s position of least overhead per weight below it. */
        int[] winners = new int[2];

        /**
         * @return whether the tree was taken under {@code counted} and no server but the one chosen last has changed
         *     since ({@code changed}, from {@link #takeChange}): then only that server's leaf need be read again.
         */
        boolean holds(final CountedServers counted, final long changed)
        {
            return this.counted == counted && (changed == SchedulingContext.NONE_CHANGED || changed == chosenSlot);
        }

        /**
         * @return of the positions {@code left} and {@code right} (left the earlier), the one of less overhead per
         *     weight, the earlier one on a tie, as the kernel's pass keeps its candidate unless a later server is
         *     strictly less loaded for its weight.
         */
        int winnerOf(final int left, final int right, final int[] weights)
        {
            final long leftOverhead = overheads[left];
            final long rightOverhead = overheads[right];
            if (rightOverhead == Long.MAX_VALUE)
            {
                return left;
            }
            if (leftOverhead == Long.MAX_VALUE)
            {
                return right;
            }
            return productAbove(leftOverhead, weights[right], rightOverhead, weights[left]) ? right : left;
        }

        /**
         * @return the root's winner once the overhead at {@code position} is {@code overhead}.
         */
        int replaceOverhead(final int position, final long overhead, final int[] weights)
        {
            overheads[position] = overhead;
            for (int node = (width + position) >>> 1; node >= 1; node >>>= 1)
            {
                winners[node] = winnerOf(winners[2 * node], winners[2 * node + 1], weights);
            }
            return winners[1];
        }

        /**
         * @return the least key once the key at {@code position} is {@code key}.
         */
        long replace(final int position, final long key)
        {
            final long[] tree = this.tree;
            int node = width + position;
            tree[node] = key;
            long least = key;
            while (node > 1)
            {
                least = Math.min(least, tree[node ^ 1]);
                node >>>= 1;
                tree[node] = least;
            }
            return least;
        }
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
