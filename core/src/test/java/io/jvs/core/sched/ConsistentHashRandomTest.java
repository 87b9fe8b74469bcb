package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random keys: mh balance and disruption, and dh/sh/mh stability until the servers change.
 */
class ConsistentHashRandomTest
{
    private static final int KEYS = 200_000;

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 10);
    }

    @ParameterizedTest(name = "{0} servers")
    @ValueSource(ints = {2, 3, 5, 10, 20})
    void mhShouldBalanceEqualWeightsWithinOnePercent(final int servers)
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", equalWeights(servers));
        final Map<RealServer, Integer> counts = new HashMap<>();
        final SplittableRandom random = new SplittableRandom(servers);
        final FlowTuple flow = new FlowTuple();
        for (int i = 0; i < KEYS; i++)
        {
            flow.setV4(Protocol.TCP, random.nextInt(), 1000, ServiceFixture.VIP.v4(), 80);
            counts.merge(fixture.service.schedule(flow, fixture.context), 1, Integer::sum);
        }
        assertThat(counts).hasSize(servers);
        for (final int count : counts.values())
        {
            assertThat(Math.abs((double)count / KEYS - 1.0 / servers)).isLessThan(0.01);
        }
        // The table itself is balanced to a slot.
        final Map<String, Integer> slots =
            HashSchedulerSpecTest.counts(((MaglevScheduler)fixture.service.scheduler()).table());
        final int m = MaglevScheduler.DEFAULT_TABLE_SIZE;
        assertThat(slots.values()).allSatisfy(count -> assertThat(count).isBetween(m / servers, m / servers + 1));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void mhShouldMoveAtMostOneNthPlusTwoPercentOfKeysWhenAServerGoes(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int servers = 3 + random.nextInt(15);
        final ServiceFixture fixture = ServiceFixture.of("mh", equalWeights(servers));
        final int[] keys = random.ints(50_000).toArray();
        final RealServer[] before = decide(fixture, keys);
        final RealServer removed = fixture.service.servers()[random.nextInt(servers)];
        fixture.service.removeServer(removed);
        final RealServer[] after = decide(fixture, keys);
        int moved = 0;
        for (int i = 0; i < keys.length; i++)
        {
            assertThat(after[i]).isNotSameAs(removed);
            if (before[i] != after[i])
            {
                moved++;
            }
        }
        assertThat((double)moved / keys.length).isLessThanOrEqualTo(1.0 / servers + 0.02);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"dh", "sh", "mh"})
    void shouldMapAKeyToTheSameServerUntilTheServersChange(final String scheduler)
    {
        final ServiceFixture fixture = ServiceFixture.of(scheduler, "A1 B2 C3 D1 E5");
        final SplittableRandom random = new SplittableRandom(7);
        final int[] keys = random.ints(5_000).toArray();
        final RealServer[] first = decide(fixture, keys);
        // Other traffic in between must not matter.
        for (int i = 0; i < 1000; i++)
        {
            fixture.pickFor(IpAddress.ofV4(random.nextInt()).toString(), random.nextInt(65536));
        }
        assertThat(decide(fixture, keys)).containsExactly(first);
        fixture.add("F1");
        final RealServer[] changed = decide(fixture, keys);
        int differences = 0;
        for (int i = 0; i < keys.length; i++)
        {
            differences += first[i] == changed[i] ? 0 : 1;
        }
        assertThat(differences).as("a new server remaps some keys").isPositive();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void mhShouldNotReshuffleWhenAServerIsQuiesced(final long seed)
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", "A1 B1 C1 D1");
        final RealServer[] table = ((MaglevScheduler)fixture.service.scheduler()).table();
        final RealServer quiesced = fixture.service.servers()[(int)(seed % 4)];
        fixture.service.editServer(quiesced, 0, 0, 0, quiesced.forwardMethod());
        assertThat(((MaglevScheduler)fixture.service.scheduler()).table()).containsExactly(table);
        final int[] keys = new SplittableRandom(seed).ints(2_000).toArray();
        int refused = 0;
        for (final RealServer server : decide(fixture, keys))
        {
            assertThat(server).isNotSameAs(quiesced);
            refused += server == null ? 1 : 0;
        }
        // Without mh-fallback the quiesced server's quarter of the keys find no server.
        assertThat(refused).isBetween(300, 700);
    }

    private static RealServer[] decide(final ServiceFixture fixture, final int[] keys)
    {
        final FlowTuple flow = new FlowTuple();
        final RealServer[] decisions = new RealServer[keys.length];
        for (int i = 0; i < keys.length; i++)
        {
            // dh keys on the destination, sh and mh on the source: vary both.
            flow.setV4(Protocol.TCP, keys[i], 1000, keys[i], 80);
            decisions[i] = fixture.service.schedule(flow, fixture.context);
        }
        return decisions;
    }

    private static String equalWeights(final int servers)
    {
        final StringBuilder spec = new StringBuilder();
        for (int i = 0; i < servers; i++)
        {
            spec.append((char)('A' + i)).append("1 ");
        }
        return spec.toString();
    }
}
