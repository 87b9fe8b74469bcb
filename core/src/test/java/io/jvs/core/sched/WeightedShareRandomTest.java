package io.jvs.core.sched;

import io.jvs.core.service.RealServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random configurations: wrr and sh give every server exactly its weight's share over a full
 * cycle or table, per worker too.
 */
class WeightedShareRandomTest
{
    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 40);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void wrrShouldGiveEveryServerItsWeightOverEachFullCycleOnEveryWorker(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int servers = 1 + random.nextInt(8);
        final StringBuilder spec = new StringBuilder();
        final int[] weights = new int[servers];
        int gcd = 0;
        for (int i = 0; i < servers; i++)
        {
            // Multiples of a common factor now and then, to exercise the gcd step.
            weights[i] = (random.nextBoolean() ? 3 : 1) * random.nextInt(0, 9);
            spec.append((char)('A' + i)).append(weights[i]).append(' ');
            gcd = weights[i] == 0 ? gcd : (gcd == 0 ? weights[i] : gcd(gcd, weights[i]));
        }
        final int workers = 2;
        final ServiceFixture fixture = ServiceFixture.of(
            "wrr", SchedulerFlags.NONE, spec.toString(), new SchedulingContext(0, 1L), workers);
        if (gcd == 0)
        {
            assertThat(fixture.pick()).isNull();
            return;
        }
        int cycle = 0;
        for (final int weight : weights)
        {
            cycle += weight / gcd;
        }
        final SchedulingContext[] contexts = {new SchedulingContext(0, 1L), new SchedulingContext(1, 2L)};
        final io.jvs.core.net.FlowTuple flow = new io.jvs.core.net.FlowTuple().setV4(
            io.jvs.core.net.Protocol.TCP, 1, 1, 2, 80);
        for (int round = 0; round < 3; round++)
        {
            for (final SchedulingContext context : contexts)
            {
                final Map<RealServer, Integer> counts = new HashMap<>();
                for (int i = 0; i < cycle; i++)
                {
                    counts.merge(fixture.service.schedule(flow, context), 1, Integer::sum);
                }
                for (int i = 0; i < servers; i++)
                {
                    final RealServer server = fixture.server((char)('A' + i));
                    assertThat(counts.getOrDefault(server, 0))
                        .as("server %s weight %d, worker %d", ServiceFixture.name(server), weights[i],
                            context.workerIndex())
                        .isEqualTo(weights[i] / gcd);
                }
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shShouldGiveEveryServerItsWeightsShareOfTheTable(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int tableSize = 1 << random.nextInt(6, 12);
        // Weights whose sum divides the table: split a power of two at random cut points.
        final int total = 1 << random.nextInt(1, 7);
        final int servers = 1 + random.nextInt(Math.min(8, total));
        final int[] weights = new int[servers];
        int remaining = total;
        for (int i = 0; i < servers - 1; i++)
        {
            weights[i] = 1 + random.nextInt(remaining - (servers - 1 - i));
            remaining -= weights[i];
        }
        weights[servers - 1] = remaining;
        final StringBuilder spec = new StringBuilder();
        for (int i = 0; i < servers; i++)
        {
            spec.append((char)('A' + i)).append(weights[i]).append(' ');
        }
        final ServiceFixture fixture = ServiceFixture.of(
            "sh", SchedulerFlags.parse("table-size=" + tableSize, "sh"), spec.toString());
        final Map<String, Integer> counts =
            HashSchedulerSpecTest.counts(((SourceHashScheduler)fixture.service.scheduler()).table());
        for (int i = 0; i < servers; i++)
        {
            assertThat(counts.get(String.valueOf((char)('A' + i))))
                .as("server %c weight %d of %d in %d buckets", (char)('A' + i), weights[i], total, tableSize)
                .isEqualTo(weights[i] * (tableSize / total));
        }
    }

    private static int gcd(final int a, final int b)
    {
        return b == 0 ? a : gcd(b, a % b);
    }
}
