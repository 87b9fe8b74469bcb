package io.jvs.nativebindings;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The native prefetch exists on this machine (x86-64 Linux, where jvs runs), runs over lists of any length, and
 * never faults, whatever the addresses: a prefetch of an unmapped address is dropped by the processor. A routine
 * that loaded instead of prefetching would crash this test's JVM on the unmapped addresses.
 */
class CpuPrefetchTest
{
    @Test
    void shouldBeAvailableOnX8664()
    {
        assumeThat(System.getProperty("os.arch")).isIn("amd64", "x86_64");
        assertThat(CpuPrefetch.isAvailable()).isTrue();
    }

    @Test
    void shouldPrefetchMappedAndUnmappedAddressesAlikeWithoutFaulting()
    {
        // On x86-64, where jvs runs and CI runs, never skipped: a routine that failed to link fails here too.
        assumeThat(System.getProperty("os.arch")).isIn("amd64", "x86_64");
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment data = arena.allocate(4096, 64);
            final MemorySegment list = arena.allocate(8 * 8, 8);
            final long base = data.address();
            final long[] addresses = {base, base + 64, base + 4032, 0L, 8L, 0xDEAD_0000L, -64L, base + 128};
            for (int i = 0; i < addresses.length; i++)
            {
                list.setAtIndex(ValueLayout.JAVA_LONG, i, addresses[i]);
            }
            for (int count = 0; count <= addresses.length; count++)
            {
                CpuPrefetch.lines(list.address(), count);
            }
            data.set(ValueLayout.JAVA_INT, 0, 42);
            CpuPrefetch.lines(list.address(), addresses.length);
            assertThat(data.get(ValueLayout.JAVA_INT, 0)).as("prefetching changes no memory").isEqualTo(42);
        }
    }
}
