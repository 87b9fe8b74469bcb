package io.jvs.forwarder.memory;

import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.nativebindings.AnonymousMemory;

import java.lang.management.ManagementFactory;

/**
 * Off-heap tables in anonymous mappings advised to use transparent huge pages. The kernel hands out zeroed
 * pages as they are first touched, so a table costs nothing until it is used, where a direct buffer's memory
 * is written twice at allocation (the kernel's zeroing of each page, then the JDK's). A mapping is unmapped
 * once its region's owner is unreachable, as a direct buffer is freed: a daemon's tables live as long as the
 * process, a replay's as long as its pipelines.
 * <p>
 * Nothing but a collection finds the unreachable ones, and a JVM that makes many short-lived tables (replays in
 * a benchmark or a test run) may allocate little heap between them. So, as the JDK does when its direct buffers
 * reach their limit ({@code java.nio.Bits.reserveMemory}), a mapping that would take what is still mapped
 * beyond a quarter of the machine's memory first asks for a collection and waits briefly for the Cleaner.
 */
public final class HugePageAllocator implements OffHeapAllocator
{
    /** The one instance. */
    public static final HugePageAllocator INSTANCE = new HugePageAllocator(defaultLimit());

    /** How long a mapping waits for the Cleaner to give back unreachable ones. */
    private static final long RELEASE_WAIT_NS = 1_000_000_000L;

    private final long unreleasedLimit;

    /**
     * @param unreleasedLimit the most bytes of mappings still mapped before a collection is asked for.
     */
    HugePageAllocator(final long unreleasedLimit)
    {
        this.unreleasedLimit = unreleasedLimit;
    }

    private static long defaultLimit()
    {
        final long physical = ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class)
            .getTotalMemorySize();
        return Math.max(1L << 30, physical / 4);
    }

    @Override
    public Region allocate(final long bytes)
    {
        if (AnonymousMemory.unreleasedBytes() + bytes > unreleasedLimit)
        {
            releaseUnreachable(bytes);
        }
        // Below one huge page the rounding would cost more than the pages save.
        final AnonymousMemory memory = AnonymousMemory.map(bytes, bytes >= AnonymousMemory.HUGE_PAGE_SIZE);
        return new Region(memory.address(), memory.length(), memory.unmapWhenUnreachable(memory));
    }

    /** Asks for a collection and waits, a bounded time, until the Cleaner has unmapped enough; then goes on anyway. */
    private void releaseUnreachable(final long bytes)
    {
        System.gc();
        final long deadline = System.nanoTime() + RELEASE_WAIT_NS;
        boolean interrupted = false;
        while (AnonymousMemory.unreleasedBytes() + bytes > unreleasedLimit && System.nanoTime() < deadline)
        {
            try
            {
                Thread.sleep(1);
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
