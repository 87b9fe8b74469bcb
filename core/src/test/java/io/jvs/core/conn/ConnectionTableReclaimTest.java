package io.jvs.core.conn;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A full connection table making room: an expired entry near the new one's home goes first (as expired,
 * not evicted), then a half-open TCP entry (no state yet, SYN_SENT, SYN_RECV, SYNACK); never a UDP entry or
 * an established TCP one. And an entry's timer exactly at and just before its tick.
 */
class ConnectionTableReclaimTest
{
    private static final int TCP = 6;
    private static final int UDP = 17;

    private final List<Integer> removed = new ArrayList<>();
    private final List<Boolean> evicted = new ArrayList<>();

    private ConnectionTable table(final boolean v6)
    {
        return new ConnectionTable(v6, 16, (t, slot, early) ->
        {
            removed.add(t.server(slot));
            evicted.add(early);
        });
    }

    /** Fills a 16-entry table with clients 0..15, each with a state and a timer, server 100 + client. */
    private static void fill(final ConnectionTable table, final int protocol, final int state, final int expires)
    {
        for (int i = 0; i < 16; i++)
        {
            assertThat(table.lookupForward(protocol, 0, i, 1000, 0, 1, 80)).isEqualTo(ConnectionTable.NOT_FOUND);
            final int slot = table.insert(protocol, 0, i, 1000, 0, 1, 80, 0);
            assertThat(slot).isNotNegative();
            table.state(slot, state);
            table.server(slot, 100 + i);
            table.expiresTick(slot, expires);
        }
    }

    private static int insert(final ConnectionTable table, final int protocol, final int client, final int nowTick)
    {
        assertThat(table.lookupForward(protocol, 0, client, 1000, 0, 1, 80)).isEqualTo(ConnectionTable.NOT_FOUND);
        return table.insert(protocol, 0, client, 1000, 0, 1, 80, nowTick);
    }

    @Test
    void shouldTakeTheRoomOfAnExpiredEntryFirst()
    {
        final ConnectionTable table = table(false);
        fill(table, TCP, TcpStates.ESTABLISHED, 10_000);
        // Client 5 expires at 500; at 500 exactly it is due, and a new client takes its room.
        table.expiresTick(table.lookupForward(TCP, 0, 5, 1000, 0, 1, 80), 500);
        assertThat(insert(table, TCP, 99, 499)).isEqualTo(ConnectionTable.FULL);
        assertThat(removed).isEmpty();
        final int slot = insert(table, TCP, 100, 500);
        assertThat(slot).isNotNegative();
        assertThat(removed).containsExactly(105);
        assertThat(evicted).containsExactly(false);
        assertThat(table.evictions()).isEqualTo(1);
        assertThat(table.size()).isEqualTo(16);
        assertThat(table.lookupForward(TCP, 0, 5, 1000, 0, 1, 80)).isEqualTo(ConnectionTable.NOT_FOUND);
        assertThat(table.lookupForward(TCP, 0, 100, 1000, 0, 1, 80)).isEqualTo(slot);
        assertThat(table.refusals()).isEqualTo(1);
    }

    @Test
    void shouldReclaimEveryHalfOpenStateButNotUdpOrLaterTcpStates()
    {
        for (final int state : new int[] {TcpStates.NONE, TcpStates.SYN_SENT, TcpStates.SYN_RECV, TcpStates.SYNACK})
        {
            removed.clear();
            final ConnectionTable table = table(false);
            fill(table, TCP, state, 10_000);
            assertThat(insert(table, TCP, 100, 0)).as(TcpStates.name(state)).isNotNegative();
            assertThat(evicted).as(TcpStates.name(state)).containsOnly(true);
            assertThat(removed).hasSize(1);
        }
        for (final int state : new int[] {TcpStates.ESTABLISHED, TcpStates.FIN_WAIT, TcpStates.TIME_WAIT,
            TcpStates.CLOSE, TcpStates.CLOSE_WAIT, TcpStates.LAST_ACK, TcpStates.LISTEN})
        {
            removed.clear();
            final ConnectionTable table = table(false);
            fill(table, TCP, state, 10_000);
            assertThat(insert(table, TCP, 100, 0)).as(TcpStates.name(state)).isEqualTo(ConnectionTable.FULL);
            assertThat(removed).isEmpty();
        }
        removed.clear();
        final ConnectionTable udp = table(false);
        fill(udp, UDP, 0, 10_000);
        assertThat(insert(udp, UDP, 100, 0)).isEqualTo(ConnectionTable.FULL);
        assertThat(removed).isEmpty();
        assertThat(udp.evictions()).isZero();
    }

    @Test
    void shouldStartANewEntrysTimerAtThreeSecondsAndExpireItExactlyThere()
    {
        final ConnectionTable table = table(true);
        assertThat(table.lookupForward(TCP, 0x2001_0DB8_0001_0000L, 5, 4000, 0x2001_0DB8_0000_0000L, 0x100, 80))
            .isEqualTo(ConnectionTable.NOT_FOUND);
        final int slot = table.insert(TCP, 0x2001_0DB8_0001_0000L, 5, 4000, 0x2001_0DB8_0000_0000L, 0x100, 80, 1000);
        assertThat(table.expiresTick(slot)).isEqualTo(1000 + ConnectionTable.NEW_ENTRY_TICKS);
        assertThat(table.isExpired(slot, 1000 + ConnectionTable.NEW_ENTRY_TICKS - 1)).isFalse();
        assertThat(table.isExpired(slot, 1000 + ConnectionTable.NEW_ENTRY_TICKS)).isTrue();
        assertThat(table.clientHigh(slot)).isEqualTo(0x2001_0DB8_0001_0000L);
        assertThat(table.clientLow(slot)).isEqualTo(5);
        assertThat(table.clientPort(slot)).isEqualTo(4000);
        assertThat(table.virtualHigh(slot)).isEqualTo(0x2001_0DB8_0000_0000L);
        assertThat(table.virtualLow(slot)).isEqualTo(0x100);
        assertThat(table.virtualPort(slot)).isEqualTo(80);
        assertThat(table.protocol(slot)).isEqualTo(TCP);
        assertThat(table.template(slot)).isEqualTo(-1);
        final ConnectionTable v4 = table(false);
        assertThat(v4.lookupForward(UDP, 0, 0xC633_6407L, 53, 0, 0x0A00_0064L, 53))
            .isEqualTo(ConnectionTable.NOT_FOUND);
        final int four = v4.insert(UDP, 0, 0xC633_6407L, 53, 0, 0x0A00_0064L, 53, 0);
        assertThat(v4.clientHigh(four)).isZero();
        assertThat(v4.clientLow(four)).isEqualTo(0xC633_6407L);
    }
}
