package io.jvs.nativebindings;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

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
