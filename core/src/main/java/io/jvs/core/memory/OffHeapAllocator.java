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
    /** Page-aligned, zeroed direct buffers. */
    OffHeapAllocator DIRECT = bytes -> new Region(BufferUtil.allocateDirectAligned(Math.toIntExact(bytes), 4096));

    /**
     * @param bytes how many bytes, at most {@link Integer#MAX_VALUE}.
     * @return zeroed memory aligned to at least 4096 bytes.
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
