package io.jvs.core.memory;

import org.agrona.BufferUtil;

import java.nio.ByteBuffer;

/**
 * Where large off-heap tables get their memory. The default is a direct buffer; the forwarder can pass
 * memory backed by huge pages (through native-bindings), which spares a table of millions of entries
 * most of its TLB misses. Core itself makes no native calls.
 */
@FunctionalInterface
public interface OffHeapAllocator
{
    /** The most {@link #DIRECT} gives: an int-indexed buffer, less room for its alignment. */
    long MAX_DIRECT_BYTES = Integer.MAX_VALUE - 8192;

    /** Page-aligned, zeroed direct buffers: at most {@link #MAX_DIRECT_BYTES}, a ByteBuffer's limit. */
    OffHeapAllocator DIRECT = bytes ->
    {
        if (bytes > MAX_DIRECT_BYTES)
        {
            throw new IllegalArgumentException("a direct buffer holds at most " + MAX_DIRECT_BYTES + " bytes, not " +
                bytes + ": larger tables need memory from the forwarder's huge-page allocator");
        }
        return new Region(BufferUtil.allocateDirectAligned((int)bytes, 4096));
    };

    /**
     * @param bytes how many bytes.
     * @return zeroed memory aligned to at least 4096 bytes.
     * @throws IllegalArgumentException if this allocator cannot give that much in one block.
     */
    Region allocate(long bytes);

    /**
     * A block of off-heap memory.
     *
     * @param address its first byte.
     * @param length  its length.
     * @param owner   whatever keeps it mapped: hold on to the region as long as the memory is used.
     */
    record Region(long address, long length, Object owner)
    {
        /**
         * @param buffer a direct buffer.
         */
        public Region(final ByteBuffer buffer)
        {
            this(BufferUtil.address(buffer), buffer.capacity(), buffer);
        }
    }
}
