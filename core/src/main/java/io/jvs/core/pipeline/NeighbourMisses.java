package io.jvs.core.pipeline;

import org.agrona.BitUtil;

/**
 * The addresses one worker wanted a next hop for and had none (frames dropped as {@code no-neighbour}):
 * the worker drains them after each burst and passes them to the conductor, which asks the kernel to
 * resolve them (as the kernel's neighbour code queues a packet and sends a solicitation on a miss,
 * {@code neigh_resolve_output}), and the next snapshot has the answer.
 * <p>
 * A fixed ring, written and drained by its worker only: no locks, no allocation. A frame burst to an
 * unresolved host would record it once per frame, so a small table of recent addresses drops repeats:
 * an address is recorded again only after {@code repeatNs}, so a request the kernel could not answer is
 * asked again rather than forgotten. When the ring is full, further misses are counted and dropped.
 */
public final class NeighbourMisses
{
    /** Told each miss by {@link #drain}. */
    @FunctionalInterface
    public interface Sink
    {
        /**
         * @param v6   the family.
         * @param high the address's first 64 bits (0 for IPv4).
         * @param low  its last 64 bits, or the IPv4 address in the low 32.
         */
        void miss(boolean v6, long high, long low);
    }

    /** The ring's size when none is given. */
    public static final int DEFAULT_CAPACITY = 64;
    /** How long an address stays a repeat when none is given: one second. */
    public static final long DEFAULT_REPEAT_NS = 1_000_000_000L;

    private static final byte EMPTY = 0;
    private static final byte V4 = 1;
    private static final byte V6 = 2;

    private final boolean[] ringV6;
    private final long[] ringHigh;
    private final long[] ringLow;
    private final int ringMask;
    private final byte[] recentKind;
    private final long[] recentHigh;
    private final long[] recentLow;
    private final long[] recentNs;
    private final int recentMask;
    private final long repeatNs;
    private long head;
    private long tail;
    private long overflows;

    /**
     * A ring of {@link #DEFAULT_CAPACITY} misses, repeats dropped for {@link #DEFAULT_REPEAT_NS}.
     */
    public NeighbourMisses()
    {
        this(DEFAULT_CAPACITY, DEFAULT_REPEAT_NS);
    }

    /**
     * @param capacity how many misses wait for a drain, a power of two.
     * @param repeatNs how long a recorded address is not recorded again, 0 to record every miss.
     */
    public NeighbourMisses(final int capacity, final long repeatNs)
    {
        if (capacity < 1 || !BitUtil.isPowerOfTwo(capacity))
        {
            throw new IllegalArgumentException("capacity must be a power of two, not " + capacity);
        }
        if (repeatNs < 0)
        {
            throw new IllegalArgumentException("repeat interval must not be negative: " + repeatNs);
        }
        this.ringV6 = new boolean[capacity];
        this.ringHigh = new long[capacity];
        this.ringLow = new long[capacity];
        this.ringMask = capacity - 1;
        final int recent = capacity * 2;
        this.recentKind = new byte[recent];
        this.recentHigh = new long[recent];
        this.recentLow = new long[recent];
        this.recentNs = new long[recent];
        this.recentMask = recent - 1;
        this.repeatNs = repeatNs;
    }

    /**
     * Records a miss unless the same address was recorded within the repeat interval.
     *
     * @param v6    the family.
     * @param high  the address's first 64 bits (0 for IPv4).
     * @param low   its last 64 bits, or the IPv4 address in the low 32.
     * @param nowNs the time.
     * @return true when it was recorded, false for a repeat or a full ring.
     */
    public boolean record(final boolean v6, final long high, final long low, final long nowNs)
    {
        final byte kind = v6 ? V6 : V4;
        final long keyHigh = v6 ? high : 0;
        final long keyLow = v6 ? low : low & 0xFFFF_FFFFL;
        final int slot = recentSlot(keyHigh, keyLow, kind);
        if (recentKind[slot] == kind && recentHigh[slot] == keyHigh && recentLow[slot] == keyLow &&
            nowNs - recentNs[slot] < repeatNs)
        {
            return false;
        }
        if (tail - head > ringMask)
        {
            overflows++;
            return false;
        }
        final int index = (int)tail & ringMask;
        ringV6[index] = v6;
        ringHigh[index] = keyHigh;
        ringLow[index] = keyLow;
        tail++;
        recentKind[slot] = kind;
        recentHigh[slot] = keyHigh;
        recentLow[slot] = keyLow;
        recentNs[slot] = nowNs;
        return true;
    }

    /**
     * Hands every waiting miss to the sink, oldest first, and empties the ring.
     *
     * @return how many were handed over.
     */
    public int drain(final Sink sink)
    {
        int drained = 0;
        while (head != tail)
        {
            final int index = (int)head & ringMask;
            head++;
            drained++;
            sink.miss(ringV6[index], ringHigh[index], ringLow[index]);
        }
        return drained;
    }

    /**
     * @return how many misses wait for a drain.
     */
    public int pending()
    {
        return (int)(tail - head);
    }

    /**
     * @return how many misses were dropped because the ring was full.
     */
    public long overflows()
    {
        return overflows;
    }

    private int recentSlot(final long high, final long low, final byte kind)
    {
        final long h = (low ^ Long.rotateLeft(high, 29) ^ kind) * 0x9E37_79B9_7F4A_7C15L;
        return (int)(h >>> 40) & recentMask;
    }
}
