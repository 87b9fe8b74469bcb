package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.jvs.nativebindings.Mmap;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.xdp.AfXdp;
import io.jvs.nativebindings.xdp.XdpUmemReg;

/**
 * The frame memory the kernel and the AF_XDP sockets of a forwarding pair share: one page-aligned anonymous
 * mapping of {@code chunkCount} chunks of {@code chunkSize} bytes, registered once on its owner socket
 * (XDP_UMEM_REG) and shared by the others (XDP_SHARED_UMEM), so a frame received on one socket is
 * transmitted from another without a copy.
 * <p>
 * Every chunk is always in exactly one place: on this free stack, in a fill ring, in an RX ring or burst,
 * in a TX ring, or in a completion ring. The stack refuses a chunk given back twice (and counts it) instead
 * of lending it to two owners. Addresses on the rings are offsets into the UMEM; the chunk of an offset is
 * {@code offset >> log2(chunkSize)} (aligned chunk mode). Single-threaded: the ports sharing a UMEM share a
 * thread.
 */
public final class Umem implements AutoCloseable
{
    /** What {@link #allocate()} returns when every chunk is lent. */
    public static final int NO_CHUNK = -1;

    private final Syscalls syscalls;
    private final MemorySegment region;
    private final boolean mapped;
    private final int chunkCount;
    private final int chunkSize;
    private final int chunkShift;
    private final int[] freeStack;
    private final boolean[] lent;
    private int freeCount;
    private long refusedFrees;
    private boolean closed;

    private Umem(final Syscalls syscalls, final MemorySegment region, final boolean mapped, final int chunkCount,
        final int chunkSize)
    {
        this.syscalls = syscalls;
        this.region = region;
        this.mapped = mapped;
        this.chunkCount = chunkCount;
        this.chunkSize = chunkSize;
        this.chunkShift = Integer.numberOfTrailingZeros(chunkSize);
        this.freeStack = new int[chunkCount];
        this.lent = new boolean[chunkCount];
        // Lend chunk 0 first: the top of the stack is at the end.
        for (int i = 0; i < chunkCount; i++)
        {
            freeStack[i] = chunkCount - 1 - i;
        }
        this.freeCount = chunkCount;
    }

    /**
     * Maps zeroed, pre-faulted memory for the chunks.
     *
     * @param chunkCount how many chunks, 1 and up.
     * @param chunkSize  2048 or 4096 (a power of two the kernel accepts in aligned mode).
     */
    public static Umem map(final Syscalls syscalls, final int chunkCount, final int chunkSize)
    {
        checkGeometry(chunkCount, chunkSize);
        final long length = (long)chunkCount * chunkSize;
        final long address = Syscalls.check("mmap", syscalls.mmap(0, length, Mmap.PROT_READ | Mmap.PROT_WRITE,
            Mmap.MAP_PRIVATE | Mmap.MAP_ANONYMOUS | Mmap.MAP_POPULATE, -1, 0), "UMEM of " + chunkCount +
            " chunks of " + chunkSize + " bytes");
        return new Umem(syscalls, MemorySegment.ofAddress(address).reinterpret(length), true, chunkCount, chunkSize);
    }

    /**
     * A UMEM over memory the caller owns, never registered with a kernel: for tests of the chunk accounting.
     */
    static Umem over(final MemorySegment region, final int chunkCount, final int chunkSize)
    {
        checkGeometry(chunkCount, chunkSize);
        if (region.byteSize() < (long)chunkCount * chunkSize)
        {
            throw new IllegalArgumentException("region too small for " + chunkCount + " chunks");
        }
        return new Umem(null, region, false, chunkCount, chunkSize);
    }

    private static void checkGeometry(final int chunkCount, final int chunkSize)
    {
        if (chunkSize < 2048 || chunkSize > Mmap.PAGE_SIZE || Integer.bitCount(chunkSize) != 1)
        {
            throw new IllegalArgumentException("UMEM chunk size " + chunkSize + " must be 2048 or 4096 (a power of " +
                "two from 2048 to the page size)");
        }
        if (chunkCount < 1)
        {
            throw new IllegalArgumentException("a UMEM needs at least one chunk, not " + chunkCount);
        }
    }

    /**
     * Registers the memory on its owner socket (XDP_UMEM_REG), headroom 0: the kernel still leaves its own
     * 256 bytes (XDP_PACKET_HEADROOM) before each received frame.
     */
    void register(final int ownerFd, final String context)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment reg = arena.allocate(XdpUmemReg.LAYOUT);
            reg.set(ValueLayout.JAVA_LONG, XdpUmemReg.ADDR_OFFSET, region.address());
            reg.set(ValueLayout.JAVA_LONG, XdpUmemReg.LEN_OFFSET, region.byteSize());
            reg.set(ValueLayout.JAVA_INT, XdpUmemReg.CHUNK_SIZE_OFFSET, chunkSize);
            Syscalls.check("setsockopt XDP_UMEM_REG", syscalls.setsockopt(ownerFd, AfXdp.SOL_XDP, AfXdp.XDP_UMEM_REG,
                reg.address(), XdpUmemReg.SIZE), context);
        }
    }

    /**
     * @return a chunk now lent to the caller, or {@link #NO_CHUNK}.
     */
    public int allocate()
    {
        if (freeCount == 0)
        {
            return NO_CHUNK;
        }
        final int chunk = freeStack[--freeCount];
        lent[chunk] = true;
        return chunk;
    }

    /**
     * Takes a chunk back.
     *
     * @return false, counted in {@link #refusedFrees()}, when it was not lent (a double free or a bad index).
     */
    public boolean free(final int chunk)
    {
        if (chunk < 0 || chunk >= chunkCount || !lent[chunk])
        {
            refusedFrees++;
            return false;
        }
        lent[chunk] = false;
        freeStack[freeCount++] = chunk;
        return true;
    }

    /**
     * @return the chunk holding the UMEM offset (an address from a ring).
     */
    public int chunkOf(final long umemOffset)
    {
        return (int)(umemOffset >>> chunkShift);
    }

    /**
     * @return the UMEM offset of the chunk's first byte: what goes on a fill ring.
     */
    public long offsetOf(final int chunk)
    {
        return (long)chunk << chunkShift;
    }

    /**
     * @return the process address of a UMEM offset.
     */
    public long addressOf(final long umemOffset)
    {
        return region.address() + umemOffset;
    }

    /**
     * @return true when the process address lies in this UMEM.
     */
    public boolean contains(final long address)
    {
        final long offset = address - region.address();
        return offset >= 0 && offset < region.byteSize();
    }

    /**
     * @return the UMEM offset of a process address inside it.
     */
    public long offsetOfAddress(final long address)
    {
        return address - region.address();
    }

    public int chunkCount()
    {
        return chunkCount;
    }

    public int chunkSize()
    {
        return chunkSize;
    }

    /** @return chunks on the free stack. */
    public int freeCount()
    {
        return freeCount;
    }

    /** @return frees refused: chunks given back twice or never lent. */
    public long refusedFrees()
    {
        return refusedFrees;
    }

    /**
     * Unmaps the memory. Close the sockets using it first. Safe to call twice.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            if (mapped)
            {
                syscalls.munmap(region.address(), region.byteSize());
            }
        }
    }
}
