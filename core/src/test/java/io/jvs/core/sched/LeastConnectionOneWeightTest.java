package io.jvs.core.sched;

import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The weighted least-connection pass for servers of one weight (a key of overhead and list position, its minimum)
 * chooses what the kernel's pass chooses: seeded lists of up to 26 servers sharing one weight, some quiesced (weight
 * 0) and some overloaded, with small counts so that ties are common, checked against exact fractions with the list
 * position breaking ties. A quarter of the seeds give one server another weight after the hint was taken (a weight
 * edited while a worker schedules): the choice must still be the formula's.
 */
class LeastConnectionOneWeightTest
{
    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 300);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldChooseByTheFormula(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int count = 1 + random.nextInt(26);
        final int shared = random.nextInt(3) == 0 ? 1 + random.nextInt(RealServer.MAX_WEIGHT) : random.nextInt(1, 4);
        final StringBuilder spec = new StringBuilder();
        for (int i = 0; i < count; i++)
        {
            spec.append((char)('A' + i)).append(random.nextInt(6) == 0 ? 0 : shared).append(' ');
        }
        final ServiceFixture fixture = ServiceFixture.of("wlc", spec.toString());
        final RealServer[] servers = fixture.service.servers();
        LeastConnection.CountedServers hint = new LeastConnection.CountedServers(servers);
        assertThat(hint.keyed).as("one weight among %s", spec).isTrue();
        assertThat(LongStream.of(hint.usableScales).allMatch(scale -> scale == 1)).as("scales of one weight, %s", spec)
            .isTrue();
        if (random.nextInt(4) == 0)
        {
            final RealServer edited = servers[random.nextInt(count)];
            fixture.service.editServer(edited, shared == 1 ? 2 : shared - 1, 0, 0, ForwardMethod.NAT);
            // What the scheduler's hook takes after the edit (the one taken before has the weights it was taken with).
            hint = new LeastConnection.CountedServers(servers);
        }
        LeastConnectionReference.loadRandomly(fixture, random);
        final RealServer expected = LeastConnectionReference.least(servers);
        assertThat(LeastConnection.weighted(servers, hint)).as("keyed pass over %s", spec).isSameAs(expected);
        assertThat(LeastConnection.weighted(servers)).as("full pass over %s", spec).isSameAs(expected);
        assertThat(LeastConnection.weighted(servers.clone(), hint)).as("a list the hint was not taken of, %s", spec)
            .isSameAs(expected);
        assertThat(fixture.pick()).as("wlc over %s", spec).isSameAs(expected);
    }

    /**
     * The keyed pass takes the weights from the hint, which the scheduler's hook takes again on every edit: a hint
     * taken before an edit chooses as if the edit came after the choice, and the scheduler, whose hint the edit
     * replaced, by the new weights.
     */
    @Test
    void shouldChooseByTheWeightsTheHintWasTakenWithUntilTheHookTakesItAgain()
    {
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A1 B1 C1");
        final RealServer[] servers = fixture.service.servers();
        servers[0].bindConnection(false);
        servers[0].bindConnection(false);
        servers[1].bindConnection(false);
        servers[2].bindConnection(false);
        servers[2].bindConnection(false);
        final LeastConnection.CountedServers before = new LeastConnection.CountedServers(servers);
        assertThat(LeastConnection.weighted(servers, before)).isSameAs(servers[1]);

        // B quiesced (weight 0): the scheduler's hint is taken again and B is out; the old hint still has B in.
        fixture.service.editServer(servers[1], 0, 0, 0, ForwardMethod.NAT);
        assertThat(fixture.pick()).isSameAs(servers[0]);
        assertThat(LeastConnection.weighted(servers, new LeastConnection.CountedServers(servers))).isSameAs(servers[0]);
        assertThat(LeastConnection.weighted(servers, before)).isSameAs(servers[1]);

        // B back with its weight, A overloaded: the flag, which any bind may set, is read live even from an old hint.
        fixture.service.editServer(servers[1], 1, 0, 0, ForwardMethod.NAT);
        servers[1].bindConnection(false);
        servers[1].bindConnection(false);
        fixture.service.setThresholds(servers[0], 1, 0);
        servers[0].bindConnection(false);
        assertThat(servers[0].isOverloaded()).isTrue();
        assertThat(fixture.pick()).isSameAs(servers[2]);
        assertThat(LeastConnection.weighted(servers, before)).isSameAs(servers[2]);
    }

    @Test
    void shouldTakeTheFullPassWhenAnOverheadDoesNotFitBesideThePosition()
    {
        // 1 024 workers each with 2^30 active connections: an overhead of 2^48, which shifted by the key's 16
        // position bits would wrap to 0 and win against a server with one connection.
        final int workers = RealServer.MAX_WORKERS;
        final RealServer crowded = LeastConnectionReference.serverWithActive(workers, 1 << 30, 1, 1);
        final RealServer light = LeastConnectionReference.serverWithActive(workers, 1, 1, 2);
        final RealServer[] servers = {crowded, light};
        assertThat(crowded.overhead()).isEqualTo(1L << 48);
        final LeastConnection.CountedServers hint = new LeastConnection.CountedServers(servers);
        assertThat(hint.keyed).isTrue();

        assertThat(LeastConnection.weighted(servers, hint)).isSameAs(light);
        assertThat(LeastConnection.weighted(servers)).isSameAs(light);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldCompareProductsOfLoadsAndWeightsExactlyWhereTheyOverflow64Bits(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < 1000; i++)
        {
            // Loads up to 2^50 (1 024 workers' counts), weights up to the kernel's INT_MAX; ties now and then.
            final long a = random.nextLong(1L << (1 + random.nextInt(50)));
            final long b = random.nextInt(3) == 0 ? Integer.MAX_VALUE - random.nextInt(3) : random.nextInt(1, 1 << 20);
            final boolean tie = random.nextInt(10) == 0;
            final long c = tie ? a : random.nextLong(1L << (1 + random.nextInt(50)));
            final long d = tie ? b : random.nextInt(3) == 0 ? Integer.MAX_VALUE : random.nextInt(1, 1 << 20);
            final boolean exact = BigInteger.valueOf(a).multiply(BigInteger.valueOf(b))
                .compareTo(BigInteger.valueOf(c).multiply(BigInteger.valueOf(d))) > 0;
            assertThat(LeastConnection.productAbove(a, b, c, d)).as("%d * %d > %d * %d", a, b, c, d).isEqualTo(exact);
        }
    }

    @Test
    void shouldFindNoServerWhenNoneIsUsable()
    {
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A0 B0");
        final RealServer[] servers = fixture.service.servers();
        assertThat(LeastConnection.weighted(servers, new LeastConnection.CountedServers(servers))).isNull();
        final RealServer[] none = new RealServer[0];
        assertThat(LeastConnection.weighted(none, new LeastConnection.CountedServers(none))).isNull();
    }
}
