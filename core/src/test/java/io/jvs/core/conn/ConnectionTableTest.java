package io.jvs.core.conn;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

class ConnectionTableTest
{
    private static final int TCP = 6;
    private static final int UDP = 17;

    private final List<Integer> removed = new ArrayList<>();
    private final List<Boolean> evicted = new ArrayList<>();

    private ConnectionTable table(final boolean v6, final int capacity)
    {
        return new ConnectionTable(v6, capacity, (t, slot, early) ->
        {
            removed.add(t.server(slot));
            evicted.add(early);
        });
    }

    private static final ServerAddresses SERVERS = new ServerAddresses(
        new long[] {0, 0, 0x2001_0DB8_0000_0000L}, new long[] {0, 0xC0A8_0101L, 2}, new int[] {0, 8080, 0});

    @Test
    void shouldFindAnEntryFromBothDirections()
    {
        final ConnectionTable table = table(false, 1024);
        final long client = 0x0102_0304L;
        final long vip = 0x0A00_0064L;
        assertThat(table.lookupForward(TCP, 0, client, 5555, 0, vip, 80)).isEqualTo(ConnectionTable.NOT_FOUND);
        final int slot = table.insert(TCP, 0, client, 5555, 0, vip, 80, 100);
        table.server(slot, 1);
        assertThat(table.lookupForward(TCP, 0, client, 5555, 0, vip, 80)).isEqualTo(slot);
        assertThat(table.lookupForward(UDP, 0, client, 5555, 0, vip, 80)).isEqualTo(ConnectionTable.NOT_FOUND);
        assertThat(table.lookupForward(TCP, 0, client, 5556, 0, vip, 80)).isEqualTo(ConnectionTable.NOT_FOUND);
        assertThat(table.lookupForward(TCP, 0, client, 5555, 0, vip, 81)).isEqualTo(ConnectionTable.NOT_FOUND);
        // The reply: from server 1 (192.168.1.1:8080) to the client.
        assertThat(table.lookupReverse(TCP, 0, client, 5555, 0, 0xC0A8_0101L, 8080, SERVERS)).isEqualTo(slot);
        assertThat(table.lookupReverse(TCP, 0, client, 5555, 0, 0xC0A8_0101L, 80, SERVERS))
            .isEqualTo(ConnectionTable.NOT_FOUND);
        assertThat(table.clientLow(slot)).isEqualTo(client);
        assertThat(table.virtualLow(slot)).isEqualTo(vip);
        assertThat(table.clientPort(slot)).isEqualTo(5555);
        assertThat(table.virtualPort(slot)).isEqualTo(80);
    }

    @Test
    void shouldMatchIpv6EntriesAndAServerWithoutAPortOfItsOwn()
    {
        final ConnectionTable table = table(true, 64);
        assertThat(table.lookupForward(UDP, 0x2001_0DB8_0001_0000L, 5, 4000, 0x2001_0DB8_0000_0000L, 0x100, 53))
            .isEqualTo(ConnectionTable.NOT_FOUND);
        final int slot = table.insert(UDP, 0x2001_0DB8_0001_0000L, 5, 4000, 0x2001_0DB8_0000_0000L, 0x100, 53, 0);
        table.server(slot, 2);
        assertThat(table.lookupForward(UDP, 0x2001_0DB8_0001_0000L, 5, 4000, 0x2001_0DB8_0000_0000L, 0x100, 53))
            .isEqualTo(slot);
        assertThat(table.lookupForward(UDP, 0x2001_0DB8_0001_0001L, 5, 4000, 0x2001_0DB8_0000_0000L, 0x100, 53))
            .isEqualTo(ConnectionTable.NOT_FOUND);
        // Server 2 has port 0, so it answers from the virtual port.
        assertThat(table.lookupReverse(UDP, 0x2001_0DB8_0001_0000L, 5, 4000, 0x2001_0DB8_0000_0000L, 2, 53, SERVERS))
            .isEqualTo(slot);
    }

    @Test
    void shouldReclaimAHalfOpenEntryButNeverAnEstablishedOneWhenFull()
    {
        final ConnectionTable table = table(false, 16);
        for (int i = 0; i < 16; i++)
        {
            assertThat(table.lookupForward(TCP, 0, i, 1000, 0, 1, 80)).isEqualTo(ConnectionTable.NOT_FOUND);
            final int slot = table.insert(TCP, 0, i, 1000, 0, 1, 80, 1_000);
            table.state(slot, i == 7 ? TcpStates.SYN_RECV : TcpStates.ESTABLISHED);
            table.server(slot, 100 + i);
        }
        assertThat(table.size()).isEqualTo(16);
        // Far more than the reclaim window around any home: the half-open entry is found only near it.
        int admitted = 0;
        for (int i = 16; i < 64; i++)
        {
            if (table.lookupForward(TCP, 0, i, 1000, 0, 1, 80) != ConnectionTable.NOT_FOUND)
            {
                continue;
            }
            final int slot = table.insert(TCP, 0, i, 1000, 0, 1, 80, 10);
            if (slot >= 0)
            {
                // Established at once, so it is no candidate for the next insert.
                table.state(slot, TcpStates.ESTABLISHED);
                table.server(slot, 200 + i);
                admitted++;
            }
        }
        assertThat(admitted).isEqualTo(1);
        assertThat(removed).containsExactly(107);
        assertThat(evicted).containsExactly(true);
        assertThat(table.refusals()).isEqualTo(47);
        for (int i = 0; i < 16; i++)
        {
            assertThat(table.lookupForward(TCP, 0, i, 1000, 0, 1, 80) >= 0).as("client %d", i).isEqualTo(i != 7);
        }
    }

    @Test
    void shouldSweepExpiredEntriesAFewSlotsAtATime()
    {
        final ConnectionTable table = table(false, 1000);
        for (int i = 0; i < 1000; i++)
        {
            table.lookupForward(UDP, 0, i, 53, 0, 1, 53);
            final int slot = table.insert(UDP, 0, i, 53, 0, 1, 53, 0);
            table.expiresTick(slot, i % 2 == 0 ? 500 : 5000);
            table.server(slot, i);
        }
        int expired = 0;
        // A removal re-examines its slot, so a full pass takes a few calls more than slots / budget.
        for (int call = 0; call < 2 * (table.slots() / 64 + 1); call++)
        {
            expired += table.sweep(1000, 64);
        }
        assertThat(expired).isEqualTo(500);
        assertThat(table.size()).isEqualTo(500);
        for (int i = 0; i < 1000; i++)
        {
            assertThat(table.lookupForward(UDP, 0, i, 53, 0, 1, 53) >= 0).isEqualTo(i % 2 == 1);
        }
    }

    static Stream<org.junit.jupiter.params.provider.Arguments> seeds()
    {
        return Stream.of(1L, 2L, 3L, 4L, 5L).flatMap(seed -> Stream.of(arguments(seed, false), arguments(seed, true)));
    }

    /** A long random run of inserts, lookups and removals against a map: probe runs stay intact. */
    @ParameterizedTest(name = "seed {0} v6 {1}")
    @MethodSource("seeds")
    void shouldAgreeWithAMapUnderRandomInsertsAndRemovals(final long seed, final boolean v6)
    {
        final ConnectionTable table = table(v6, 2000);
        final Map<Long, Integer> model = new HashMap<>();
        final SplittableRandom random = new SplittableRandom(seed);
        for (int step = 0; step < 200_000; step++)
        {
            // Few distinct clients and ports, so keys collide and probe runs grow long.
            final long client = random.nextInt(600);
            final int port = random.nextInt(4);
            final long key = client << 8 | port;
            final long high = v6 ? client * 31 : 0;
            final int found = table.lookupForward(TCP, high, client, port, high, 7, 80);
            if (model.containsKey(key))
            {
                assertThat(found).isGreaterThanOrEqualTo(0);
                assertThat(table.server(found)).isEqualTo(model.get(key));
                if (random.nextInt(3) == 0)
                {
                    table.remove(found, false);
                    model.remove(key);
                }
            }
            else
            {
                assertThat(found).isEqualTo(ConnectionTable.NOT_FOUND);
                if (model.size() < table.capacity())
                {
                    final int slot = table.insert(TCP, high, client, port, high, 7, 80, Integer.MAX_VALUE);
                    table.state(slot, TcpStates.ESTABLISHED);
                    table.server(slot, (int)key);
                    model.put(key, (int)key);
                }
            }
            assertThat(table.size()).isEqualTo(model.size());
        }
    }
}
