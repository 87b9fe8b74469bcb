package io.jvs.forwarder.memory;

import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.nativebindings.AnonymousMemory;
import org.agrona.UnsafeApi;

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
    private static final long SMALL_PAGE = 4096;

    /** The limit that stands for a quarter of the machine's memory, at least {@link #DEFAULT_LIMIT_FLOOR}. */
    private static final long DEFAULT_LIMIT = -1;
    private static final long DEFAULT_LIMIT_FLOOR = 1L << 30;

    /** The one instance. */
    public static final HugePageAllocator INSTANCE = new HugePageAllocator(DEFAULT_LIMIT);

    /**
     * The same mappings, each written to once a page as it is made, so the kernel hands out its pages then and not
     * at the first packets that touch them: for the daemon, whose connection tables otherwise take a huge page's
     * fault (a 2 MiB page found and zeroed) in the middle of a burst, milliseconds for the first bursts, and whose
     * memory is then claimed at start, where a shortage shows, rather than under load.
     */
    public static final OffHeapAllocator FAULTED_IN = bytes ->
    {
        final Region region = INSTANCE.allocate(bytes);
        // Fresh mappings are zero: writing a zero changes nothing but makes the page the process's own.
        for (long offset = 0; offset < region.length(); offset += SMALL_PAGE)
        {
            UnsafeApi.putByte(region.address() + offset, (byte)0);
        }
        return region;
    };

    /** How long a mapping waits for the Cleaner to give back unreachable ones. */
    private static final long RELEASE_WAIT_NS = 1_000_000_000L;

    private final long unreleasedLimit;

    /**
     * @param unreleasedLimit the most bytes of mappings still mapped before a collection is asked for, or
     *                        {@link #DEFAULT_LIMIT}.
     */
    HugePageAllocator(final long unreleasedLimit)
    {
        this.unreleasedLimit = unreleasedLimit;
    }

    /**
     * The default limit, worked out the first time mappings go beyond its floor: the platform's management bean that
     * tells the machine's memory costs milliseconds to start, and most commands map far less than the floor.
     */
    private static final class MachineQuarter
    {
        static final long BYTES = Math.max(DEFAULT_LIMIT_FLOOR,
            ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class).getTotalMemorySize() /
                4);
    }

    private boolean beyondLimit(final long unreleased)
    {
        return unreleasedLimit == DEFAULT_LIMIT ? unreleased > DEFAULT_LIMIT_FLOOR && unreleased > MachineQuarter.BYTES :
            unreleased > unreleasedLimit;
    }

    @Override
    public Region allocate(final long bytes)
    {
        if (beyondLimit(AnonymousMemory.unreleasedBytes() + bytes))
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
        while (beyondLimit(AnonymousMemory.unreleasedBytes() + bytes) && System.nanoTime() < deadline)
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
