package io.jvs.forwarder.port.xdp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import io.jvs.nativebindings.xdp.AfXdp;

/**
 * One ring of an AF_XDP socket as mapped into this process: a producer index, a consumer index, a flags word
 * and {@code size} entries, at the offsets XDP_MMAP_OFFSETS gave. The fill and TX rings are produced here
 * and consumed by the kernel; the RX and completion rings the other way round. One class serves both roles:
 * a producer uses {@link #reserve}, the put methods and {@link #submit}; a consumer {@link #peek}, the get
 * methods and {@link #release}.
 * <p>
 * Indexes are free-running unsigned 32-bit counters; an entry's slot is {@code index & (size - 1)}, and
 * {@code producer - consumer} in int arithmetic counts the entries in flight across the wrap at 2^32.
 * The other side's index is read with acquire and ours published with release, the ordering the kernel's
 * side of the ring (net/xdp/xsk_queue.h) pairs with; both are cached, so the shared cache line is read only
 * when the cached view runs dry. Single-threaded; allocates nothing.
 */
final class XdpRing
{
    private static final VarHandle INDEX = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment memory;
    private final long producerOffset;
    private final long consumerOffset;
    private final long flagsOffset;
    private final long entriesOffset;
    private final int entrySize;
    private final int size;
    private final int mask;
    private int cachedProducer;
    private int cachedConsumer;

    /**
     * @param memory         the ring's mapping (or, in tests, any native memory laid out the same way).
     * @param size           entries, a power of two.
     * @param producerOffset where the producer index is.
     * @param consumerOffset where the consumer index is.
     * @param flagsOffset    where the flags word is.
     * @param entriesOffset  where entry 0 is.
     * @param entrySize      16 for RX/TX descriptors, 8 for fill/completion addresses.
     */
    XdpRing(final MemorySegment memory, final int size, final long producerOffset, final long consumerOffset,
        final long flagsOffset, final long entriesOffset, final int entrySize)
    {
        if (Integer.bitCount(size) != 1)
        {
            throw new IllegalArgumentException("ring size " + size + " is not a power of two");
        }
        if (memory.byteSize() < entriesOffset + (long)size * entrySize)
        {
            throw new IllegalArgumentException("ring memory of " + memory.byteSize() + " bytes is too small for " +
                size + " entries of " + entrySize + " at " + entriesOffset);
        }
        this.memory = memory;
        this.size = size;
        this.mask = size - 1;
        this.producerOffset = producerOffset;
        this.consumerOffset = consumerOffset;
        this.flagsOffset = flagsOffset;
        this.entriesOffset = entriesOffset;
        this.entrySize = entrySize;
        this.cachedProducer = (int)INDEX.getAcquire(memory, producerOffset);
        this.cachedConsumer = (int)INDEX.getAcquire(memory, consumerOffset);
    }

    /**
     * The bytes a ring of {@code size} entries maps: what comes before the entries, then the entries.
     */
    static long mappingLength(final long entriesOffset, final int size, final int entrySize)
    {
        return entriesOffset + (long)size * entrySize;
    }

    int size()
    {
        return size;
    }

    // ---- producer side (fill, TX) ----

    /**
     * @return how many of the {@code wanted} entries may be written now, from index {@link #producerIndex()};
     * the kernel's consumer index is re-read only when the cached one leaves too few.
     */
    int reserve(final int wanted)
    {
        int free = size - (cachedProducer - cachedConsumer);
        if (free < wanted)
        {
            cachedConsumer = (int)INDEX.getAcquire(memory, consumerOffset);
            free = size - (cachedProducer - cachedConsumer);
        }
        return Math.min(free, wanted);
    }

    /**
     * @return the index the next entry written goes to.
     */
    int producerIndex()
    {
        return cachedProducer;
    }

    /** Writes a fill or completion entry: a UMEM address. */
    void putAddress(final int index, final long umemAddress)
    {
        memory.set(ValueLayout.JAVA_LONG, entryOffset(index), umemAddress);
    }

    /** Writes an RX or TX descriptor (options 0). */
    void putDescriptor(final int index, final long umemAddress, final int length)
    {
        final long offset = entryOffset(index);
        memory.set(ValueLayout.JAVA_LONG, offset, umemAddress);
        memory.set(ValueLayout.JAVA_INT, offset + Long.BYTES, length);
        memory.set(ValueLayout.JAVA_INT, offset + Long.BYTES + Integer.BYTES, 0);
    }

    /** Publishes {@code count} entries written since the last submit. */
    void submit(final int count)
    {
        cachedProducer += count;
        INDEX.setRelease(memory, producerOffset, cachedProducer);
    }

    /**
     * @return entries submitted that the consumer has not taken yet (re-reads its index).
     */
    int unconsumed()
    {
        cachedConsumer = (int)INDEX.getAcquire(memory, consumerOffset);
        return cachedProducer - cachedConsumer;
    }

    // ---- consumer side (RX, completion) ----

    /**
     * @return how many entries, at most {@code wanted}, may be read now from index {@link #consumerIndex()};
     * the producer index is re-read only when the cached one leaves too few.
     */
    int peek(final int wanted)
    {
        int available = cachedProducer - cachedConsumer;
        if (available < wanted)
        {
            cachedProducer = (int)INDEX.getAcquire(memory, producerOffset);
            available = cachedProducer - cachedConsumer;
        }
        return Math.min(available, wanted);
    }

    /**
     * @return the index of the next entry to read.
     */
    int consumerIndex()
    {
        return cachedConsumer;
    }

    /** Reads a fill or completion entry, or the address of an RX or TX descriptor. */
    long address(final int index)
    {
        return memory.get(ValueLayout.JAVA_LONG, entryOffset(index));
    }

    /** Reads the length of an RX or TX descriptor. */
    int length(final int index)
    {
        return memory.get(ValueLayout.JAVA_INT, entryOffset(index) + Long.BYTES);
    }

    /** Gives {@code count} entries read since the last release back to the producer. */
    void release(final int count)
    {
        cachedConsumer += count;
        INDEX.setRelease(memory, consumerOffset, cachedConsumer);
    }

    /**
     * @return true when the kernel asked for a system call to make progress (XDP_RING_NEED_WAKEUP). A plain
     * read: the kernel re-checks the ring after setting the flag, so a stale value costs a kick at most.
     */
    boolean needsWakeup()
    {
        return (memory.get(ValueLayout.JAVA_INT, flagsOffset) & AfXdp.XDP_RING_NEED_WAKEUP) != 0;
    }

    /**
     * @return a second view of the same ring with cached indexes of its own, for the side this process does not
     * play: a {@link SimulatedXdpKernel}'s.
     */
    XdpRing otherSide()
    {
        return new XdpRing(memory, size, producerOffset, consumerOffset, flagsOffset, entriesOffset, entrySize);
    }

    /** Writes the flags word, as the kernel does: for a simulated kernel. */
    void flags(final int flags)
    {
        memory.set(ValueLayout.JAVA_INT, flagsOffset, flags);
    }

    private long entryOffset(final int index)
    {
        return entriesOffset + (long)(index & mask) * entrySize;
    }
}
