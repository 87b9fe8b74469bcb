package io.jvs.nativebindings;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AnonymousMemoryTest
{
    private static final int ENOMEM = 12;

    @Test
    void shouldMapZeroedWritableMemoryRoundedToWholeHugePages()
    {
        final AnonymousMemory memory = AnonymousMemory.map(3L << 20, true);
        try
        {
            assertThat(memory.length()).isEqualTo(4L << 20);
            assertThat(memory.address() % 4096).isZero();
            final MemorySegment segment = MemorySegment.ofAddress(memory.address()).reinterpret(memory.length());
            assertThat(segment.get(ValueLayout.JAVA_LONG, 0)).isZero();
            assertThat(segment.get(ValueLayout.JAVA_LONG, memory.length() - 8)).isZero();
            segment.set(ValueLayout.JAVA_LONG, memory.length() - 8, 0x1234_5678_9ABC_DEF0L);
            assertThat(segment.get(ValueLayout.JAVA_LONG, memory.length() - 8)).isEqualTo(0x1234_5678_9ABC_DEF0L);
        }
        finally
        {
            memory.unmap();
        }
    }

    @Test
    void shouldRoundSmallMappingsToPagesWithoutAdvisingHugePages()
    {
        final AnonymousMemory memory = AnonymousMemory.map(100, false);
        try
        {
            assertThat(memory.length()).isEqualTo(4096);
            assertThat(memory.hugePagesAdvised()).isFalse();
        }
        finally
        {
            memory.unmap();
            memory.unmap();
        }
    }

    @Test
    void shouldUnmapOnceTheOwnerIsUnreachable() throws Exception
    {
        Object owner = new Object();
        final AnonymousMemory memory = AnonymousMemory.map(4L << 20, true).unmapWhenUnreachable(owner);
        final long start = memory.address();
        assertThat(mapped(start)).as("mapped while its owner is reachable").isTrue();
        for (int i = 0; i < 20; i++)
        {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(mapped(start)).as("mapped while its owner is reachable, after collections").isTrue();
        Reference.reachabilityFence(owner);
        owner = null;
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (mapped(start) && System.nanoTime() < deadline)
        {
            System.gc();
            Thread.sleep(10);
        }
        assertThat(mapped(start)).as("mapped after its owner became unreachable").isFalse();
        memory.unmap();
    }

    /** Whether a mapping of this process covers the address (the kernel may have merged it with a neighbour). */
    private static boolean mapped(final long address) throws Exception
    {
        return !permissions(address).equals("unmapped");
    }

    @Test
    void shouldMapCodeThatRunsFromPagesReadableAndExecutableButNotWritable() throws Throwable
    {
        // mov eax, 42; ret
        final long routine = AnonymousMemory.mapCode(new byte[] {(byte)0xB8, 42, 0, 0, 0, (byte)0xC3});
        final java.lang.invoke.MethodHandle call = java.lang.foreign.Linker.nativeLinker().downcallHandle(
            MemorySegment.ofAddress(routine), java.lang.foreign.FunctionDescriptor.of(ValueLayout.JAVA_INT));

        assertThat((int)call.invokeExact()).isEqualTo(42);
        assertThat(routine % 4096).isZero();
        assertThat(permissions(routine)).isEqualTo("r-xp");
    }

    /** The permissions /proc/self/maps gives the mapping holding {@code address}, e.g. "rw-p". */
    private static String permissions(final long address) throws Exception
    {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(line ->
        {
            final String range = line.substring(0, line.indexOf(' '));
            final int dash = range.indexOf('-');
            final long from = Long.parseUnsignedLong(range.substring(0, dash), 16);
            final long to = Long.parseUnsignedLong(range.substring(dash + 1), 16);
            return Long.compareUnsigned(address, from) >= 0 && Long.compareUnsigned(address, to) < 0;
        }).map(line -> line.split(" +")[1]).findFirst().orElse("unmapped");
    }

    @Test
    void shouldNameTheCallAndTheErrnoWhenTheKernelRefuses()
    {
        assertThatThrownBy(() -> AnonymousMemory.map(1L << 62, false))
            .isInstanceOfSatisfying(NativeCallException.class, ex ->
            {
                assertThat(ex.call()).isEqualTo("mmap");
                assertThat(ex.errno()).isEqualTo(ENOMEM);
            })
            .hasMessageStartingWith("mmap failed: ENOMEM")
            .hasMessageContaining(Long.toString(1L << 62));
    }
}
