package io.jvs.core.sched;

import io.jvs.core.service.ConnectionCountersDescriptor;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The weighted least-connection passes for servers of different weights, over the hint's counter slots and weights,
 * choose what the kernel's pass chooses: the keyed pass, for weights whose least common multiple is small (each
 * server's overhead scaled to it), and the pass that compares products, for the others. Seeded lists of up to 26
 * servers of weights from 1 to 4 (keyed) or from 1 to the kernel's maximum (not), some quiesced (weight 0) and some
 * overloaded, with small counts so that ties are common, checked against exact fractions with the list position
 * breaking ties. A hint taken before a weight edit chooses by the weights it was taken with, as the one-weight pass
 * does.
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
        assertThat(hint.keyed).as("a keyed list, weights %s", spec).isEqualTo(!large);
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
        // With weights 2^17 + 1 (A) and 2^16 + 1 (B), whose least common multiple is too large for keys, A's load per
        // weight, about 2^31, is half B's, about 2^32, though its overhead is the larger and B comes first; the
        // kernel's comparison of B's overhead times A's weight (2^65 + 2^48) with A's overhead times B's weight (2^64
        // + 2^48 + 2^34 + 2^18) in 64 bits would wrap both (to 2^48 and 2^48 + 2^34 + 2^18) and keep B.
        final int workers = RealServer.MAX_WORKERS;
        final RealServer a = LeastConnectionReference.serverWithActive(workers, (1 << 30) + 1, (1 << 17) + 1, 1);
        final RealServer b = LeastConnectionReference.serverWithActive(workers, 1 << 30, (1 << 16) + 1, 2);
        assertThat(a.overhead()).isEqualTo((1L << 48) + (1L << 18));
        assertThat(b.overhead()).isEqualTo(1L << 48);
        final RealServer[] servers = {b, a};
        final LeastConnection.CountedServers hint = new LeastConnection.CountedServers(servers);
        assertThat(hint.keyed).isFalse();

        assertThat(LeastConnectionReference.least(servers)).isSameAs(a);
        assertThat(LeastConnection.weighted(servers, hint)).isSameAs(a);
        assertThat(LeastConnection.weighted(servers, hint, new SchedulingContext(0, 1L, true)))
            .as("a burst's tree").isSameAs(a);
        assertThat(LeastConnection.weighted(servers)).isSameAs(a);
    }

    /**
     * A keyed list whose scaled overhead would not fit beside the position in a key: the exact pass decides. A's
     * weight 2^16 makes B's scale (weight 1) 2^16, and B's overhead of 2^31 + 256 scaled and shifted by the key's 16
     * position bits would reach the sign bit and win against A's one connection.
     */
    @Test
    void shouldTakeTheExactPassWhenAScaledOverheadDoesNotFitBesideThePosition()
    {
        final RealServer a = LeastConnectionReference.serverWithActive(1, 1, 1 << 16, 1);
        final RealServer b = LeastConnectionReference.serverWithActive(1, (1 << 23) + 1, 1, 2);
        assertThat(b.overhead()).isEqualTo((1L << 31) + 256);
        final RealServer[] servers = {a, b};
        final LeastConnection.CountedServers hint = new LeastConnection.CountedServers(servers);
        assertThat(hint.keyed).isTrue();
        assertThat(hint.usableScales).containsExactly(1L, 1L << 16);

        assertThat(LeastConnectionReference.least(servers)).isSameAs(a);
        assertThat(LeastConnection.weighted(servers, hint)).isSameAs(a);
        assertThat(LeastConnection.weighted(servers, hint, new SchedulingContext(0, 1L, true)))
            .as("a burst's tree").isSameAs(a);
    }

    /**
     * A keyed list's server whose overhead crosses the key's limit within a burst, by this worker's own binds: its key
     * is not taken again, and the exact pass decides. C and X, of weight 1, have a scale of 2^16 (Z, of weight 2^16 and
     * overloaded, makes it so), and C's overhead of 2^31 after its bind, scaled and shifted by the key's 16 position
     * bits, would reach the sign bit and win again against X's 2^31 - 256.
     */
    @Test
    void shouldTakeTheExactPassWhenABindTakesAnOverheadBeyondTheKey()
    {
        final RealServer c = LeastConnectionReference.serverWithActive(1, (1 << 23) - 1, 1, 1);
        final RealServer x = LeastConnectionReference.serverWithActive(1, (1 << 23) - 1, 1, 2);
        final RealServer z = LeastConnectionReference.serverWithActive(1, 1, 1 << 16, 3);
        final long zFlags = z.countersAddress() + ConnectionCountersDescriptor.FLAGS_OFFSET;
        UnsafeApi.putInt(null, zFlags, UnsafeApi.getInt(null, zFlags) | ConnectionCountersDescriptor.FLAG_OVERLOAD);
        assertThat(z.isOverloaded()).isTrue();
        final RealServer[] servers = {c, x, z};
        final LeastConnection.CountedServers hint = new LeastConnection.CountedServers(servers);
        assertThat(hint.keyed).isTrue();
        assertThat(hint.usableScales).containsExactly(1L << 16, 1L << 16, 1);
        final SchedulingContext context = new SchedulingContext(0, 1L, true);
        context.nowNs(1_000);
        assertThat(LeastConnection.weighted(servers, hint, context)).as("C and X tie").isSameAs(c);

        c.bindConnection(0, false);
        context.countsChanged(c.countersAddress());
        assertThat(c.overhead()).isEqualTo(1L << 31);
        assertThat(LeastConnectionReference.least(servers)).isSameAs(x);
        assertThat(LeastConnection.weighted(servers, hint, context)).as("within the burst").isSameAs(x);
    }

    /**
     * Each weight's scale is the weights' least common multiple over it, exactly, and a list is keyed only when
     * no scale is above LeastConnection.MAX_SCALE: seeded sets of weights, small ones (often keyed), multiples of
     * two large primes (often not) and any up to the kernel's maximum, against a least common multiple in
     * BigInteger.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("io.jvs.core.sched.LeastConnectionOneWeightTest#seeds")
    void shouldScaleEachWeightByTheirLeastCommonMultiple(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] weights = new int[1 + random.nextInt(16)];
        final int kind = random.nextInt(3);
        for (int i = 0; i < weights.length; i++)
        {
            weights[i] = switch (kind)
            {
                case 0 -> random.nextInt(1, 13);
                case 1 -> (random.nextBoolean() ? 65_521 : 65_519) * random.nextInt(1, 4);
                default -> random.nextInt(1, RealServer.MAX_WEIGHT);
            };
        }
        BigInteger multiple = BigInteger.ONE;
        int least = Integer.MAX_VALUE;
        for (final int weight : weights)
        {
            final BigInteger w = BigInteger.valueOf(weight);
            multiple = multiple.multiply(w).divide(multiple.gcd(w));
            least = Math.min(least, weight);
        }
        final boolean fits = multiple.divide(BigInteger.valueOf(least))
            .compareTo(BigInteger.valueOf(LeastConnection.MAX_SCALE)) <= 0;
        final long[] scales = LeastConnection.scales(weights);
        if (!fits)
        {
            assertThat(scales).as("weights %s", Arrays.toString(weights)).isNull();
            return;
        }
        assertThat(scales).as("weights %s", Arrays.toString(weights)).hasSize(weights.length);
        for (int i = 0; i < weights.length; i++)
        {
            assertThat(BigInteger.valueOf(scales[i]).multiply(BigInteger.valueOf(weights[i]))).isEqualTo(multiple);
        }
    }

    @Test
    void shouldScaleTheWeightsOperatorsGive()
    {
        assertThat(LeastConnection.scales(new int[] {1, 2, 3, 4})).containsExactly(12, 6, 4, 3);
        assertThat(LeastConnection.scales(new int[] {5, 5, 5})).containsExactly(1, 1, 1);
        assertThat(LeastConnection.scales(new int[] {10, 20, 50})).containsExactly(10, 5, 2);
        assertThat(LeastConnection.scales(new int[] {1, 1 << 16})).containsExactly(1L << 16, 1);
        assertThat(LeastConnection.scales(new int[] {1, (1 << 16) + 1})).isNull();
        assertThat(LeastConnection.scales(new int[] {65_537, 65_539})).isNull();
    }
}
