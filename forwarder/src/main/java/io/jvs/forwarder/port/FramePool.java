package io.jvs.forwarder.port;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A port's frame buffers: one page-aligned off-heap region cut into buffers of a fixed size, as an AF_XDP UMEM
 * is cut into chunks. A frame starts {@link #headroom()} bytes into its buffer, so the pipeline can prepend
 * headers in place. Buffers are lent by index from a stack of free ones.
 * <pre>
 *   buffer i:  | headroom | frame ... capacity ...                    |
 *              ^ base + i * bufferSize
 *                         ^ frameAddress(i)
 * </pre>
 * Each buffer remembers whether it is lent, so a buffer given back twice is refused and counted instead of
 * being handed out to two owners. Not thread-safe: the ports that share a pool share one thread.
 */
public final class FramePool implements AutoCloseable
{
    /** The buffer size of an AF_XDP UMEM chunk. */
    public static final int DEFAULT_BUFFER_SIZE = 2048;
    /** Room for a tunnel header (IPv6 + GRE or GUE) in front of the frame. */
    public static final int DEFAULT_HEADROOM = 256;
    /** What {@link #allocate()} returns when every buffer is lent. */
    public static final int NO_BUFFER = -1;

    private static final int ALIGNMENT = 64;
    private static final long PAGE_SIZE = 4096;

    private final Arena arena;
    private final MemorySegment region;
    private final long base;
    private final int bufferCount;
    private final int bufferSize;
    private final int headroom;
    private final int[] freeStack;
    private final boolean[] lent;
    private int freeCount;
    private long refusedFrees;
    private boolean closed;

    /**
     * @param bufferCount how many buffers, 1 and up.
     * @param bufferSize  bytes per buffer, a multiple of 64, above the headroom.
     * @param headroom    bytes before each frame, 0 and up.
     */
    public FramePool(final int bufferCount, final int bufferSize, final int headroom)
    {
        if (bufferCount < 1)
        {
            throw new IllegalArgumentException("a frame pool needs at least one buffer, not " + bufferCount);
        }
        if (bufferSize < ALIGNMENT || bufferSize % ALIGNMENT != 0)
        {
            throw new IllegalArgumentException("buffer size " + bufferSize + " is not a positive multiple of 64");
        }
        if (headroom < 0 || headroom >= bufferSize)
        {
            throw new IllegalArgumentException("headroom " + headroom + " leaves no room in a " + bufferSize +
                "-byte buffer");
        }
        this.bufferCount = bufferCount;
        this.bufferSize = bufferSize;
        this.headroom = headroom;
        this.arena = Arena.ofShared();
        this.region = arena.allocate((long)bufferCount * bufferSize, PAGE_SIZE);
        this.base = region.address();
        this.freeStack = new int[bufferCount];
        this.lent = new boolean[bufferCount];
        // Lend buffer 0 first, then 1, ...: the stack's top is at the end.
        for (int i = 0; i < bufferCount; i++)
        {
            freeStack[i] = bufferCount - 1 - i;
        }
        this.freeCount = bufferCount;
    }

    /**
     * @return the index of a buffer now lent to the caller, or {@link #NO_BUFFER} when none is free.
     */
    public int allocate()
    {
        if (freeCount == 0)
        {
            return NO_BUFFER;
        }
        final int index = freeStack[--freeCount];
        lent[index] = true;
        return index;
    }

    /**
     * Takes a buffer back.
     *
     * @param index a buffer {@link #allocate()} lent.
     * @return false, and counted in {@link #refusedFrees()}, if it is not a lent buffer of this pool (already
     * free, or out of range): the pool is left as it was.
     */
    public boolean free(final int index)
    {
        if (index < 0 || index >= bufferCount || !lent[index])
        {
            refusedFrees++;
            return false;
        }
        lent[index] = false;
        freeStack[freeCount++] = index;
        return true;
    }

    /**
     * @return true if the address lies in one of this pool's buffers.
     */
    public boolean contains(final long address)
    {
        return address - base >= 0 && address - base < (long)bufferCount * bufferSize;
    }

    /**
     * @param address an address inside this pool ({@link #contains}).
     * @return the index of the buffer holding it.
     */
    public int bufferOf(final long address)
    {
        return (int)((address - base) / bufferSize);
    }

    /**
     * @return where the frame of buffer {@code index} starts: after its headroom.
     */
    public long frameAddress(final int index)
    {
        return base + (long)index * bufferSize + headroom;
    }

    /**
     * @return bytes a frame may use from its start: the buffer size less the headroom.
     */
    public int frameCapacity()
    {
        return bufferSize - headroom;
    }

    public int headroom()
    {
        return headroom;
    }

    public int bufferSize()
    {
        return bufferSize;
    }

    public int bufferCount()
    {
        return bufferCount;
    }

    /**
     * @return buffers not lent.
     */
    public int freeCount()
    {
        return freeCount;
    }

    /**
     * @return calls of {@link #free} refused: a buffer given back twice, or never lent.
     */
    public long refusedFrees()
    {
        return refusedFrees;
    }

    /**
     * @return the whole region, for bulk copies.
     */
    public MemorySegment region()
    {
        return region;
    }

    /**
     * Frees the memory. Every frame address lent becomes invalid: touching one afterwards crashes the JVM, so
     * close a pool only after the ports using it. Safe to call twice.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            arena.close();
        }
    }
}
