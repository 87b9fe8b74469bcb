package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The ring index arithmetic on plain memory laid out as the kernel lays out a ring (producer at 0, consumer
 * at 128, flags at 196, entries at 320, as XDP_MMAP_OFFSETS reports on 6.18): this test plays the kernel.
 */
class XdpRingTest
{
    private static final long PRODUCER = 0;
    private static final long CONSUMER = 128;
    private static final long FLAGS = 196;
    private static final long ENTRIES = 320;
    private static final int SIZE = 8;

    private final Arena arena = Arena.ofConfined();

    @AfterEach
    void free()
    {
        arena.close();
    }

    @Test
    void shouldOfferTheWholeEmptyRingToAProducerAndNoMore()
    {
        final MemorySegment memory = ringMemory(SIZE, 16, 0);
        final XdpRing ring = ring(memory, 16);

        assertThat(ring.reserve(3)).isEqualTo(3);
        assertThat(ring.reserve(100)).isEqualTo(SIZE);
        for (int i = 0; i < SIZE; i++)
        {
            ring.putDescriptor(ring.producerIndex() + i, 2048L * i, 60 + i);
        }
        ring.submit(SIZE);

        assertThat(index(memory, PRODUCER)).isEqualTo(SIZE);
        assertThat(ring.reserve(1)).as("full until the kernel consumes").isZero();
        assertThat(ring.unconsumed()).isEqualTo(SIZE);

        setIndex(memory, CONSUMER, 5); // the kernel took five
        assertThat(ring.reserve(SIZE)).isEqualTo(5);
        assertThat(ring.unconsumed()).isEqualTo(3);
    }

    @Test
    void shouldReadOnlyWhatTheKernelPublishedAndReleaseWhatWasRead()
    {
        final MemorySegment memory = ringMemory(SIZE, 8, 0);
        final XdpRing ring = ring(memory, 8);
        assertThat(ring.peek(4)).isZero();

        memory.set(ValueLayout.JAVA_LONG, ENTRIES, 4096);
        memory.set(ValueLayout.JAVA_LONG, ENTRIES + 8, 6144);
        setIndex(memory, PRODUCER, 2);

        assertThat(ring.peek(4)).isEqualTo(2);
        assertThat(ring.address(ring.consumerIndex())).isEqualTo(4096);
        assertThat(ring.address(ring.consumerIndex() + 1)).isEqualTo(6144);
        ring.release(2);
        assertThat(index(memory, CONSUMER)).isEqualTo(2);
        assertThat(ring.peek(4)).isZero();
    }

    @Test
    void shouldUseTheCachedProducerUntilItRunsDry()
    {
        final MemorySegment memory = ringMemory(SIZE, 16, 0);
        final XdpRing ring = ring(memory, 16);
        setIndex(memory, PRODUCER, 6);
        assertThat(ring.peek(2)).isEqualTo(2);
        ring.release(2);
        setIndex(memory, PRODUCER, 7); // not looked at while 4 cached entries remain for a peek of 2
        assertThat(ring.peek(2)).isEqualTo(2);
        ring.release(2);
        assertThat(ring.peek(8)).as("runs dry: re-reads the producer").isEqualTo(3);
    }

    @ParameterizedTest
    @ValueSource(ints = {-3, -1, 0x7FFF_FFFE})
    void shouldCountEntriesAcrossTheWrapOfTheUnsigned32BitIndexes(final int start)
    {
        final MemorySegment memory = ringMemory(SIZE, 16, start);
        final XdpRing producer = ring(memory, 16);
        assertThat(producer.reserve(SIZE)).isEqualTo(SIZE);
        for (int i = 0; i < 6; i++)
        {
            producer.putDescriptor(producer.producerIndex() + i, 100L + i, 60);
        }
        producer.submit(6);
        assertThat(index(memory, PRODUCER)).isEqualTo(start + 6);
        assertThat(producer.reserve(SIZE)).isEqualTo(2);

        final XdpRing consumer = ring(memory, 16);
        assertThat(consumer.peek(SIZE)).isEqualTo(6);
        for (int i = 0; i < 6; i++)
        {
            assertThat(consumer.address(consumer.consumerIndex() + i)).isEqualTo(100L + i);
            assertThat(consumer.length(consumer.consumerIndex() + i)).isEqualTo(60);
        }
        consumer.release(6);
        assertThat(index(memory, CONSUMER)).isEqualTo(start + 6);
        assertThat(producer.reserve(SIZE)).isEqualTo(SIZE);
    }

    @Test
    void shouldPutEntriesAtTheIndexMaskedBySize()
    {
        final MemorySegment memory = ringMemory(SIZE, 8, SIZE * 3 + 6);
        final XdpRing ring = ring(memory, 8);
        ring.reserve(3);
        ring.putAddress(ring.producerIndex(), 11);
        ring.putAddress(ring.producerIndex() + 1, 22);
        ring.putAddress(ring.producerIndex() + 2, 33);
        assertThat(memory.get(ValueLayout.JAVA_LONG, ENTRIES + 6 * 8)).isEqualTo(11);
        assertThat(memory.get(ValueLayout.JAVA_LONG, ENTRIES + 7 * 8)).isEqualTo(22);
        assertThat(memory.get(ValueLayout.JAVA_LONG, ENTRIES)).as("wrapped to slot 0").isEqualTo(33);
    }

    @Test
    void shouldSeeTheNeedWakeupFlag()
    {
        final MemorySegment memory = ringMemory(SIZE, 16, 0);
        final XdpRing ring = ring(memory, 16);
        assertThat(ring.needsWakeup()).isFalse();
        memory.set(ValueLayout.JAVA_INT, FLAGS, 1);
        assertThat(ring.needsWakeup()).isTrue();
    }

    @Test
    void shouldRefuseASizeThatIsNotAPowerOfTwo()
    {
        final MemorySegment memory = ringMemory(16, 16, 0);
        assertThatThrownBy(() -> new XdpRing(memory, 12, PRODUCER, CONSUMER, FLAGS, ENTRIES, 16))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("12 is not a power of two");
    }

    private MemorySegment ringMemory(final int size, final int entrySize, final int startIndex)
    {
        final MemorySegment memory = arena.allocate(ENTRIES + (long)size * entrySize, 64);
        setIndex(memory, PRODUCER, startIndex);
        setIndex(memory, CONSUMER, startIndex);
        return memory;
    }

    private static XdpRing ring(final MemorySegment memory, final int entrySize)
    {
        return new XdpRing(memory, SIZE, PRODUCER, CONSUMER, FLAGS, ENTRIES, entrySize);
    }

    private static int index(final MemorySegment memory, final long offset)
    {
        return memory.get(ValueLayout.JAVA_INT, offset);
    }

    private static void setIndex(final MemorySegment memory, final long offset, final int value)
    {
        memory.set(ValueLayout.JAVA_INT, offset, value);
    }
}
