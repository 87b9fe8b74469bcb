package io.jvs.core.sched;

import io.jvs.core.service.RealServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random connection counts, weights and overload flags: each least-connection scheduler picks
 * what its formula says, checked against a reference that sorts the servers by the formula (exact
 * fractions, list position breaking ties) instead of walking them as the kernel does.
 */
class LeastConnectionRandomTest
{
    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 200);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldPickByTheFormula(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int count = 1 + random.nextInt(8);
        final StringBuilder spec = new StringBuilder();
        for (int i = 0; i < count; i++)
        {
            spec.append((char)('A' + i)).append(random.nextInt(0, 6)).append(' ');
        }
        for (final String scheduler : new String[] {"lc", "wlc", "sed", "nq", "fo", "ovf"})
        {
            final ServiceFixture fixture = ServiceFixture.of(scheduler, spec.toString());
            final SplittableRandom loads = new SplittableRandom(seed * 31);
            final List<RealServer> servers = fixture.servers();
            for (final RealServer server : servers)
            {
                final int active = loads.nextInt(0, 6);
                final int inactive = loads.nextInt(0, 3) == 0 ? loads.nextInt(0, 600) : 0;
                for (int i = 0; i < active; i++)
                {
                    server.bindConnection(false);
                }
                for (int i = 0; i < inactive; i++)
                {
                    server.bindConnection(true);
                }
                if (loads.nextInt(0, 5) == 0 && server.totalConnections() > 0)
                {
                    fixture.service.setThresholds(server, 1, 0);
                    server.bindConnection(true);
                    server.unbindConnection(true);
                    server.bindConnection(true);
                }
            }
            assertThat(fixture.pick()).as("%s over %s", scheduler, spec).isSameAs(reference(scheduler, servers));
        }
    }

    private static RealServer reference(final String scheduler, final List<RealServer> servers)
    {
        final List<Integer> usable = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++)
        {
            final RealServer server = servers.get(i);
            if (server.weight() > 0 && !server.isOverloaded())
            {
                usable.add(i);
            }
        }
        if (usable.isEmpty())
        {
            return null;
        }
        final Comparator<Integer> byPosition = Comparator.naturalOrder();
        final Comparator<Integer> order = switch (scheduler)
        {
            case "lc" -> Comparator.<Integer, Long>comparing(i -> servers.get(i).overhead()).thenComparing(byPosition);
            case "wlc" -> byFraction(servers, i -> servers.get(i).overhead()).thenComparing(byPosition);
            case "sed" -> byFraction(servers, i -> servers.get(i).activeConnections() + 1L).thenComparing(byPosition);
            case "nq" -> Comparator.<Integer, Boolean>comparing(i -> servers.get(i).activeConnections() != 0)
                .thenComparing((a, b) -> servers.get(a).activeConnections() == 0 ? byPosition.compare(a, b) : 0)
                .thenComparing(byFraction(servers, i -> servers.get(i).activeConnections() + 1L))
                .thenComparing(byPosition);
            case "fo" -> Comparator.<Integer, Integer>comparing(i -> -servers.get(i).weight()).thenComparing(byPosition);
            case "ovf" -> Comparator.<Integer, Boolean>comparing(
                    i -> servers.get(i).activeConnections() > servers.get(i).weight())
                .thenComparing(i -> -servers.get(i).weight()).thenComparing(byPosition);
            default -> throw new IllegalArgumentException(scheduler);
        };
        usable.sort(order);
        final RealServer best = servers.get(usable.get(0));
        if ("ovf".equals(scheduler) && best.activeConnections() > best.weight())
        {
            return null;
        }
        return best;
    }

    /** Orders by load / weight as exact fractions. */
    private static Comparator<Integer> byFraction(
        final List<RealServer> servers, final java.util.function.ToLongFunction<Integer> load)
    {
        return (a, b) -> BigInteger.valueOf(load.applyAsLong(a)).multiply(BigInteger.valueOf(servers.get(b).weight()))
            .compareTo(BigInteger.valueOf(load.applyAsLong(b)).multiply(BigInteger.valueOf(servers.get(a).weight())));
    }
}
