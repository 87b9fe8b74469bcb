package io.jvs.core.conn;

import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.core.packet.Frames;
import org.agrona.UnsafeApi;

import static io.jvs.core.conn.ConnectionLayout.*;

/**
 * One worker's connections of one address family: open addressing over fixed-size entries in one
 * off-heap block, with no allocation after construction.
 * <p>
 * Entries are hashed, as in IPVS, on the client's end of the connection (protocol, client address and
 * port) only. A packet from the client carries that end as its source, a NAT reply from the real server
 * as its destination, so both directions find the same entry with a single probe sequence: forward
 * lookups then compare the virtual address and port, reverse lookups the real server's. Collisions are
 * resolved by linear probing; the slot count is the capacity divided by the {@link #LOAD_FACTOR}. A key
 * hashes to the first slot of a cache line (two IPv4 entries share a line), mapped without a power of
 * two ({@code (hash * lines) >>> 32}), so most lookups read one line. Deletions shift the rest of the
 * probe run back, so there are no tombstones and a probe always ends at the first empty slot.
 * <p>
 * Expiry is kept per entry as a tick (10 ms) and checked when an entry is found, so a lookup never
 * returns a stale connection; {@link #sweep} reclaims expired entries a few slots at a time, so no
 * call ever scans the whole table. Single-threaded: one worker owns a table.
 */
public final class ConnectionTable
{
    /**
     * At most half the slots are used: probe runs then rarely leave the home line, which at millions of
     * connections is what a lookup costs (a DRAM miss per line). Two slots per IPv4 connection of 32 bytes
     * is the 64 bytes per connection the design allows.
     */
    public static final double LOAD_FACTOR = 0.5;
    /** Smallest and largest capacity accepted. */
    public static final int MIN_CAPACITY = 16;
    public static final int MAX_CAPACITY = 64 << 20;
    /** Ticks are 10 ms: a 32-bit tick covers 248 days, longer than any timeout ipvsadm accepts. */
    public static final long TICK_NS = 10_000_000L;

    /** Entry flag: counted among its server's inactive connections. */
    public static final int FLAG_INACTIVE = ConnectionLayout.FLAG_INACTIVE;
    /** Entry flag: replies bypass jvs (DR, TUN), so TCP moves by the INPUT_ONLY table. */
    public static final int FLAG_NO_OUTPUT = ConnectionLayout.FLAG_NO_OUTPUT;
    /** See {@link ConnectionLayout#FLAG_ASSURED}. */
    public static final int FLAG_ASSURED = ConnectionLayout.FLAG_ASSURED;
    /** See {@link ConnectionLayout#FLAG_PACKETS_PORT}: set when the entry is opened, never changed. */
    public static final int FLAG_PACKETS_PORT = ConnectionLayout.FLAG_PACKETS_PORT;
    /** See {@link ConnectionLayout#FLAG_OFFLOADED}. */
    public static final int FLAG_OFFLOADED = ConnectionLayout.FLAG_OFFLOADED;
    /** The flag's bit moved to {@link ServerAddresses#PACKETS_PORT}'s by one multiplication (a shift). */
    private static final int PACKETS_PORT_SCALE = ServerAddresses.PACKETS_PORT / ConnectionLayout.FLAG_PACKETS_PORT;

    /**
     * @param method a forwarding method's ordinal (0 NAT, 1 DR, 2 TUN).
     * @return the entry flags that keep it for the connection's life ({@link #method}).
     */
    public static int methodFlags(final int method)
    {
        return method << ConnectionLayout.METHOD_SHIFT & ConnectionLayout.METHOD_MASK;
    }

    /** Returned when no entry matches. */
    public static final int NOT_FOUND = -1;
    /** Returned when the table is full and nothing could be reclaimed. */
    public static final int FULL = -2;

    /** A new entry lives 3 s until its first packet's state sets its timeout (the kernel's ip_vs_conn_new). */
    static final int NEW_ENTRY_TICKS = 300;

    /** How far from the home slot a full table looks for an entry to reclaim. */
    static final int RECLAIM_WINDOW = 32;

    /**
     * Slots per sweep block. Each block keeps a tick before which none of its entries expires, so a sweep
     * passes over a block with nothing due by reading one int instead of its slots: at millions of
     * connections a sweep is otherwise a stream of the whole table through the cache every second. A due block's
     * entries are all read to find the few that expired and bound the rest again, so a smaller block reads fewer
     * of them for each one that expires, at the price of an int per block (16 measured best for a replay of synth's
     * farm traffic: perf/RESULTS.md).
     */
    static final int BLOCK_SLOTS = 16;
    private static final int BLOCK_SHIFT = Integer.numberOfTrailingZeros(BLOCK_SLOTS);
    /** The used-slot bitmap's words hold 64 slots, four blocks. */
    private static final int WORD_SHIFT = 6;
    /** A block bound that says nothing: the block must be looked at. */
    private static final int UNKNOWN = Integer.MIN_VALUE;
    /** What a block with no entries due is bounded by when a sweep starts on it: far beyond any timeout. */
    private static final int HORIZON = Integer.MAX_VALUE / 2;

    /**
     * Told about every entry that leaves the table, before it goes, so the owner can uncount it.
     */
    @FunctionalInterface
    public interface RemovalListener
    {
        /**
         * @param table   the table.
         * @param slot    the entry's slot, still readable.
         * @param evicted true when it was reclaimed to make room before its time, false when it expired.
         */
        void onRemoved(ConnectionTable table, int slot, boolean evicted);
    }

    private final boolean v6;
    private final int entryLength;
    private final int meta;
    private final int slots;
    private final int lines;
    private final int slotsPerLine;
    private final int capacity;
    private final OffHeapAllocator.Region memory;
    private final long base;
    private final RemovalListener listener;
    private int size;
    private int sweepCursor;
    /** How far past {@link #sweepCursor} {@link #sweepAhead} has named lines. */
    private int aheadOfSweep;
    /**
     * Per block of {@link #BLOCK_SLOTS} slots: no entry in it expires before this tick, or {@link #UNKNOWN};
     * null until {@link #skipIdleBlocks()}.
     */
    private int[] blockBound;
    /**
     * One bit per slot, 64 slots a word: which slots hold an entry; null until {@link #skipIdleBlocks()}. A sweep
     * through a due block goes from entry to entry, where testing each slot's flag would read a line per slot
     * and mispredict a branch for most of them.
     */
    private long[] usedSlots;
    /**
     * The entry {@link #insert} made last, while its timer is the placeholder it was given and its block's bound
     * does not cover it yet, or -1. The caller gives it its real timer next ({@link #open}), which then bounds the
     * block: bounding by the short placeholder would make the block due in seconds, long before any of its
     * entries is, and a sweep would read every entry of the block for nothing. Anything else that could meet
     * the entry first (another insert, a sweep, a removal that moves it) bounds it by the placeholder.
     */
    private int unbound = -1;
    /** The block whose bound the sweep is recomputing, or -1. */
    private int sweepBlock = -1;
    /** Whether the sweep entered {@link #sweepBlock} part-way, so it has not seen all of its entries. */
    private boolean sweepBlockPartial;
    private long evictions;
    private long refusals;
    /** Where the last unsuccessful lookup ended: the slot an insert of the same key takes. */
    private int emptySlot = NOT_FOUND;
    private int lastHome;

    /**
     * @param v6       the address family.
     * @param capacity the most connections the table holds, {@link #MIN_CAPACITY}..{@link #MAX_CAPACITY}.
     * @param listener told about every entry that leaves.
     */
    public ConnectionTable(final boolean v6, final int capacity, final RemovalListener listener)
    {
        this(v6, capacity, listener, OffHeapAllocator.DIRECT);
    }

    /**
     * @param v6        the address family.
     * @param capacity  the most connections the table holds, {@link #MIN_CAPACITY}..{@link #MAX_CAPACITY}.
     * @param listener  told about every entry that leaves.
     * @param allocator where the table's memory comes from.
     */
    public ConnectionTable(
        final boolean v6, final int capacity, final RemovalListener listener, final OffHeapAllocator allocator)
    {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY)
        {
            throw new IllegalArgumentException(
                "connection table capacity must be " + MIN_CAPACITY + ".." + MAX_CAPACITY + ": " + capacity);
        }
        this.v6 = v6;
        this.entryLength = v6 ? V6_ENTRY_LENGTH : V4_ENTRY_LENGTH;
        this.meta = v6 ? V6_META : V4_META;
        this.capacity = capacity;
        this.slotsPerLine = 64 / entryLength;
        this.lines = (int)Math.ceil(capacity / LOAD_FACTOR / slotsPerLine);
        this.slots = lines * slotsPerLine;
        // One spare cache line at the end: callers may touch the line after a home slot.
        final long bytes = (long)slots * entryLength + 64;
        this.memory = allocator.allocate(bytes);
        if (memory.length() < bytes)
        {
            throw new IllegalStateException("allocator returned " + memory.length() + " bytes, not " + bytes);
        }
        this.base = memory.address();
        this.listener = listener;
    }

    /**
     * Makes sweeps pass over blocks of slots with nothing due yet, and over the empty slots of a due block, at
     * the price of keeping a bound and a bitmap of used slots per block on every insert, removal and timer moved
     * earlier (perf/RESULTS.md, "Replay rate, one core", has what the bound costs). Worth it
     * where sweeping dominates: a replay's virtual clock runs the once-a-second sweep over the whole table
     * far more often per packet than a wire does. Call before the first insert.
     * <p>
     * What a sweep passes over counts against its budget slot by slot, so every call removes the entries, in the
     * order, that a sweep looking at every slot would: what is skipped changes the speed, never the result.
     *
     * @throws IllegalStateException if the table holds entries already.
     */
    public void skipIdleBlocks()
    {
        if (size != 0)
        {
            throw new IllegalStateException("skipIdleBlocks must be called on an empty table");
        }
        blockBound = new int[(slots + BLOCK_SLOTS - 1) >>> BLOCK_SHIFT];
        java.util.Arrays.fill(blockBound, UNKNOWN);
        usedSlots = new long[(slots + 63) >>> WORD_SHIFT];
    }

    /**
     * @return whether sweeps pass over blocks with nothing due ({@link #skipIdleBlocks()}).
     */
    public boolean skipsIdleBlocks()
    {
        return blockBound != null;
    }

    public boolean isV6()
    {
        return v6;
    }

    public int capacity()
    {
        return capacity;
    }

    /**
     * @return how many slots the table has (capacity / load factor).
     */
    public int slots()
    {
        return slots;
    }

    /**
     * @return the bytes of memory the table takes.
     */
    public long memoryBytes()
    {
        return memory.length();
    }

    /**
     * @return bytes of table per connection at capacity (entries and the load factor's spare slots).
     */
    public double bytesPerConnection()
    {
        return (double)slots * entryLength / capacity;
    }

    public int size()
    {
        return size;
    }

    /**
     * @return how many half-open or expired entries were reclaimed to make room.
     */
    public long evictions()
    {
        return evictions;
    }

    /**
     * @return how many inserts were refused because the table was full.
     */
    public long refusals()
    {
        return refusals;
    }

    /**
     * @param nowNs a time on the worker's clock.
     * @return the tick entries' expiry is measured in.
     */
    public static int tick(final long nowNs)
    {
        return (int)(nowNs / TICK_NS);
    }

    // ---------------------------------------------------------------------------------------------------
    // Hashing and lookups

    /**
     * @return the slot a client end's probe starts at (the first slot of a cache line).
     */
    public int home(final int protocol, final long clientHigh, final long clientLow, final int clientPort)
    {
        // One multiply mixes every key bit into the product's top half, which picks the line (Lemire's
        // multiply-shift instead of a modulo).
        final long key = clientLow ^ clientHigh * 0x9E37_79B9_7F4A_7C15L ^ ((long)(clientPort << 8 | protocol) << 40);
        final long h = key * 0xBF58_476D_1CE4_E5B9L;
        return (int)(((h >>> 32) * lines) >>> 32) * slotsPerLine;
    }

    /**
     * The address of a slot's first byte. Callers can touch it ahead of time to bring the line into
     * cache while other packets are processed.
     */
    public long slotAddress(final int slot)
    {
        return base + (long)slot * entryLength;
    }

    /**
     * Finds the entry of a packet sent by the client.
     *
     * @return the slot, or {@link #NOT_FOUND} (and {@link #insert} may follow with the same client end).
     */
    public int lookupForward(
        final int protocol,
        final long clientHigh,
        final long clientLow,
        final int clientPort,
        final long virtualHigh,
        final long virtualLow,
        final int virtualPort)
    {
        return lookupForward(home(protocol, clientHigh, clientLow, clientPort), protocol, clientHigh, clientLow,
            clientPort, virtualHigh, virtualLow, virtualPort);
    }

    /**
     * The slot a lookup from {@code home} had best compare first: for IPv4, the other slot of the home line when
     * the home slot's ports are not the packet's, else the home slot. At the table's load about a quarter of the
     * entries sit in their line's second slot, and a lookup that compares the home slot first then mispredicts its
     * branch; computed for a frame ahead of its lookup ({@link #lookupForward(int, int, int, long, long, int, long,
     * long, int)}), with arithmetic rather than a branch, it keeps that compare off the frame's path. For IPv6 (a
     * slot a line) the home slot. Reads the home line, which should be in cache by then.
     */
    public int firstProbe(final int home, final int clientPort, final int virtualPort)
    {
        if (v6)
        {
            return home;
        }
        final int portsDiffer = Frames.i32(slotAddress(home) + meta + CLIENT_PORT) ^ (clientPort << 16 | virtualPort);
        return home + ((portsDiffer | -portsDiffer) >>> 31);
    }

    /**
     * As {@link #lookupForward(int, int, long, long, int, long, long, int)}, comparing the slot {@link #firstProbe}
     * gave for the same key before probing from its home. The result is the same for any slot of this table as
     * {@code first}: a slot that does not hold the key only costs its compare.
     */
    public int lookupForward(
        final int home,
        final int first,
        final int protocol,
        final long clientHigh,
        final long clientLow,
        final int clientPort,
        final long virtualHigh,
        final long virtualLow,
        final int virtualPort)
    {
        if (holdsForward(slotAddress(first), protocol, clientHigh, clientLow, clientPort << 16 | virtualPort,
            virtualHigh, virtualLow))
        {
            emptySlot = NOT_FOUND;
            return first;
        }
        return lookupForward(home, protocol, clientHigh, clientLow, clientPort, virtualHigh, virtualLow, virtualPort);
    }

    /**
     * As {@link #lookupForward(int, long, long, int, long, long, int)} from a home slot already computed
     * with {@link #home}.
     */
    public int lookupForward(
        final int home,
        final int protocol,
        final long clientHigh,
        final long clientLow,
        final int clientPort,
        final long virtualHigh,
        final long virtualLow,
        final int virtualPort)
    {
        final int endpoint = clientPort << 16 | virtualPort;
        int slot = home;
        while (true)
        {
            final long entry = slotAddress(slot);
            final int flags = Frames.u8(entry + meta + FLAGS);
            if ((flags & FLAG_USED) == 0)
            {
                emptySlot = slot;
                lastHome = home;
                return NOT_FOUND;
            }
            if (Frames.i32(entry + meta + CLIENT_PORT) == endpoint &&
                Frames.u8(entry + meta + PROTOCOL) == protocol &&
                addressesMatch(entry, clientHigh, clientLow, virtualHigh, virtualLow))
            {
                emptySlot = NOT_FOUND;
                return slot;
            }
            slot = next(slot);
        }
    }

    /** Whether the slot whose entry starts at {@code entry} holds the connection of this client end. */
    private boolean holdsForward(final long entry, final int protocol, final long clientHigh, final long clientLow,
        final int endpoint, final long virtualHigh, final long virtualLow)
    {
        return Frames.i32(entry + meta + CLIENT_PORT) == endpoint &&
            (Frames.u8(entry + meta + FLAGS) & FLAG_USED) != 0 && Frames.u8(entry + meta + PROTOCOL) == protocol &&
            addressesMatch(entry, clientHigh, clientLow, virtualHigh, virtualLow);
    }

    /**
     * Finds the entry of a NAT reply: sent by a real server to the client's end.
     *
     * @param servers the real servers' addresses and ports, to compare with the reply's source.
     * @return the slot, or {@link #NOT_FOUND}.
     */
    public int lookupReverse(
        final int protocol,
        final long clientHigh,
        final long clientLow,
        final int clientPort,
        final long serverHigh,
        final long serverLow,
        final int serverPort,
        final ServerAddresses servers)
    {
        return lookupReverse(home(protocol, clientHigh, clientLow, clientPort), protocol, clientHigh, clientLow,
            clientPort, serverHigh, serverLow, serverPort, servers);
    }

    /**
     * As {@link #lookupReverse(int, long, long, int, long, long, int, ServerAddresses)} from a home slot
     * already computed with {@link #home}.
     */
    public int lookupReverse(
        final int home,
        final int protocol,
        final long clientHigh,
        final long clientLow,
        final int clientPort,
        final long serverHigh,
        final long serverLow,
        final int serverPort,
        final ServerAddresses servers)
    {
        int slot = home;
        while (true)
        {
            final long entry = slotAddress(slot);
            final int flags = Frames.u8(entry + meta + FLAGS);
            if ((flags & FLAG_USED) == 0)
            {
                return NOT_FOUND;
            }
            if (Frames.u16(entry + meta + CLIENT_PORT) == clientPort &&
                Frames.u8(entry + meta + PROTOCOL) == protocol &&
                clientMatches(entry, clientHigh, clientLow))
            {
                final int server = Frames.i32(entry + meta + SERVER);
                final int portKey =
                    Frames.u16(entry + meta + VIRTUAL_PORT) | (flags & FLAG_PACKETS_PORT) * PACKETS_PORT_SCALE;
                if (servers.matches(server, serverHigh, serverLow, serverPort, portKey))
                {
                    return slot;
                }
            }
            slot = next(slot);
        }
    }

    private boolean addressesMatch(
        final long entry, final long clientHigh, final long clientLow, final long virtualHigh, final long virtualLow)
    {
        if (!v6)
        {
            return Frames.i64(entry) == (clientLow << 32 | virtualLow);
        }
        return Frames.i64(entry + 8) == clientLow && Frames.i64(entry + 24) == virtualLow &&
            Frames.i64(entry) == clientHigh && Frames.i64(entry + 16) == virtualHigh;
    }

    private boolean clientMatches(final long entry, final long clientHigh, final long clientLow)
    {
        if (!v6)
        {
            return (Frames.i32(entry) & 0xFFFF_FFFFL) == clientLow;
        }
        return Frames.i64(entry + 8) == clientLow && Frames.i64(entry) == clientHigh;
    }

    private int next(final int slot)
    {
        final int next = slot + 1;
        return next == slots ? 0 : next;
    }

    // ---------------------------------------------------------------------------------------------------
    // Insertion, reclaiming and deletion

    /**
     * Adds an entry for a client end that {@link #lookupForward} has just not found. When the table is
     * full it first reclaims, near the new entry's home, an expired entry and then a half-open one
     * (never an established one); if there is none the insert is refused.
     *
     * @return the new entry's slot, or {@link #FULL}.
     * @throws IllegalStateException if no unsuccessful lookup came just before: a caller's bug, which
     *         would otherwise write outside the table.
     */
    public int insert(
        final int protocol,
        final long clientHigh,
        final long clientLow,
        final int clientPort,
        final long virtualHigh,
        final long virtualLow,
        final int virtualPort,
        final int nowTick)
    {
        if (emptySlot == NOT_FOUND)
        {
            throw new IllegalStateException("insert must follow a lookupForward that did not find the entry");
        }
        bindUnbound();
        if (size >= capacity)
        {
            if (!reclaimNear(lastHome, nowTick))
            {
                refusals++;
                return FULL;
            }
            // Deleting shifted entries: find the slot the key now belongs in.
            lookupForward(protocol, clientHigh, clientLow, clientPort, virtualHigh, virtualLow, virtualPort);
        }
        final int slot = emptySlot;
        final long entry = slotAddress(slot);
        if (!v6)
        {
            Frames.putI64(entry, clientLow << 32 | virtualLow);
        }
        else
        {
            Frames.putI64(entry, clientHigh);
            Frames.putI64(entry + 8, clientLow);
            Frames.putI64(entry + 16, virtualHigh);
            Frames.putI64(entry + 24, virtualLow);
        }
        final long fields = entry + meta;
        Frames.putI32(fields + CLIENT_PORT, clientPort << 16 | virtualPort);
        Frames.putU8(fields + PROTOCOL, protocol);
        Frames.putU8(fields + STATE, 0);
        Frames.putU8(fields + FLAGS, FLAG_USED);
        Frames.putI32(fields + SERVER, 0);
        Frames.putI32(fields + EXPIRES, nowTick + NEW_ENTRY_TICKS);
        if (usedSlots != null)
        {
            usedSlots[slot >>> WORD_SHIFT] |= 1L << slot;
            unbound = slot;
        }
        Frames.putI32(fields + TEMPLATE, -1);
        Frames.putI32(fields + HOME, lastHome);
        size++;
        emptySlot = NOT_FOUND;
        return slot;
    }

    private boolean reclaimNear(final int home, final int nowTick)
    {
        int slot = home;
        int halfOpen = NOT_FOUND;
        // The victim need not share the new entry's probe run: any nearby slot frees room, so empty
        // slots are stepped over rather than ending the search.
        for (int i = 0; i < RECLAIM_WINDOW && i < slots; i++)
        {
            final long fields = slotAddress(slot) + meta;
            if ((Frames.u8(fields + FLAGS) & FLAG_USED) == 0)
            {
                slot = next(slot);
                continue;
            }
            if (isExpired(slot, nowTick))
            {
                remove(slot, false);
                evictions++;
                return true;
            }
            if (halfOpen == NOT_FOUND && isHalfOpen(fields))
            {
                halfOpen = slot;
            }
            slot = next(slot);
        }
        if (halfOpen != NOT_FOUND)
        {
            remove(halfOpen, true);
            evictions++;
            return true;
        }
        return false;
    }

    private static boolean isHalfOpen(final long fields)
    {
        if (Frames.u8(fields + PROTOCOL) != io.jvs.core.packet.Ipv4Header.PROTOCOL_TCP)
        {
            return false;
        }
        final int state = Frames.u8(fields + STATE);
        return state == TcpStates.NONE || state == TcpStates.SYN_RECV || state == TcpStates.SYN_SENT ||
            state == TcpStates.SYNACK;
    }

    /**
     * Removes an entry, telling the listener first, and shifts the rest of its probe run back.
     *
     * @param slot    a used slot.
     * @param evicted whether it leaves early to make room.
     */
    public void remove(final int slot, final boolean evicted)
    {
        if (slot == unbound)
        {
            unbound = -1;
        }
        listener.onRemoved(this, slot, evicted);
        size--;
        int hole = slot;
        int probe = slot;
        while (true)
        {
            probe = next(probe);
            final long entry = slotAddress(probe);
            if ((Frames.u8(entry + meta + FLAGS) & FLAG_USED) == 0)
            {
                break;
            }
            final int home = Frames.i32(entry + meta + HOME);
            // The entry may fill the hole unless its home lies cyclically in (hole, probe].
            final boolean stays = hole <= probe ? (hole < home && home <= probe) : (hole < home || home <= probe);
            if (!stays)
            {
                Frames.copy(entry, slotAddress(hole), entryLength);
                if (blockBound != null)
                {
                    lowerBound(hole, Frames.i32(entry + meta + EXPIRES));
                    if (probe == unbound)
                    {
                        unbound = -1;
                    }
                }
                hole = probe;
            }
        }
        Frames.putU8(slotAddress(hole) + meta + FLAGS, 0);
        if (usedSlots != null)
        {
            // The entries the shift moved went into slots that were used: only the last one it left is empty.
            usedSlots[hole >>> WORD_SHIFT] &= ~(1L << hole);
        }
    }

    /**
     * Reclaims expired entries among the next {@code budget} slots, continuing where the last call
     * stopped; a full pass over the table takes {@code slots / budget} calls.
     *
     * @return how many entries expired.
     */
    public int sweep(final int nowTick, final int budget)
    {
        if (blockBound == null)
        {
            return sweepEverySlot(nowTick, budget);
        }
        bindUnbound();
        int expired = 0;
        int cursor = sweepCursor;
        int block = sweepBlock;
        boolean partial = sweepBlockPartial;
        // The earliest expiry among the current block's entries seen by this call; merged into the block's
        // bound when the sweep leaves the block or returns (the data path lowers the bound directly).
        int earliest = nowTick + HORIZON;
        for (int examined = 0; examined < budget; examined++)
        {
            if (cursor >>> BLOCK_SHIFT != block)
            {
                if (!partial)
                {
                    mergeBound(block, earliest);
                }
                earliest = nowTick + HORIZON;
                partial = false;
                block = cursor >>> BLOCK_SHIFT;
                final int bound = blockBound[block];
                if (bound != UNKNOWN && bound - nowTick > 0)
                {
                    // Nothing here is due: the slots count against the budget as if looked at one by one, so the
                    // call stops where a sweep of every slot would, and the next one enters the block again.
                    final int end = Math.min(slots, (block + 1) << BLOCK_SHIFT);
                    final int left = budget - examined;
                    if (end - cursor >= left)
                    {
                        cursor += left;
                        if (cursor == slots)
                        {
                            cursor = 0;
                        }
                        block = -1;
                        break;
                    }
                    examined += end - cursor - 1;
                    cursor = end == slots ? 0 : end;
                    block = -1;
                    continue;
                }
                // Entered at its first slot, the sweep sees every entry of the block: their earliest expiry becomes
                // its bound. Entered part-way (the last call stopped in it while it was not due), the sweep leaves
                // the bound as it was, due, until a pass enters the block at its start.
                partial = (cursor & (BLOCK_SLOTS - 1)) != 0;
                if (!partial)
                {
                    blockBound[block] = nowTick + HORIZON;
                }
            }
            // The empty slots before the block's next entry count as examined, as if looked at one by one.
            // The block's slots from the cursor on, the rest of its bitmap word (the next blocks') masked off.
            final int blockEnd = Math.min(slots, (block + 1) << BLOCK_SHIFT);
            final long usedFromHere = usedSlots[cursor >>> WORD_SHIFT] >>> cursor & (1L << blockEnd - cursor) - 1;
            final int empty = usedFromHere == 0 ? blockEnd - cursor : Long.numberOfTrailingZeros(usedFromHere);
            if (empty > 0)
            {
                final int left = budget - examined;
                if (empty >= left)
                {
                    cursor += left;
                    if (cursor == slots)
                    {
                        cursor = 0;
                    }
                    break;
                }
                examined += empty - 1;
                cursor += empty;
                if (cursor == slots)
                {
                    cursor = 0;
                }
                continue;
            }
            final long fields = slotAddress(cursor) + meta;
            if ((Frames.u8(fields + FLAGS) & FLAG_USED) != 0)
            {
                final int expires = Frames.i32(fields + EXPIRES);
                if (expires - nowTick <= 0)
                {
                    remove(cursor, false);
                    expired++;
                    // The shift may have moved a later entry into this slot: look at it again.
                    continue;
                }
                if (expires - earliest < 0)
                {
                    earliest = expires;
                }
            }
            cursor = next(cursor);
        }
        if (!partial)
        {
            mergeBound(block, earliest);
        }
        moveSweepCursor(cursor, budget);
        sweepBlock = block;
        sweepBlockPartial = partial;
        return expired;
    }

    /**
     * Names the cache lines a {@link #sweep} will read next that no earlier call named, so that {@code slotsAhead}
     * slots past where the last sweep stopped are covered, for the caller to prefetch while it does other work. A
     * sweep walks the table in order, but a few lines a call with a burst's random lookups between calls, so the
     * processor's stream prefetcher never catches up, and in a table beyond the cache each line the sweep reads is a
     * miss to memory. Called once a burst with the slots the sweep will have due by the next, it names about a
     * burst's share of lines each time: a whole sweep's prefetches issued at once would fill the core's line-fill
     * buffers and stall it. As each prefetch call has a cost of its own, a call that finds the cover short goes
     * {@code runLines} lines further than asked, so that calls name lines a run at a time. Lines of blocks with
     * nothing due ({@link #skipIdleBlocks}) and lines without an entry are left out, as the sweep passes over them,
     * so such a table of long-lived connections names none; a block with nothing due is passed over at once, and a
     * call looks at no more than a few times {@code maxLines} lines.
     *
     * @param nowTick    the current tick (a block due by then is named).
     * @param slotsAhead how far past the sweep's cursor the lines named should reach.
     * @param runLines   how many lines further than asked a call goes.
     * @param addresses  where to write the lines' addresses, as native 8-byte longs.
     * @param maxLines   the most lines to name.
     * @return how many lines were named.
     */
    public int sweepAhead(final int nowTick, final int slotsAhead, final int runLines, final long addresses,
        final int maxLines)
    {
        final int target = Math.min(slotsAhead, slots);
        if (size == 0 || aheadOfSweep >= target)
        {
            return 0;
        }
        final int goal = Math.min(slots, target + runLines * slotsPerLine);
        int named = 0;
        int looked = 0;
        final int lookLimit = 4 * maxLines;
        // From the start of the line the last call stopped in (the sweep's own line on the first): every line
        // named starts where the one before it ended.
        int ahead = aheadOfSweep - (sweepCursor + aheadOfSweep) % slotsPerLine;
        int cursor = sweepCursor + ahead;
        cursor = cursor >= slots ? cursor - slots : cursor;
        final int lineMask = (1 << slotsPerLine) - 1;
        while (ahead < goal && named < maxLines && looked < lookLimit)
        {
            int step = slotsPerLine;
            boolean worth = true;
            if (blockBound != null)
            {
                final int block = cursor >>> BLOCK_SHIFT;
                final int bound = blockBound[block];
                // The block the sweep is in has a bound of only the entries it has seen so far.
                if (block != sweepBlock && bound != UNKNOWN && bound - nowTick > 0)
                {
                    step = Math.min(slots, (block + 1) << BLOCK_SHIFT) - cursor;
                    worth = false;
                }
                else
                {
                    worth = (usedSlots[cursor >>> WORD_SHIFT] >>> cursor & lineMask) != 0;
                }
            }
            if (worth)
            {
                UnsafeApi.putLong(addresses + (long)named * Long.BYTES, slotAddress(cursor));
                named++;
            }
            looked++;
            ahead += step;
            cursor += step;
            if (cursor == slots)
            {
                cursor = 0;
            }
        }
        aheadOfSweep = ahead;
        return named;
    }

    private int sweepEverySlot(final int nowTick, final int budget)
    {
        if (size == 0)
        {
            // Nothing to expire: the cursor goes where looking at each empty slot would have left it. An idle
            // daemon's tables are empty once their connections have gone, and its sweep, a whole table a second,
            // was most of its idle CPU.
            moveSweepCursor((int)((sweepCursor + (long)budget) % slots), budget);
            return 0;
        }
        int expired = 0;
        int cursor = sweepCursor;
        for (int examined = 0; examined < budget; examined++)
        {
            if (isUsed(cursor) && isExpired(cursor, nowTick))
            {
                remove(cursor, false);
                expired++;
                // The shift may have moved a later entry into this slot: look at it again.
                continue;
            }
            cursor = next(cursor);
        }
        moveSweepCursor(cursor, budget);
        return expired;
    }

    private void moveSweepCursor(final int cursor, final int budget)
    {
        final int advance = cursor >= sweepCursor ? cursor - sweepCursor : cursor + slots - sweepCursor;
        // A budget of the whole table may have come round to where it started: all of it was passed.
        aheadOfSweep = budget >= slots ? 0 : Math.max(0, aheadOfSweep - advance);
        sweepCursor = cursor;
    }

    /** Where the next sweep starts: for tests. */
    int sweepCursor()
    {
        return sweepCursor;
    }

    /** How far past {@link #sweepCursor()} lines have been named: for tests. */
    int aheadOfSweep()
    {
        return aheadOfSweep;
    }

    private void mergeBound(final int block, final int earliest)
    {
        if (block >= 0)
        {
            final int bound = blockBound[block];
            if (bound == UNKNOWN || earliest - bound < 0)
            {
                blockBound[block] = earliest;
            }
        }
    }

    /** Bounds the block of the entry {@link #insert} made last by its placeholder timer, if it is still unbound. */
    private void bindUnbound()
    {
        if (unbound >= 0)
        {
            lowerBound(unbound, Frames.i32(slotAddress(unbound) + meta + EXPIRES));
            unbound = -1;
        }
    }

    /** Keeps the block's bound at or before an expiry written into one of its slots. */
    private void lowerBound(final int slot, final int expiresTick)
    {
        if (blockBound == null)
        {
            return;
        }
        final int block = slot >>> BLOCK_SHIFT;
        final int bound = blockBound[block];
        if (bound != UNKNOWN && expiresTick - bound < 0)
        {
            blockBound[block] = expiresTick;
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // Entry fields

    public boolean isUsed(final int slot)
    {
        return (Frames.u8(slotAddress(slot) + meta + FLAGS) & FLAG_USED) != 0;
    }

    public boolean isExpired(final int slot, final int nowTick)
    {
        return Frames.i32(slotAddress(slot) + meta + EXPIRES) - nowTick <= 0;
    }

    public int state(final int slot)
    {
        return Frames.u8(slotAddress(slot) + meta + STATE);
    }

    public void state(final int slot, final int state)
    {
        Frames.putU8(slotAddress(slot) + meta + STATE, state);
    }

    public int protocol(final int slot)
    {
        return Frames.u8(slotAddress(slot) + meta + PROTOCOL);
    }

    public int flags(final int slot)
    {
        return Frames.u8(slotAddress(slot) + meta + FLAGS);
    }

    public void flags(final int slot, final int flags)
    {
        Frames.putU8(slotAddress(slot) + meta + FLAGS, flags | FLAG_USED);
    }

    public boolean isInactive(final int slot)
    {
        return (flags(slot) & FLAG_INACTIVE) != 0;
    }

    public boolean isNoOutput(final int slot)
    {
        return (flags(slot) & FLAG_NO_OUTPUT) != 0;
    }

    /**
     * @return the forwarding method the connection was made with, as {@link #methodFlags} gave it: the server's
     *         method may have changed since, and the connection keeps its own, as the kernel's do.
     */
    public int method(final int slot)
    {
        return methodOf(flags(slot));
    }

    /**
     * @param flags an entry's {@link #flags(int)}.
     * @return its {@link #method(int)}: for a caller that reads the flags once for several of their fields.
     */
    public static int methodOf(final int flags)
    {
        return (flags & ConnectionLayout.METHOD_MASK) >>> ConnectionLayout.METHOD_SHIFT;
    }

    public int server(final int slot)
    {
        return Frames.i32(slotAddress(slot) + meta + SERVER);
    }

    public void server(final int slot, final int server)
    {
        Frames.putI32(slotAddress(slot) + meta + SERVER, server);
    }

    public int expiresTick(final int slot)
    {
        return Frames.i32(slotAddress(slot) + meta + EXPIRES);
    }

    public void expiresTick(final int slot, final int tick)
    {
        final long field = slotAddress(slot) + meta + EXPIRES;
        if (blockBound != null && (tick - Frames.i32(field) < 0 || slot == unbound))
        {
            // A timer re-armed later keeps its block's bound valid: only an earlier one must lower it, or the
            // first one an entry gets.
            lowerBound(slot, tick);
            unbound = slot == unbound ? -1 : unbound;
        }
        Frames.putI32(field, tick);
    }

    /**
     * Gives an entry {@link #insert} has just made its server, flags, state and timer in one go, as the
     * setters one by one would.
     */
    public void open(final int slot, final int server, final int flags, final int state, final int expiresTick)
    {
        final long fields = slotAddress(slot) + meta;
        Frames.putI32(fields + SERVER, server);
        Frames.putU8(fields + FLAGS, flags | FLAG_USED);
        Frames.putU8(fields + STATE, state);
        if (blockBound != null && (expiresTick - Frames.i32(fields + EXPIRES) < 0 || slot == unbound))
        {
            lowerBound(slot, expiresTick);
            unbound = slot == unbound ? -1 : unbound;
        }
        Frames.putI32(fields + EXPIRES, expiresTick);
    }

    public int template(final int slot)
    {
        return Frames.i32(slotAddress(slot) + meta + TEMPLATE);
    }

    public void template(final int slot, final int template)
    {
        Frames.putI32(slotAddress(slot) + meta + TEMPLATE, template);
    }

    public int clientPort(final int slot)
    {
        return Frames.u16(slotAddress(slot) + meta + CLIENT_PORT);
    }

    public int virtualPort(final int slot)
    {
        return Frames.u16(slotAddress(slot) + meta + VIRTUAL_PORT);
    }

    /**
     * @return the entry's virtual port with {@link ServerAddresses#PACKETS_PORT} when it goes to that port whatever
     *         its server's ({@link #FLAG_PACKETS_PORT}): what {@link ServerAddresses#port} takes.
     */
    public int portKey(final int slot)
    {
        return portKey(virtualPort(slot), flags(slot));
    }

    /**
     * @param virtualPort an entry's {@link #virtualPort(int)}.
     * @param flags       its {@link #flags(int)}.
     * @return its {@link #portKey(int)}.
     */
    public static int portKey(final int virtualPort, final int flags)
    {
        return virtualPort | (flags & FLAG_PACKETS_PORT) * PACKETS_PORT_SCALE;
    }

    public long clientHigh(final int slot)
    {
        return v6 ? Frames.i64(slotAddress(slot)) : 0;
    }

    public long clientLow(final int slot)
    {
        return v6 ? Frames.i64(slotAddress(slot) + 8) : Frames.i32(slotAddress(slot)) & 0xFFFF_FFFFL;
    }

    public long virtualHigh(final int slot)
    {
        return v6 ? Frames.i64(slotAddress(slot) + 16) : 0;
    }

    public long virtualLow(final int slot)
    {
        return v6 ? Frames.i64(slotAddress(slot) + 24) : Frames.i32(slotAddress(slot) + 4) & 0xFFFF_FFFFL;
    }
}
