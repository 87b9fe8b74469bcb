package io.jvs.forwarder.memory;

import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.nativebindings.AnonymousMemory;

/**
 * Off-heap tables in anonymous mappings advised to use transparent huge pages. The kernel hands out zeroed
 * pages as they are first touched, so a table costs nothing until it is used, where a direct buffer's memory
 * is written twice at allocation (the kernel's zeroing of each page, then the JDK's). A mapping is unmapped
 * once its region's owner is unreachable, as a direct buffer is freed: a daemon's tables live as long as the
 * process, a replay's as long as its pipelines.
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
        return new Region(memory.address(), memory.length(), memory.unmapWhenUnreachable(memory));
    }
}
