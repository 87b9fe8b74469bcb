package io.jvs.forwarder.port;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FramePoolTest
{
    @Test
    void shouldLendBuffersInOrderWithTheirHeadroomUntilNoneIsLeft()
    {
        try (FramePool pool = new FramePool(3, 2048, 256))
        {
            final int first = pool.allocate();
            final int second = pool.allocate();
            final int third = pool.allocate();

            assertThat(new int[] {first, second, third}).containsExactly(0, 1, 2);
            assertThat(pool.allocate()).isEqualTo(FramePool.NO_BUFFER);
            assertThat(pool.freeCount()).isZero();
            assertThat(pool.frameAddress(0) % 64).as("frames start on a cache line").isZero();
            assertThat(pool.frameAddress(1) - pool.frameAddress(0)).isEqualTo(2048);
            assertThat(pool.frameCapacity()).isEqualTo(2048 - 256);
            assertThat(pool.region().address() % 4096).isZero();
        }
    }

    @Test
    void shouldFindTheBufferOfAnyAddressInsideIt()
    {
        try (FramePool pool = new FramePool(4, 2048, 128))
        {
            final long buffer2 = pool.frameAddress(2) - 128;

            assertThat(pool.bufferOf(buffer2)).isEqualTo(2);
            assertThat(pool.bufferOf(buffer2 + 2047)).isEqualTo(2);
            assertThat(pool.bufferOf(pool.frameAddress(3) - 1)).as("headroom taken by a pushed header").isEqualTo(3);
            assertThat(pool.contains(buffer2 - 2 * 2048)).isTrue();
            assertThat(pool.contains(buffer2 - 2 * 2048 - 1)).isFalse();
            assertThat(pool.contains(buffer2 + 2 * 2048 - 1)).isTrue();
            assertThat(pool.contains(buffer2 + 2 * 2048)).isFalse();
        }
    }

    @Test
    void shouldRefuseAndCountADoubleFreeWithoutLendingTheBufferTwice()
    {
        try (FramePool pool = new FramePool(2, 64, 0))
        {
            final int buffer = pool.allocate();
            assertThat(pool.free(buffer)).isTrue();

            assertThat(pool.free(buffer)).isFalse();
            assertThat(pool.free(7)).isFalse();
            assertThat(pool.free(-1)).isFalse();

            assertThat(pool.refusedFrees()).isEqualTo(3);
            assertThat(pool.freeCount()).isEqualTo(2);
            assertThat(pool.allocate()).isNotEqualTo(pool.allocate());
            assertThat(pool.allocate()).isEqualTo(FramePool.NO_BUFFER);
        }
    }

    @Test
    void shouldRefuseShapesThatLeaveNoFrameOrBreakAlignment()
    {
        assertThatThrownBy(() -> new FramePool(0, 2048, 0)).hasMessageContaining("at least one buffer");
        assertThatThrownBy(() -> new FramePool(1, 2000, 0)).hasMessageContaining("multiple of 64");
        assertThatThrownBy(() -> new FramePool(1, 2048, 2048)).hasMessageContaining("headroom 2048");
    }
}
