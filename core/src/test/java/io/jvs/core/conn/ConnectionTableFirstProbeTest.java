package io.jvs.core.conn;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lookup that compares the slot {@link ConnectionTable#firstProbe} gave before probing from the home slot finds
 * what the lookup from the home slot alone finds, whichever slot it is given: the first probe is a guess that only
 * decides how soon the lookup branches right.
 */
class ConnectionTableFirstProbeTest
{
    private static final int TCP = 6;
    private static final int VIRTUAL_PORT = 80;
    private static final long VIRTUAL = 0x0A00_0064L;

    private record Client(long address, int port)
    {
    }

    private static int home(final ConnectionTable table, final Client client)
    {
        return table.home(TCP, 0, client.address, client.port);
    }

    private static int lookup(final ConnectionTable table, final Client client)
    {
        return table.lookupForward(TCP, 0, client.address, client.port, 0, VIRTUAL, VIRTUAL_PORT);
    }

    private static int lookupFrom(final ConnectionTable table, final Client client, final int first)
    {
        return table.lookupForward(home(table, client), first, TCP, 0, client.address, client.port, 0, VIRTUAL,
            VIRTUAL_PORT);
    }

    private static int insert(final ConnectionTable table, final Client client)
    {
        assertThat(lookup(table, client)).isEqualTo(ConnectionTable.NOT_FOUND);
        return table.insert(TCP, 0, client.address, client.port, 0, VIRTUAL, VIRTUAL_PORT, 0);
    }

    /** Clients of random addresses and ports, a table of 4 096 filled to its capacity (half its slots). */
    private static List<Client> fill(final ConnectionTable table, final SplittableRandom random)
    {
        final List<Client> clients = new ArrayList<>();
        while (clients.size() < table.capacity())
        {
            final Client client = new Client(random.nextLong(1L << 32), 1 + random.nextInt(65535));
            if (lookup(table, client) == ConnectionTable.NOT_FOUND)
            {
                insert(table, client);
                clients.add(client);
            }
        }
        return clients;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void shouldFindWhatTheLookupFromHomeFindsWhicheverSlotComesFirst(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final ConnectionTable table = new ConnectionTable(false, 4096, (t, slot, evicted) -> { });
        final List<Client> clients = fill(table, random);
        int inSecondSlot = 0;
        for (final Client client : clients)
        {
            final int slot = lookup(table, client);
            final int home = home(table, client);
            inSecondSlot += slot == home + 1 ? 1 : 0;
            assertThat(lookupFrom(table, client, table.firstProbe(home, client.port, VIRTUAL_PORT))).isEqualTo(slot);
            assertThat(lookupFrom(table, client, home)).isEqualTo(slot);
            assertThat(lookupFrom(table, client, home + 1)).isEqualTo(slot);
        }
        // What the first probe is for: at this load many entries sit in their line's second slot.
        assertThat(inSecondSlot).isGreaterThan(clients.size() / 8);
        final Set<Client> present = new HashSet<>(clients);
        for (int n = 0; n < 1000; n++)
        {
            final Client absent = new Client(random.nextLong(1L << 32), 1 + random.nextInt(65535));
            if (present.contains(absent))
            {
                continue;
            }
            final int home = home(table, absent);
            assertThat(lookupFrom(table, absent, table.firstProbe(home, absent.port, VIRTUAL_PORT)))
                .isEqualTo(ConnectionTable.NOT_FOUND);
            assertThat(lookupFrom(table, absent, home + 1)).isEqualTo(ConnectionTable.NOT_FOUND);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void shouldGiveTheSlotOfTheLineWhosePortsAreNotTheOtherSlotsOnes(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final ConnectionTable table = new ConnectionTable(false, 4096, (t, slot, evicted) -> { });
        for (final Client client : fill(table, random))
        {
            final int home = home(table, client);
            final int slot = lookup(table, client);
            final int first = table.firstProbe(home, client.port, VIRTUAL_PORT);
            if (slot == home)
            {
                assertThat(first).isEqualTo(home);
            }
            else if (table.clientPort(home) != client.port)
            {
                assertThat(first).isEqualTo(home + 1);
            }
        }
    }

    /**
     * A removed entry's key stays in its slot's bytes: a first probe at that slot must not find it, nor the
     * insert that follows the miss go anywhere but where the lookup from home would put it.
     */
    @Test
    void shouldNotFindARemovedEntryLeftInTheSlotItWasGiven()
    {
        final ConnectionTable table = new ConnectionTable(false, 1024, (t, slot, evicted) -> { });
        final Client client = new Client(0xC0A8_0001L, 40000);
        final int slot = insert(table, client);
        table.remove(slot, false);

        assertThat(lookupFrom(table, client, slot)).isEqualTo(ConnectionTable.NOT_FOUND);
        assertThat(table.insert(TCP, 0, client.address, client.port, 0, VIRTUAL, VIRTUAL_PORT, 0)).isEqualTo(slot);
        assertThat(lookupFrom(table, client, slot)).isEqualTo(slot);
    }

    @Test
    void shouldGiveAnIpv6LookupItsHome()
    {
        final ConnectionTable table = new ConnectionTable(true, 1024, (t, slot, evicted) -> { });
        final int home = table.home(TCP, 0x2001_0db8L << 32, 7, 40000);
        assertThat(table.firstProbe(home, 12345, VIRTUAL_PORT)).isEqualTo(home);
    }
}
