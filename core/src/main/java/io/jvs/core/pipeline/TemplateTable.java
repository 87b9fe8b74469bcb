package io.jvs.core.pipeline;

import io.jvs.core.concurrent.SharedKeyTable;
import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.core.service.RealServer;

/**
 * Persistence templates (ip_vs_sched_persist's) shared by every worker: the server a client network was given
 * by a persistent service, found again for that network's next connections without asking the scheduler.
 * <p>
 * The key is (template group, client address masked by the service's netmask): the snapshot's number for the
 * service's {@link io.jvs.core.service.ServiceKey#persistenceKey} (protocol, virtual address and port, or the
 * firewall mark; an FTP service shares a port-0 service's), so that a service deleted and created again, as a
 * keepalived restart does, finds the templates it left, as the kernel's key of addresses and ports does. The
 * payload packs the server slot (low 32 bits) and the number of open connections the template placed
 * (bits 32..61), both changed by compare-and-set. The
 * entry's time is its deadline: re-armed to the persistence timeout whenever it places a connection.
 * A template is valid while its deadline is ahead or it still controls connections (the kernel re-arms
 * such a template 60 s at a time; here it simply lives until they end and its deadline passes). A
 * template whose server left the service, or is quiesced while expire_quiescent_template is on, is given
 * a new server rather than re-keyed, keeping the count of connections it still controls.
 * <p>
 * Every worker uses one table at once, so it keeps nothing of any one lookup: {@link #find} returns its
 * answer packed in a long, and each worker sweeps with a {@link Sweeper} of its own. The payload changes
 * only by compare-and-set; a template being created is marked FRESH until one user (its creator or a
 * concurrent finder) clears the mark and counts it on its server, so each template is counted once.
 * <p>
 * Each entry also keeps the client network itself (the key is only a fingerprint of it), written once when the
 * template is made, so that {@link #list} can show which network a template pins, as {@code ipvsadm -L -c} does.
 */
public final class TemplateTable
{
    /** Returned when no usable template exists. */
    public static final int NOT_FOUND = SharedKeyTable.NOT_FOUND;
    /** How long the kernel re-arms a template that expires while it still controls connections. */
    public static final long REARM_NS = 60_000_000_000L;

    private static final long SERVER_MASK = 0x7FFF_FFFFL;
    /**
     * A connection the template placed has been established (TCP, SCTP) or answered (UDP): the kernel's
     * IP_VS_CTPL_S_ASSURED, which ip_vs_control_assure_ct sets and ipvsadm -L -c shows as the template's state.
     */
    private static final long ASSURED = 1L << 31;
    private static final long CONTROLLED_ONE = 1L << 32;
    private static final long CONTROLLED_MASK = 0x3FFF_FFFFL << 32;
    /** Marks a template just created, until its creator has counted it on its server. */
    private static final long FRESH = 1L << 62;

    private final SharedKeyTable table;
    private final int bucketMask;

    /**
     * @param buckets a power of two; the table holds up to 16 templates per bucket.
     */
    public TemplateTable(final int buckets)
    {
        this(buckets, OffHeapAllocator.DIRECT);
    }

    /**
     * @param buckets   a power of two; the table holds up to 16 templates per bucket.
     * @param allocator where the table's memory comes from.
     */
    public TemplateTable(final int buckets, final OffHeapAllocator allocator)
    {
        this.table = new SharedKeyTable(buckets, allocator);
        this.bucketMask = buckets - 1;
    }

    private static long fingerprint(final int service, final long networkHigh, final long networkLow)
    {
        return SharedKeyTable.fingerprint(service, networkHigh, networkLow);
    }

    private int bucket(final long fingerprint)
    {
        return (int)((fingerprint * 0x9E37_79B9_7F4A_7C15L) >>> 40) & bucketMask;
    }

    /**
     * @return how many templates exist.
     */
    public int size()
    {
        return table.entries();
    }

    /**
     * @return how many templates the table may hold (new ones are refused past it).
     */
    public int capacity()
    {
        return table.maxEntries();
    }

    /**
     * @return the way of a {@link #find} result.
     */
    public static int way(final long found)
    {
        return (int)(found >>> 32);
    }

    /**
     * @return the server slot of a {@link #find} result.
     */
    public static int server(final long found)
    {
        return (int)found;
    }

    /**
     * The rule for following a template (the kernel's {@code ip_vs_check_template}): its server is still
     * in the service, and not quiesced while expire_quiescent_template is on.
     *
     * @param available       whether the template's server is in its service.
     * @param quiesced        whether it has weight 0.
     * @param expireQuiescent expire_quiescent_template.
     * @return whether the template may place a connection.
     */
    public static boolean usable(final boolean available, final boolean quiesced, final boolean expireQuiescent)
    {
        return available && !(expireQuiescent && quiesced);
    }

    /**
     * Finds a client network's template, whatever its server.
     *
     * @param service     what the template is for (a template group, or any number its user keys templates by).
     * @param networkHigh the client network's first 64 bits (0 for IPv4).
     * @param networkLow  its last 64 bits.
     * @param nowNs       the time.
     * @return the template's way and server slot, packed (read them with {@link #way(long)} and
     *         {@link #server(long)}), or {@link #NOT_FOUND} when there is none or it has expired.
     */
    public long find(final int service, final long networkHigh, final long networkLow, final long nowNs)
    {
        final long fingerprint = fingerprint(service, networkHigh, networkLow);
        final int way = table.lookup(fingerprint, bucket(fingerprint));
        if (way == NOT_FOUND)
        {
            return NOT_FOUND;
        }
        final long payload = table.payload(way);
        if ((payload & SharedKeyTable.DYING) != 0 ||
            ((payload & CONTROLLED_MASK) == 0 && nowNs - table.lastUse(way) >= 0))
        {
            return NOT_FOUND;
        }
        return (long)way << 32 | (payload & SERVER_MASK);
    }

    /**
     * Finds a client network's template and judges its server by a snapshot.
     *
     * @return as {@link #find(int, long, long, long)}, with server slot 0 when the server may no longer
     *         be used ({@link #usable}): {@link #place} then gives the template a new one.
     */
    long find(final int service, final long networkHigh, final long networkLow, final DataPlane plane,
        final long nowNs)
    {
        final long found = find(service, networkHigh, networkLow, nowNs);
        if (found == NOT_FOUND)
        {
            return NOT_FOUND;
        }
        final int server = server(found);
        final boolean usable = server > 0 && server < plane.serverAvailable.length && usable(
            plane.serverAvailable[server], plane.serverQuiesced[server], plane.settings.expireQuiescentTemplate());
        return usable ? found : found & ~SERVER_MASK;
    }

    /**
     * Makes a network's template point at a server: a new template, or an existing one (expired, or with
     * an unusable server) taken over, its controlled count kept. The template is counted on its server
     * ({@link RealServer#bindTemplate}) and uncounted from the one it leaves.
     *
     * @param serverSlot the server's slot.
     * @param servers    the servers by slot, as the caller's snapshot has them.
     * @return the template's way, or {@link #NOT_FOUND} when the table is full (the connection then goes
     *         without persistence).
     */
    public int place(final int service, final long networkHigh, final long networkLow, final int serverSlot,
        final RealServer[] servers, final long nowNs, final long timeoutNs)
    {
        final long fingerprint = fingerprint(service, networkHigh, networkLow);
        final int way = table.acquire(fingerprint, bucket(fingerprint), nowNs, serverSlot | FRESH, networkHigh,
            networkLow);
        if (way == NOT_FOUND)
        {
            return NOT_FOUND;
        }
        while (true)
        {
            final long payload = table.payload(way);
            if ((payload & SharedKeyTable.DYING) != 0)
            {
                return NOT_FOUND;
            }
            if ((payload & FRESH) != 0)
            {
                if (table.compareAndSetPayload(way, payload, payload & ~FRESH))
                {
                    servers[(int)(payload & SERVER_MASK)].bindTemplate();
                    if ((int)(payload & SERVER_MASK) == serverSlot)
                    {
                        break;
                    }
                }
                continue;
            }
            final int previous = (int)(payload & SERVER_MASK);
            if (previous == serverSlot)
            {
                break;
            }
            if (table.compareAndSetPayload(way, payload, (payload & CONTROLLED_MASK) | serverSlot))
            {
                servers[serverSlot].bindTemplate();
                unbind(servers, previous);
                break;
            }
        }
        table.lastUse(way, nowNs + timeoutNs);
        return way;
    }

    /**
     * Counts a connection the template placed and re-arms its deadline.
     *
     * @return false when the template is being retired (the connection then goes without it).
     */
    public boolean attach(final int way, final long nowNs, final long timeoutNs)
    {
        long payload;
        do
        {
            payload = table.payload(way);
            if ((payload & SharedKeyTable.DYING) != 0)
            {
                return false;
            }
        }
        while (!table.compareAndSetPayload(way, payload, payload + CONTROLLED_ONE));
        table.lastUse(way, Math.max(table.lastUse(way), nowNs + timeoutNs));
        return true;
    }

    /**
     * Marks a template assured (ip_vs_control_assure_ct): one of its connections reached ESTABLISHED or had a reply.
     * The mark stays until the template is given another server ({@link #place}), as the kernel's template with an
     * unusable server is replaced by a new one.
     */
    public void assure(final int way)
    {
        long payload;
        do
        {
            payload = table.payload(way);
            if ((payload & (ASSURED | SharedKeyTable.DYING)) != 0)
            {
                return;
            }
        }
        while (!table.compareAndSetPayload(way, payload, payload | ASSURED));
    }

    /**
     * A connection the template placed has ended.
     */
    public void detach(final int way)
    {
        long payload;
        do
        {
            payload = table.payload(way);
        }
        while (!table.compareAndSetPayload(way, payload, payload - CONTROLLED_ONE));
    }

    /**
     * Expires a template that places no open connection, as the kernel deletes a connection's controlling template
     * along with the connection when it flushes connections to removed servers (ip_vs_expire_nodest_conn_flush).
     * A connection another worker attaches meanwhile keeps the template valid for as long as it lives.
     *
     * @param way   the template's way.
     * @param nowNs the time: its deadline becomes this.
     */
    public void expireIfPlacingNothing(final int way, final long nowNs)
    {
        final long payload = table.payload(way);
        if ((payload & (CONTROLLED_MASK | SharedKeyTable.DYING)) == 0 && table.lastUse(way) - nowNs > 0)
        {
            table.lastUse(way, nowNs);
        }
    }

    /**
     * @return how many open connections the template in a way placed.
     */
    public int controlled(final int way)
    {
        return (int)((table.payload(way) & CONTROLLED_MASK) >>> 32);
    }

    public int buckets()
    {
        return bucketMask + 1;
    }

    /**
     * @return the way of a network's template, expired or not, or {@link #NOT_FOUND} once it is retired.
     */
    public int wayOf(final int service, final long networkHigh, final long networkLow)
    {
        final long fingerprint = fingerprint(service, networkHigh, networkLow);
        return table.lookup(fingerprint, bucket(fingerprint));
    }

    /**
     * Copies every template, with its payload and deadline, into another table, for a single-threaded
     * owner that outgrew this one: neither table may be in use by another thread.
     *
     * @param target an empty table, larger than this one.
     * @return for each way of this table, the way of its template in the target, or {@link #NOT_FOUND}.
     * @throws IllegalStateException when the target cannot hold them all.
     */
    public int[] copyInto(final TemplateTable target)
    {
        final int[] moved = new int[table.ways()];
        for (int way = 0; way < moved.length; way++)
        {
            final long key = table.liveKey(way);
            moved[way] = NOT_FOUND;
            if (key == NOT_FOUND)
            {
                continue;
            }
            final long deadline = table.lastUse(way);
            final int copy = target.table.acquire(key, target.bucket(key), deadline, table.payload(way),
                table.keyHigh(way), table.keyLow(way));
            if (copy == NOT_FOUND)
            {
                throw new IllegalStateException("a table of " + target.buckets() + " buckets cannot hold the " +
                    size() + " templates of one of " + buckets());
            }
            moved[way] = copy;
        }
        return moved;
    }

    /**
     * What {@link #list} tells of each template.
     */
    @FunctionalInterface
    public interface Listing
    {
        /**
         * @param service     the slot of the service the template's server belongs to, whose template group the
         *                    template is keyed by.
         * @param networkHigh the client network's first 64 bits (0 for IPv4).
         * @param networkLow  its last 64 bits (an IPv4 network in the low 32).
         * @param serverSlot  the server it gives the network to.
         * @param deadlineNs  when it expires unless a connection re-arms it: past while it still controls
         *                    connections ({@link #remainingNs} gives what the kernel would show then).
         * @param controlled  how many open connections it placed.
         * @param assured     whether one of them was established or answered ({@link #assure}).
         */
        void template(int service, long networkHigh, long networkLow, int serverSlot, long deadlineNs, int controlled,
            boolean assured);
    }

    /**
     * Lists the templates in use way by way, bucket after bucket (as IPVS walks its hash table), for a reader on
     * another thread than the workers that write them ({@code ipvsadm -L -c}). Nothing is written and nothing
     * waits: each way's control word is read (a volatile read, which sees the key words, payload and deadline the
     * creator wrote before its release store made the way LIVE), then its key words, payload and deadline, then the
     * control word again; a way retired or reused meanwhile is passed over, as a template that ends while
     * {@code /proc/net/ip_vs_conn} is read may be. A template is listed while {@link #find} would follow it: not
     * being retired, and its deadline ahead or connections still placed by it.
     * <p>
     * The key is a fingerprint of the service's template group and the client network, so the service is taken as
     * the one its server belongs to in {@code plane} and checked against the fingerprint. A deleted service's
     * templates are listed while they live, as the kernel lists them until they expire: the slot of their server,
     * and so of its deleted service, is held for as long as they count on it.
     *
     * @param plane   the snapshot that names services and servers.
     * @param nowNs   the time, on the workers' clock ({@link System#nanoTime}).
     * @param listing told of each template.
     */
    public void list(final DataPlane plane, final long nowNs, final Listing listing)
    {
        for (int way = 0, ways = table.ways(); way < ways; way++)
        {
            final long key = table.liveKey(way);
            if (key == NOT_FOUND)
            {
                continue;
            }
            final long networkHigh = table.keyHigh(way);
            final long networkLow = table.keyLow(way);
            final long payload = table.payload(way);
            final long deadline = table.lastUse(way);
            if (table.liveKey(way) != key || (payload & SharedKeyTable.DYING) != 0)
            {
                continue;
            }
            final int controlled = (int)((payload & CONTROLLED_MASK) >>> 32);
            final int server = (int)(payload & SERVER_MASK);
            if ((controlled == 0 && nowNs - deadline >= 0) || plane.server(server) == null)
            {
                continue;
            }
            final int service = plane.serviceOfServer(server);
            if (plane.serviceKey(service) != null &&
                fingerprint(plane.templateGroup[service], networkHigh, networkLow) == key)
            {
                listing.template(service, networkHigh, networkLow, server, deadline, controlled,
                    (payload & ASSURED) != 0);
            }
        }
    }

    /**
     * A template's remaining time as IPVS would count it down: to its deadline, and once that has passed while it
     * still controls connections, in the 60-second periods ip_vs_conn_expire re-arms it for ({@code expire_later}:
     * {@code cp->timeout = 60 * HZ}), where jvs simply keeps it until they end.
     *
     * @param deadlineNs the template's deadline.
     * @param nowNs      the time.
     * @return nanoseconds until it would expire, more than 0.
     */
    public static long remainingNs(final long deadlineNs, final long nowNs)
    {
        final long ahead = deadlineNs - nowNs;
        return ahead > 0 ? ahead : REARM_NS - Math.floorMod(-ahead, REARM_NS);
    }

    /**
     * A sweeper for one worker of several: each sweeps its own share of the buckets, so together they
     * cover the table once per round and no two retire in the same bucket.
     *
     * @param worker  the worker's index.
     * @param workers how many workers sweep this table.
     * @return a sweeper for that worker's thread only.
     */
    public Sweeper sweeper(final int worker, final int workers)
    {
        if (workers < 1 || worker < 0 || worker >= workers)
        {
            throw new IllegalArgumentException("worker " + worker + " of " + workers);
        }
        final int buckets = buckets();
        final int first = (int)((long)buckets * worker / workers);
        final int end = (int)((long)buckets * (worker + 1) / workers);
        return new Sweeper(first, end - first);
    }

    /**
     * Retires every expired template without connections now (an offline user's whole sweep).
     *
     * @param servers the servers by slot, to uncount each template from.
     * @return how many were retired.
     */
    public int sweepAll(final long nowNs, final RealServer[] servers)
    {
        final Sweeper all = new Sweeper(0, buckets());
        return all.sweep(nowNs, all.buckets(), servers);
    }

    /**
     * One worker's sweep of its share of a {@link TemplateTable}: a cursor of its own, and the servers of
     * its snapshot to uncount each retired template from. Not for sharing between threads.
     */
    public final class Sweeper
    {
        private final int first;
        private final int count;
        private final SharedKeyTable.ExpiryListener onExpired = this::unbindExpired;
        private int cursor;
        private RealServer[] servers;

        private Sweeper(final int first, final int count)
        {
            this.first = first;
            this.count = count;
        }

        /**
         * @return how many buckets this sweeper's share holds (it covers them once every this many).
         */
        public int buckets()
        {
            return count;
        }

        /**
         * Retires expired templates without connections in the next {@code budget} buckets of the share.
         *
         * @param nowNs        the time.
         * @param budget       how many buckets to look at (at most the share).
         * @param snapshotServers the servers by slot, as the caller's snapshot has them.
         * @return how many were retired.
         */
        public int sweep(final long nowNs, final int budget, final RealServer[] snapshotServers)
        {
            if (count == 0)
            {
                return 0;
            }
            if (table.entries() == 0)
            {
                // No template anywhere (one volatile read): the cursor goes where looking at each empty bucket would
                // have left it; a template another worker adds meanwhile is looked at on the next pass, as it would
                // be had it come a moment later.
                cursor = (int)((cursor + (long)Math.min(budget, count)) % count);
                return 0;
            }
            this.servers = snapshotServers;
            int retired = 0;
            for (int i = 0, n = Math.min(budget, count); i < n; i++)
            {
                // Back to 0 after the last bucket by arithmetic, not a branch: the cursor wraps about once a second,
                // so a daemon's warm-up may never wrap it, and a branch never taken there is compiled as a trap that
                // the first live wrap springs (perf/RESULTS.md, issue 11's deoptimisations after ready).
                final int next = cursor + 1;
                cursor = next & ((next - count) >> 31);
                // A FRESH template is not yet counted on its server: its creator is about to; retiring it
                // now would uncount what was never counted.
                retired += table.expireBucket(first + cursor, nowNs, 0, CONTROLLED_MASK | FRESH, onExpired);
            }
            this.servers = null;
            return retired;
        }

        /**
         * A step of the expire_nodest_conn flush through this share: expires each template of a server no longer in
         * its service that places no connection ({@link #expireIfPlacingNothing}), as ip_vs_expire_nodest_conn_flush
         * deletes every entry of the table whose destination is gone and whose n_control is 0, templates included;
         * the sweep then retires them and uncounts them from their server.
         *
         * @param from      the share's bucket to start at, 0 for the first.
         * @param budget    how many buckets to look at.
         * @param available whether each server slot's server is in its service, as the caller's snapshot has it.
         * @param nowNs     the time.
         * @return the bucket to go on from, or -1 once the share has been looked at whole.
         */
        public int expireServersGone(final int from, final int budget, final boolean[] available, final long nowNs)
        {
            int bucket = from;
            for (int step = 0; step < budget && bucket < count; step++, bucket++)
            {
                for (int way = (first + bucket) * SharedKeyTable.WAYS, end = way + SharedKeyTable.WAYS; way < end;
                    way++)
                {
                    if (table.liveKey(way) == NOT_FOUND)
                    {
                        continue;
                    }
                    final int server = (int)(table.payload(way) & SERVER_MASK);
                    if (server > 0 && server < available.length && !available[server])
                    {
                        expireIfPlacingNothing(way, nowNs);
                    }
                }
            }
            return bucket < count ? bucket : -1;
        }

        private void unbindExpired(final long payload)
        {
            unbind(servers, (int)(payload & SERVER_MASK));
        }
    }

    private static void unbind(final RealServer[] servers, final int serverSlot)
    {
        final RealServer server = serverSlot > 0 && serverSlot < servers.length ? servers[serverSlot] : null;
        if (server != null)
        {
            server.unbindTemplate();
        }
    }
}
