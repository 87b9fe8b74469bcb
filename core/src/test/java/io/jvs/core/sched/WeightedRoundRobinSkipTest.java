package io.jvs.core.sched;

import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * wrr leaves out the passes that could find nothing (a heavy server overloaded, the threshold still
 * above every other weight) and picks exactly what ip_vs_wrr_schedule's pass-by-pass loop picks: seeded lists with
 * a heavy server among light ones, overload flags switched between picks, against that loop written out here.
 */
class WeightedRoundRobinSkipTest
{
    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 300);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    // A pass left out wrongly can lose the last pass, after which the scheduler never returns.
    @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void shouldPickWhatThePassByPassLoopPicks(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int count = 1 + random.nextInt(6);
        final int factor = 1 + random.nextInt(3);
        final StringBuilder spec = new StringBuilder();
        for (int i = 0; i < count; i++)
        {
            final int weight = random.nextInt(4) == 0 ? factor * random.nextInt(100, 21_000) :
                factor * random.nextInt(0, 6);
            spec.append((char)('A' + i)).append(weight).append(' ');
        }
        final ServiceFixture fixture = ServiceFixture.of("wrr", spec.toString());
        final RealServer[] servers = fixture.service.servers();
        final boolean[] overloaded = new boolean[count];
        final PassByPass reference = new PassByPass(servers);
        for (int pick = 0; pick < 80; pick++)
        {
            if (random.nextInt(3) == 0)
            {
                final int which = random.nextInt(count);
                overload(fixture, servers[which], !overloaded[which]);
                overloaded[which] = !overloaded[which];
            }
            final RealServer expected = reference.pick();
            assertThat(fixture.pick()).as("pick %d over %s, overloaded %s", pick, spec,
                java.util.Arrays.toString(overloaded)).isSameAs(expected);
        }
    }

    @Test
    void shouldLeaveOutOnlyThePassesAboveTheHeaviestUsableWeightAndTheStep()
    {
        assertThat(WeightedRoundRobinScheduler.skippablePasses(65535, 1, 1)).isEqualTo(65533);
        assertThat(WeightedRoundRobinScheduler.skippablePasses(10, 1, 8)).isEqualTo(1);
        assertThat(WeightedRoundRobinScheduler.skippablePasses(10, 1, 9)).isZero();
        assertThat(WeightedRoundRobinScheduler.skippablePasses(100, 10, 0)).isEqualTo(8);
        assertThat(WeightedRoundRobinScheduler.skippablePasses(20, 10, 0)).isZero();
    }

    private static void overload(final ServiceFixture fixture, final RealServer server, final boolean on)
    {
        if (on)
        {
            // An upper threshold of 1: the first connection sets OVERLOAD.
            fixture.service.setThresholds(server, 1, 0);
            server.bindConnection(true);
        }
        else
        {
            // Below three quarters of the upper threshold, OVERLOAD clears.
            server.unbindConnection(true);
            fixture.service.setThresholds(server, 0, 0);
        }
    }

    /** ip_vs_wrr_schedule as the kernel runs it, one pass per threshold, for a list that does not change. */
    private static final class PassByPass
    {
        private static final int HEAD = -1;
        private final RealServer[] list;
        private final int step;
        private final int startWeight;
        private int index = HEAD;
        private int cw;

        PassByPass(final RealServer[] list)
        {
            this.list = list;
            int gcd = 0;
            int max = 0;
            for (final RealServer server : list)
            {
                if (server.weight() > 0)
                {
                    gcd = gcd == 0 ? server.weight() : Weights.gcd(server.weight(), gcd);
                }
                max = Math.max(max, server.weight());
            }
            step = gcd == 0 ? 1 : gcd;
            startWeight = max - (step - 1);
            cw = startWeight;
        }

        RealServer pick()
        {
            if (startWeight == 0)
            {
                return null;
            }
            final int last = index;
            int stop = Integer.MIN_VALUE;
            boolean lastPass = false;
            boolean restarted = false;
            int from = last;
            while (true)
            {
                for (int i = from + 1; i < list.length; i++)
                {
                    if (list[i].weight() >= cw && !list[i].isOverloaded())
                    {
                        index = i;
                        return list[i];
                    }
                    if (i == stop)
                    {
                        index = i;
                        return null;
                    }
                }
                from = HEAD;
                cw -= step;
                if (cw <= 0)
                {
                    cw = startWeight;
                    if (lastPass || last == HEAD)
                    {
                        index = HEAD;
                        return null;
                    }
                    restarted = true;
                }
                lastPass = cw <= step;
                if (lastPass && restarted && last != HEAD)
                {
                    stop = last;
                }
            }
        }
    }
}
