package io.jvs.core.memory;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Core's portable prefetch reads the addresses it is given as native longs and loads each line, returning the sum
 * of what it loaded (so the loads are kept), and reads none when the count is zero.
 */
class CachePrefetchTest
{
    @Test
    void shouldLoadTheLongAtEachListedAddress()
    {
        final UnsafeBuffer data = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
        data.putLong(0, 3);
        data.putLong(64, 40);
        data.putLong(128, 500);
        final UnsafeBuffer list = new UnsafeBuffer(BufferUtil.allocateDirectAligned(32, 64));
        list.putLong(0, data.addressOffset());
        list.putLong(8, data.addressOffset() + 64);
        list.putLong(16, data.addressOffset() + 128);
        list.putLong(24, data.addressOffset() + 64);

        assertThat(CachePrefetch.LOADS.lines(list.addressOffset(), 4)).isEqualTo(3 + 40 + 500 + 40);
        assertThat(CachePrefetch.LOADS.lines(list.addressOffset(), 2)).isEqualTo(43);
    }

    @Test
    void shouldReadNothingForNoAddresses()
    {
        // Address 0 would crash a load: with a count of zero nothing is read, not even the list.
        assertThat(CachePrefetch.LOADS.lines(0, 0)).isZero();
    }
}
