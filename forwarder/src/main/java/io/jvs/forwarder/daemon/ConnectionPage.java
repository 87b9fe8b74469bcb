package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTable;

/**
 * One page of a worker's connection entries, filled by the worker between two bursts for a lister on another
 * thread ({@code ipvsadm -c}): the lister says where to start, the worker copies up to {@link #CAPACITY} live
 * entries from there and says where the next page starts. Everything is preallocated, so answering allocates
 * nothing on the worker; a listing is a sequence of pages, not a snapshot, so an entry that moves between two
 * pages may be missed or seen twice, as a reader of {@code /proc/net/ip_vs_conn} may see it.
 * <p>
 * Ordering: the lister writes {@link #v6} and {@link #from} before the worker's volatile request counter; the
 * worker writes the entries and {@link #next} before its volatile answer counter (see {@link Worker#connections}).
 */
final class ConnectionPage
{
    /** Entries per page. */
    static final int CAPACITY = 512;
    /**
     * Slots one page looks at, at most: a sparse table of a million slots would otherwise hold the worker for a
     * whole scan between two bursts. A page may then hold fewer entries (none) and still say where to go on.
     */
    static final int SCAN_LIMIT = 16_384;
    /** {@link #next} once the table has been read to its end. */
    static final int END = -1;

    boolean v6;
    int from;
    int count;
    int next;
    final int[] protocol = new int[CAPACITY];
    final int[] state = new int[CAPACITY];
    /** Ticks ({@link ConnectionTable#TICK_NS}) until the entry expires, as of the worker's clock when filled. */
    final int[] expiresInTicks = new int[CAPACITY];
    final long[] clientHigh = new long[CAPACITY];
    final long[] clientLow = new long[CAPACITY];
    final int[] clientPort = new int[CAPACITY];
    final long[] virtualHigh = new long[CAPACITY];
    final long[] virtualLow = new long[CAPACITY];
    final int[] virtualPort = new int[CAPACITY];
    /** {@link ConnectionTable#portKey}: the virtual port, and whether the server's port replaces it. */
    final int[] portKey = new int[CAPACITY];
    /** The real server's slot in the snapshot the worker used. */
    final int[] server = new int[CAPACITY];

    /**
     * Copies live entries of {@code table} from slot {@link #from} on (the worker's thread).
     *
     * @param nowTick the worker's current tick.
     */
    void fill(final ConnectionTable table, final int nowTick)
    {
        int n = 0;
        int slot = Math.max(0, from);
        final int slots = table.slots();
        final int stop = (int)Math.min(slots, (long)slot + SCAN_LIMIT);
        for (; slot < stop && n < CAPACITY; slot++)
        {
            if (!table.isUsed(slot) || table.isExpired(slot, nowTick))
            {
                continue;
            }
            protocol[n] = table.protocol(slot);
            state[n] = table.state(slot);
            expiresInTicks[n] = Math.max(0, table.expiresTick(slot) - nowTick);
            clientHigh[n] = table.clientHigh(slot);
            clientLow[n] = table.clientLow(slot);
            clientPort[n] = table.clientPort(slot);
            virtualHigh[n] = table.virtualHigh(slot);
            virtualLow[n] = table.virtualLow(slot);
            virtualPort[n] = table.virtualPort(slot);
            portKey[n] = table.portKey(slot);
            server[n] = table.server(slot);
            n++;
        }
        count = n;
        next = slot >= slots ? END : slot;
    }
}
