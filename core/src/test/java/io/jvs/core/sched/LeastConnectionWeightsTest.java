package io.jvs.core.sched;

import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The weighted least-connection pass for servers of different weights, over the hint's counter slots and weights,
 * chooses what the kernel's pass chooses: seeded lists of up to 26 servers of weights from 1 to the kernel's maximum,
 * some quiesced (weight 0) and some overloaded, with small counts so that ties are common, checked against exact
 * fractions with the list position breaking ties. A hint taken before a weight edit chooses by the weights it was
 * taken with, as the one-weight pass does.
 */
class LeastConnectionWeightsTest
{
    // The one-weight test's seeds, 1 to 300.
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("io.jvs.core.sched.LeastConnectionOneWeightTest#seeds")
    void shouldChooseByTheFormula(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int count = 2 + random.nextInt(25);
        final boolean large = random.nextInt(3) == 0;
        final int[] weights = new int[count];
        for (int i = 0; i < count; i++)
        {
            weights[i] = random.nextInt(6) == 0 ? 0 :
                large ? 1 + random.nextInt(RealServer.MAX_WEIGHT) : random.nextInt(1, 5);
        }
        // Two servers of different weights at least, or the one-weight pass would take the list.
        weights[0] = Math.max(weights[0], 1);
        weights[count - 1] = weights[0] + 1;
        final StringBuilder spec = new StringBuilder();
        for (int i = 0; i < count; i++)
        {
            spec.append((char)('A' + i)).append(weights[i]).append(' ');
        }
        final ServiceFixture fixture = ServiceFixture.of("wlc", spec.toString());
        final RealServer[] servers = fixture.service.servers();
        final LeastConnection.CountedServers hint = new LeastConnection.CountedServers(servers);
        assertThat(hint.equalWeights).as("weights %s", spec).isFalse();
        LeastConnectionReference.loadRandomly(fixture, random);
        final RealServer expected = LeastConnectionReference.least(servers);
        assertThat(LeastConnection.weighted(servers, hint)).as("pass over the hint, %s", spec).isSameAs(expected);
        assertThat(LeastConnection.weighted(servers)).as("pass over the servers, %s", spec).isSameAs(expected);
        assertThat(fixture.pick()).as("wlc over %s", spec).isSameAs(expected);
    }

    @Test
    void shouldChooseByTheWeightsTheHintWasTakenWithUntilTheHookTakesItAgain()
    {
        // 3, 2 and 4 active connections (256 of overhead each, nothing inactive): per weight 3/3, 2/1 and 4/2.
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A3 B1 C2");
        final RealServer[] servers = fixture.service.servers();
        final int[] active = {3, 2, 4};
        for (int s = 0; s < servers.length; s++)
        {
            for (int i = 0; i < active[s]; i++)
            {
                servers[s].bindConnection(false);
            }
        }
        final LeastConnection.CountedServers before = new LeastConnection.CountedServers(servers);
        assertThat(LeastConnection.weighted(servers, before)).isSameAs(servers[0]);

        // A's weight down to 1: 3/1 against B's 2/1 and C's 4/2. The scheduler's hook takes the hint again and B
        // and C tie, the earlier one first; the old hint still has A at 3.
        fixture.service.editServer(servers[0], 1, 0, 0, ForwardMethod.NAT);
        assertThat(fixture.pick()).isSameAs(servers[1]);
        assertThat(LeastConnection.weighted(servers, new LeastConnection.CountedServers(servers)))
            .isSameAs(servers[1]);
        assertThat(LeastConnection.weighted(servers, before)).isSameAs(servers[0]);

        // A overloaded: the flag, which any bind may set, is read live even from the old hint.
        fixture.service.setThresholds(servers[0], 1, 0);
        servers[0].bindConnection(false);
        assertThat(servers[0].isOverloaded()).isTrue();
        assertThat(LeastConnection.weighted(servers, before)).isSameAs(servers[1]);
    }

    @Test
    void shouldCompareOverheadsAndWeightsBeyond64BitsExactly()
    {
        // 1 024 workers with 2^30 + 1 active connections each (A) and 2^30 (B): overheads of 2^48 + 2^18 and 2^48.
        // With weights 2^17 (A) and 2^16 (B), A's load per weight, about 2^31, is half B's, 2^32, though its overhead is
        // the larger and B comes first; the kernel's comparison of B's overhead times A's weight (2^65) with A's
        // overhead times B's weight (2^64 + 2^34) in 64 bits would wrap both (to 0 and 2^34) and keep B.
        final int workers = RealServer.MAX_WORKERS;
        final RealServer a = LeastConnectionReference.serverWithActive(workers, (1 << 30) + 1, 1 << 17, 1);
        final RealServer b = LeastConnectionReference.serverWithActive(workers, 1 << 30, 1 << 16, 2);
        assertThat(a.overhead()).isEqualTo((1L << 48) + (1L << 18));
        assertThat(b.overhead()).isEqualTo(1L << 48);
        final RealServer[] servers = {b, a};
        final LeastConnection.CountedServers hint = new LeastConnection.CountedServers(servers);
        assertThat(hint.equalWeights).isFalse();

        assertThat(LeastConnectionReference.least(servers)).isSameAs(a);
        assertThat(LeastConnection.weighted(servers, hint)).isSameAs(a);
        assertThat(LeastConnection.weighted(servers, hint, new SchedulingContext(0, 1L, true)))
            .as("a burst's tree").isSameAs(a);
        assertThat(LeastConnection.weighted(servers)).isSameAs(a);
    }
}
