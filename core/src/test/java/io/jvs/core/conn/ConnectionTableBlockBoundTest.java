package io.jvs.core.conn;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sweep that skips idle blocks must still find an entry that a removal shifted back into an earlier block,
 * across the boundary of two blocks of {@link ConnectionTable#BLOCK_SLOTS} slots; and a slot reused by a new
 * entry starts with none of the old one's fields.
 */
class ConnectionTableBlockBoundTest
{
    private static final int UDP = 17;
    private static final int FAR = 1_000_000;

    /** Clients whose probe runs start at {@code home}, found by asking the table. */
    private static List<Long> clientsAt(final ConnectionTable table, final int home, final int count)
    {
        final List<Long> clients = new ArrayList<>();
        for (long client = 1; clients.size() < count; client++)
        {
            if (table.home(UDP, 0, client, 53) == home)
            {
                clients.add(client);
            }
        }
        return clients;
    }

    /** @return a table of 1 024 IPv4 connections that skips idle blocks, adding each client it removes to a list. */
    private static ConnectionTable skipping(final List<Long> removed)
    {
        final ConnectionTable table = new ConnectionTable(false, 1024,
            (t, slot, evicted) -> removed.add(t.clientLow(slot)));
        table.skipIdleBlocks();
        return table;
    }

    private static int insert(final ConnectionTable table, final long client, final int now, final int expires)
    {
        assertThat(table.lookupForward(UDP, 0, client, 53, 0, 1, 53)).isEqualTo(ConnectionTable.NOT_FOUND);
        final int slot = table.insert(UDP, 0, client, 53, 0, 1, 53, now);
        table.expiresTick(slot, expires);
        return slot;
    }

    /**
     * An entry the sweep meets before it is given its timer expires at its placeholder's tick, though its slot was
     * last held by an entry with a far later one: nothing the sweep keeps about a slot outlives its entry.
     */
    @Test
    void shouldSweepAnEntryLeftWithItsPlaceholderInASlotALongerLivedOneHeld()
    {
        final List<Long> removed = new ArrayList<>();
        final ConnectionTable table = skipping(removed);
        final List<Long> clients = clientsAt(table, 0, 2);
        final int now = 1000;
        final int slot = insert(table, clients.get(0), now, FAR);
        assertThat(table.sweep(now, table.slots())).isZero();
        table.remove(slot, false);
        removed.clear();

        assertThat(table.lookupForward(UDP, 0, clients.get(1), 53, 0, 1, 53)).isEqualTo(ConnectionTable.NOT_FOUND);
        assertThat(table.insert(UDP, 0, clients.get(1), 53, 0, 1, 53, now)).isEqualTo(slot);
        final int placeholderGone = now + ConnectionTable.NEW_ENTRY_TICKS;

        assertThat(table.sweep(placeholderGone - 1, table.slots())).isZero();
        assertThat(table.sweep(placeholderGone, table.slots())).isOne();
        assertThat(removed).containsExactly(clients.get(1));
    }

    @Test
    void shouldSweepAnEntryShiftedBackAcrossABlockBoundary()
    {
        final List<Long> removed = new ArrayList<>();
        final ConnectionTable table = skipping(removed);
        final int home = ConnectionTable.BLOCK_SLOTS - 2;
        final List<Long> clients = clientsAt(table, home, 4);
        final int now = 1000;
        // One probe run: the last two slots of block 0, the first two of block 1; only the third is due soon.
        assertThat(insert(table, clients.get(0), now, FAR)).isEqualTo(home);
        assertThat(insert(table, clients.get(1), now, FAR)).isEqualTo(home + 1);
        assertThat(insert(table, clients.get(2), now, now + 10)).isEqualTo(home + 2);
        assertThat(insert(table, clients.get(3), now, FAR)).isEqualTo(home + 3);
        // A sweep now learns that nothing in block 0 is due before FAR.
        assertThat(table.sweep(now, table.slots())).isZero();
        // Removing the second shifts the third back into block 0.
        table.remove(table.lookupForward(UDP, 0, clients.get(1), 53, 0, 1, 53), false);
        assertThat(table.lookupForward(UDP, 0, clients.get(2), 53, 0, 1, 53)).isEqualTo(home + 1);
        removed.clear();
        assertThat(table.sweep(now + 10, table.slots())).isEqualTo(1);
        assertThat(removed).containsExactly(clients.get(2));
        assertThat(table.size()).isEqualTo(2);
    }

    @Test
    void shouldStartAReusedSlotWithNoneOfTheOldEntrysFields()
    {
        final ConnectionTable table = new ConnectionTable(false, 16, (t, slot, evicted) -> { });
        final int first = insert(table, 7, 0, 100);
        table.state(first, TcpStates.ESTABLISHED);
        table.server(first, 5);
        table.template(first, 9);
        table.flags(first, ConnectionTable.FLAG_INACTIVE | ConnectionTable.FLAG_NO_OUTPUT);
        table.remove(first, false);
        final int again = insert(table, 7, 200, 500);
        assertThat(again).isEqualTo(first);
        assertThat(table.state(again)).isEqualTo(TcpStates.NONE);
        assertThat(table.server(again)).isZero();
        assertThat(table.template(again)).isEqualTo(-1);
        assertThat(table.isInactive(again)).isFalse();
        assertThat(table.isNoOutput(again)).isFalse();
        assertThat(table.protocol(again)).isEqualTo(UDP);
        assertThat(table.clientPort(again)).isEqualTo(53);
        assertThat(table.virtualPort(again)).isEqualTo(53);
    }
}
