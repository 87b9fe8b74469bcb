package io.jvs.forwarder.memory;

import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.nativebindings.AnonymousMemory;

/**
 * Off-heap tables in anonymous mappings advised to use transparent huge pages. The mappings live as
 * long as the process (the tables they back are created once at start).
 */
public final class HugePageAllocator implements OffHeapAllocator
{
    /** The one instance. */
    public static final HugePageAllocator INSTANCE = new HugePageAllocator();

    private HugePageAllocator()
    {
    }

    @Override
    public Region allocate(final long bytes)
    {
        // Below one huge page the rounding would cost more than the pages save.
        final AnonymousMemory memory = AnonymousMemory.map(bytes, bytes >= AnonymousMemory.HUGE_PAGE_SIZE);
        return new Region(memory.address(), memory.length(), memory);
    }
}
