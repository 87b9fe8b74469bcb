package io.jvs.forwarder.memory;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.nativebindings.AnonymousMemory;
import org.agrona.UnsafeApi;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.RandomAccessFile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Tables larger than a direct buffer can hold: a 16M-connection IPv6 table needs 2 GiB, which only
 * mapped memory gives. The mapping is lazy, so the untouched part costs no memory here.
 */
class HugePageAllocatorTest
{
    private static final int TCP = 6;

    @Test
    void shouldBackAnIpv6TableOfSixteenMillionConnections()
    {
        final int capacity = 16 << 20;
        final ConnectionTable table = new ConnectionTable(true, capacity, (t, slot, evicted) -> { },
            HugePageAllocator.INSTANCE);
        assertThat(table.bytesPerConnection()).isEqualTo(128.0);

        final long prefix = 0x2001_0db8_0000_0000L;
        for (long client = 1; client <= 100_000; client += 997)
        {
            assertThat(table.lookupForward(TCP, prefix, client * 0x9E37_79B9L, 443, prefix, 1, 443))
                .isEqualTo(ConnectionTable.NOT_FOUND);
            assertThat(table.insert(TCP, prefix, client * 0x9E37_79B9L, 443, prefix, 1, 443, 0)).isNotNegative();
        }
        for (long client = 1; client <= 100_000; client += 997)
        {
            assertThat(table.lookupForward(TCP, prefix, client * 0x9E37_79B9L, 443, prefix, 1, 443)).isNotNegative();
        }
        assertThat(table.lookupForward(TCP, prefix, 2 * 0x9E37_79B9L, 443, prefix, 1, 443))
            .isEqualTo(ConnectionTable.NOT_FOUND);
    }

    @Test
    void shouldHandOutTheDaemonsTablesResidentAndOthersOnFirstTouch() throws IOException
    {
        final long bytes = 64L << 20;
        final OffHeapAllocator.Region lazy = HugePageAllocator.INSTANCE.allocate(bytes);
        final OffHeapAllocator.Region faulted = HugePageAllocator.FAULTED_IN.allocate(bytes);

        assertThat(residentPages(lazy, bytes)).as("a table costs nothing until it is used").isZero();
        assertThat(residentPages(faulted, bytes)).as("the daemon's is resident from the start")
            .isEqualTo(bytes / SAMPLE_STRIDE);
        assertThat(UnsafeApi.getByte(faulted.address() + bytes - 1)).isZero();
    }

    private static final long SAMPLE_STRIDE = 1 << 20;

    /**
     * @return how many of the region's pages, one every {@link #SAMPLE_STRIDE} bytes, are resident: bit 63 of each
     *         page's entry in /proc/self/pagemap (kept for unprivileged readers, who see no frame numbers).
     */
    private static long residentPages(final OffHeapAllocator.Region region, final long bytes) throws IOException
    {
        long resident = 0;
        try (RandomAccessFile pagemap = new RandomAccessFile("/proc/self/pagemap", "r"))
        {
            for (long offset = 0; offset < bytes; offset += SAMPLE_STRIDE)
            {
                pagemap.seek((region.address() + offset) / 4096 * Long.BYTES);
                if ((Long.reverseBytes(pagemap.readLong()) & 1L << 63) != 0)
                {
                    resident++;
                }
            }
        }
        return resident;
    }

    @Test
    void shouldRefuseAnInsertThatNoLookupPreceded()
    {
        final ConnectionTable table = new ConnectionTable(false, 1024, (t, slot, evicted) -> { },
            HugePageAllocator.INSTANCE);
        assertThatThrownBy(() -> table.insert(TCP, 0, 1, 1000, 0, 2, 80, 0))
            .isInstanceOf(IllegalStateException.class);
        assertThat(table.size()).isZero();
    }

    @Test
    void shouldRefuseTheSameTableFromADirectBufferWithAReason()
    {
        assertThatThrownBy(() -> new ConnectionTable(true, 16 << 20, (t, slot, evicted) -> { },
            OffHeapAllocator.DIRECT))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("huge-page allocator");
    }

    @Test
    void shouldGiveZeroedMemoryOfAtLeastTheSizeAsked()
    {
        final OffHeapAllocator.Region region = HugePageAllocator.INSTANCE.allocate(3_000_000);
        assertThat(region.length()).isGreaterThanOrEqualTo(3_000_000);
        assertThat(region.address() % 4096).isZero();
        assertThat(io.jvs.core.packet.Frames.i64(region.address() + region.length() - 8)).isZero();
    }

    @Test
    void shouldHaveUnreachableMappingsCollectedBeforeGoingPastItsLimit()
    {
        // Tables made and dropped, with next to no heap allocated between them: without the limit nothing would
        // collect them, and what is still mapped would grow by each one.
        final long before = AnonymousMemory.unreleasedBytes();
        // Above what other tests of this JVM may still hold.
        final long limit = before + (64L << 20);
        final HugePageAllocator allocator = new HugePageAllocator(limit);
        long most = 0;
        for (int table = 0; table < 40; table++)
        {
            final OffHeapAllocator.Region region = allocator.allocate(16L << 20);
            io.jvs.core.packet.Frames.putI64(region.address(), table);
            most = Math.max(most, AnonymousMemory.unreleasedBytes() - before);
        }
        assertThat(most).as("bytes still mapped beyond those at the start, at most").isLessThanOrEqualTo((64L << 20) +
            (16L << 20));
    }
}
