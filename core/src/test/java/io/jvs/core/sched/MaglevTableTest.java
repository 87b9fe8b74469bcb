package io.jvs.core.sched;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * mh table building at prime sizes with weights 0, 1 and the maximum, and the slot a connection hashes to.
 * <p>
 * The oracle is the population of the Maglev paper (Eisenbud et al., NSDI 2016, section 3.4, pseudocode 1)
 * as ip_vs_mh.c runs it: a server's permutation starts at {@code offset = h1 % M} and steps by
 * {@code skip = h2 % (M - 1) + 1}, with {@code h = hsiphash(port + address)} under the kernel's fixed keys
 * (2654435761 for h1, 2654446892 for h2, both words of the key); servers take turns in list order, each
 * taking as many slots a round as its weight divided by the gcd of the weights (shifted right so that the
 * largest fits 6 bits, at least 1 for a server with a weight). A connection goes to slot
 * {@code h1(source port when mh-port + source address) % M}, and mh-fallback re-hashes with offsets
 * (ip_vs_mh_get_fallback) until a slot holds a usable server.
 */
class MaglevTableTest
{
    private static final long H1 = 2654435761L;
    private static final long H2 = 2654446892L;

    @ParameterizedTest(name = "{0} in {1} slots")
    @CsvSource({
        // weights, M, slots per server: turns per round, filled round-robin until M slots are taken
        "'A1 B1 C1', 7, 'A=3, B=2, C=2'",
        "'A3 B1', 7, 'A=6, B=1'",
        // gcd 2: turns 3 and 2
        "'A6 B4', 7, 'A=5, B=2'",
        // 256/2 = 128 needs 8 bits: shifted by 2, turns 32 and (1 >> 2 = 0, raised to) 1
        "'A256 B2', 37, 'A=36, B=1'",
        // the maximum weight: 65535 needs 16 bits, shifted by 10, turns 63 and 1
        "'A65535 B1', 67, 'A=66, B=1'",
        // a server that never had a weight takes no slot
        "'A1 B0 C1', 7, 'A=4, C=3'",
        "'A1 B1', 131071, 'A=65536, B=65535'",
    })
    void shouldGiveEachServerItsTurnsPerRound(final String servers, final int size, final String slots)
    {
        final MaglevScheduler mh = scheduler(servers, "table-size=" + size);
        assertThat(HashSchedulerSpecTest.counts(mh.table())).hasToString("{" + slots + "}");
    }

    @Test
    void shouldBuildAnEmptyTableWhenNoServerHasAWeight()
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", SchedulerFlags.parse("table-size=7", "mh"), "A0 B0");
        final MaglevScheduler mh = (MaglevScheduler)fixture.service.scheduler();
        assertThat(HashSchedulerSpecTest.counts(mh.table())).isEqualTo(Map.of("-", 7));
        assertThat(fixture.pick()).isNull();
    }

    @ParameterizedTest(name = "{0} in {1} slots")
    @CsvSource({
        "'A1 B1 C1', 7",
        "'A1 B1 C1 D1 E1 F1 G1', 7",
        "'A2 B1 C3', 13",
        "'A1 B1 C1 D1', 251",
        "'A5 B0 C2 D7', 4093",
    })
    void shouldFillTheSlotsAsThePapersPopulation(final String servers, final int size)
    {
        final MaglevScheduler mh = scheduler(servers, "table-size=" + size);
        final RealServer[] list = ((AbstractTableScheduler)mh).service.servers();
        assertThat(ServiceFixture.names(mh.table())).isEqualTo(ServiceFixture.names(populate(list, size)));
    }

    @Test
    void shouldKeepTheTableWhenAServerIsQuiescedAndRebuildItWhenItsWeightChanges()
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", SchedulerFlags.parse("table-size=7", "mh"), "A1 B1");
        final MaglevScheduler mh = (MaglevScheduler)fixture.service.scheduler();
        final String before = ServiceFixture.names(mh.table());
        fixture.service.editServer(fixture.server('A'), 0, 0, 0, fixture.server('A').forwardMethod());
        assertThat(ServiceFixture.names(mh.table())).isEqualTo(before);
        fixture.service.editServer(fixture.server('A'), 6, 0, 0, fixture.server('A').forwardMethod());
        assertThat(HashSchedulerSpecTest.counts(mh.table())).hasToString("{A=6, B=1}");
    }

    @Test
    void shouldSendAConnectionToTheSlotOfItsSourceAddress()
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", SchedulerFlags.parse("table-size=13", "mh"),
            "A1 B1 C1 D1");
        final RealServer[] table = ((MaglevScheduler)fixture.service.scheduler()).table();
        for (int client = 1; client <= 40; client++)
        {
            final IpAddress source = IpAddress.ofV4(0xAC10_0000 + client * 7919);
            final RealServer expected = table[slot(H1, source.fold(), 13)];
            // Without mh-port the source port does not count.
            assertThat(fixture.pickFor(source.toString(), 1000 + client)).isSameAs(expected);
            assertThat(fixture.pickFor(source.toString(), 2000 + client)).isSameAs(expected);
        }
    }

    @Test
    void shouldAddTheSourcePortToTheKeyWithMhPort()
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", SchedulerFlags.parse("mh-port,table-size=13", "mh"),
            "A1 B1 C1 D1");
        final RealServer[] table = ((MaglevScheduler)fixture.service.scheduler()).table();
        for (int client = 1; client <= 40; client++)
        {
            final IpAddress source = IpAddress.ofV4(0xAC10_0000 + client * 7919);
            final int port = 1000 + client * 13;
            assertThat(fixture.pickFor(source.toString(), port)).isSameAs(table[slot(H1, port + source.fold(), 13)]);
        }
    }

    @Test
    void shouldFollowTheKernelsFallbackProbesPastAnUnusableServer()
    {
        final ServiceFixture plain = ServiceFixture.of("mh", SchedulerFlags.parse("table-size=13", "mh"), "A1 B1 C1");
        final ServiceFixture fallback = ServiceFixture.of("mh", SchedulerFlags.parse("mh-fallback,table-size=13", "mh"),
            "A1 B1 C1");
        for (final ServiceFixture fixture : new ServiceFixture[] {plain, fallback})
        {
            fixture.service.editServer(fixture.server('A'), 0, 0, 0, fixture.server('A').forwardMethod());
        }
        final RealServer[] table = ((MaglevScheduler)fallback.service.scheduler()).table();
        int quiescedHomes = 0;
        for (int client = 1; client <= 60; client++)
        {
            final IpAddress source = IpAddress.ofV4(0xC0A8_6400 + client * 31);
            final int key = source.fold();
            final int home = slot(H1, key, 13);
            RealServer expected = table[home];
            if (!expected.isUsable())
            {
                quiescedHomes++;
                assertThat(plain.pickFor(source.toString(), 1)).isNull();
                expected = null;
                for (int offset = 0; offset < 13 && expected == null; offset++)
                {
                    final RealServer probed = table[slot(H1, (offset + home) % 13 + key, 13)];
                    if (probed.isUsable())
                    {
                        expected = probed;
                    }
                }
            }
            assertThat(fallback.pickFor(source.toString(), 1)).as("client %d", client).isSameAs(expected);
        }
        assertThat(quiescedHomes).isPositive();
    }

    private static MaglevScheduler scheduler(final String servers, final String flags)
    {
        return (MaglevScheduler)ServiceFixture.of("mh", SchedulerFlags.parse(flags, "mh"), servers).service.scheduler();
    }

    private static int slot(final long key, final int value, final int size)
    {
        return Integer.remainderUnsigned(HalfSipHash.hash(key, key, value), size);
    }

    /** Pseudocode 1 of the paper, with the kernel's turns per round. */
    private static RealServer[] populate(final RealServer[] servers, final int size)
    {
        int gcd = 0;
        int max = 0;
        for (final RealServer server : servers)
        {
            if (server.lastWeight() > 0)
            {
                gcd = gcd == 0 ? server.lastWeight() : Weights.gcd(gcd, server.lastWeight());
                max = Math.max(max, server.lastWeight());
            }
        }
        final int bits = 32 - Integer.numberOfLeadingZeros(max / gcd);
        final int shift = Math.max(0, bits - 6);
        final int n = servers.length;
        final long[] offset = new long[n];
        final long[] skip = new long[n];
        final long[] next = new long[n];
        final int[] turns = new int[n];
        for (int i = 0; i < n; i++)
        {
            final int key = servers[i].port() + servers[i].address().v4();
            offset[i] = slot(H1, key, size);
            skip[i] = Integer.remainderUnsigned(HalfSipHash.hash(H2, H2, key), size - 1) + 1;
            final int weight = servers[i].lastWeight();
            turns[i] = weight == 0 ? 0 : Math.max(1, (weight / gcd) >> shift);
        }
        final RealServer[] entry = new RealServer[size];
        int filled = 0;
        while (filled < size)
        {
            for (int i = 0; i < n && filled < size; i++)
            {
                for (int turn = 0; turn < turns[i] && filled < size; turn++)
                {
                    int c = (int)((offset[i] + next[i] * skip[i]) % size);
                    while (entry[c] != null)
                    {
                        next[i]++;
                        c = (int)((offset[i] + next[i] * skip[i]) % size);
                    }
                    entry[c] = servers[i];
                    next[i]++;
                    filled++;
                }
            }
        }
        return entry;
    }
}
