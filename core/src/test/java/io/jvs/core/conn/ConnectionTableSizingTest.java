package io.jvs.core.conn;

import io.jvs.core.memory.OffHeapAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * How big a connection table is for a capacity: twice the capacity in slots (the 0.5 load factor), in whole
 * cache lines of 32-byte IPv4 or 64-byte IPv6 entries, so 64 or 128 bytes a connection, plus the spare
 * line callers may touch after a home slot; and the capacities it accepts.
 */
class ConnectionTableSizingTest
{
    private static final ConnectionTable.RemovalListener NOBODY = (table, slot, evicted) -> { };

    @ParameterizedTest(name = "v6 {0}, capacity {1}")
    @CsvSource({
        "false, 16, 32, 64.0",
        "false, 1000, 2000, 64.0",
        "true, 16, 32, 128.0",
        "true, 1001, 2002, 128.0",
    })
    void shouldTakeTwoSlotsAConnection(final boolean v6, final int capacity, final int slots, final double bytes)
    {
        final ConnectionTable table = new ConnectionTable(v6, capacity, NOBODY);
        assertThat(table.isV6()).isEqualTo(v6);
        assertThat(table.capacity()).isEqualTo(capacity);
        assertThat(table.slots()).isEqualTo(slots);
        assertThat(table.bytesPerConnection()).isEqualTo(bytes);
        assertThat(table.memoryBytes()).isGreaterThanOrEqualTo((long)(bytes * capacity) + 64);
        assertThat(table.evictions()).isZero();
    }

    @Test
    void shouldRoundAnOddIpv4SlotCountUpToAWholeCacheLine()
    {
        // 1001 connections need 2002 slots of 32 bytes: 1001 lines of two.
        assertThat(new ConnectionTable(false, 1001, NOBODY).slots()).isEqualTo(2002);
        // 17: 34 slots, 17 lines.
        assertThat(new ConnectionTable(false, 17, NOBODY).slots()).isEqualTo(34);
    }

    @Test
    void shouldAcceptCapacitiesFromTheMinimumToTheMaximum()
    {
        assertThat(new ConnectionTable(false, ConnectionTable.MIN_CAPACITY, NOBODY).capacity())
            .isEqualTo(ConnectionTable.MIN_CAPACITY);
        // The maximum passes the range check and asks the allocator for its 4 GiB and the spare line.
        final OffHeapAllocator refusing = bytes ->
        {
            throw new IllegalStateException("asked for " + bytes);
        };
        assertThatThrownBy(() -> new ConnectionTable(false, ConnectionTable.MAX_CAPACITY, NOBODY, refusing))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("asked for " + (2L * ConnectionTable.MAX_CAPACITY * 32 + 64));
        for (final int capacity : new int[] {ConnectionTable.MIN_CAPACITY - 1, ConnectionTable.MAX_CAPACITY + 1, 0})
        {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> new ConnectionTable(false, capacity, NOBODY, refusing))
                .withMessage("connection table capacity must be 16..67108864: " + capacity);
        }
    }
}
