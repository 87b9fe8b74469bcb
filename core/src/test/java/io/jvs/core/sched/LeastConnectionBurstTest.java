package io.jvs.core.sched;

import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * wlc for a worker that reports its count changes schedules a burst's later connections from the burst's first pass,
 * with the server it changed read again: for the worker's own changes, reported as the pipeline reports them, every
 * choice is the full pass's; a change it did not make (another worker's) reaches its choices at the next burst.
 */
class LeastConnectionBurstTest
{
    private static final int WORKERS = 2;
    private static final int THIS_WORKER = 0;
    private static final int OTHER_WORKER = 1;

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 200);
    }

    /**
     * Seeded runs of bursts: new connections bound (active or inactive) to the chosen server or, now and then, not
     * bound at all (a full table, one-packet scheduling), connections of any server activated, deactivated and
     * removed, upper thresholds that set and clear OVERLOAD, all by this worker and reported; small counts, so ties
     * are common. Fails when the server bound last is not read again, when a change to another server is not taken
     * as a reason for a full pass, or when OVERLOAD set by this worker's bind is missed.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldChooseAsTheFullPassForTheWorkersOwnReportedChanges(final long seed)
    {
        chooseAsTheFullPass("wlc", seed, Weights.ONE);
    }

    static Stream<Arguments> otherLoadsAndSeeds()
    {
        return Stream.of("lc", "sed", "nq")
            .flatMap(scheduler -> seeds().mapToObj(seed -> Arguments.of(scheduler, seed)));
    }

    /**
     * The same for lc, sed and nq, whose keys are their own loads (the overhead alone; active + 1 per weight; 0
     * without an active connection, else sed's), over weights from 1 to 4, against each one's pass over the servers.
     */
    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("otherLoadsAndSeeds")
    void shouldChooseAsTheSchedulersOwnPassForItsLoad(final String scheduler, final long seed)
    {
        chooseAsTheFullPass(scheduler, seed, Weights.ONE_TO_FOUR);
    }

    /** The same over servers of weights from 1 to 4 (their keys are overheads scaled to the weights). */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldChooseAsTheFullPassOverServersOfDifferentWeights(final long seed)
    {
        chooseAsTheFullPass("wlc", seed, Weights.ONE_TO_FOUR);
    }

    /**
     * The same over servers whose weights are 1 to 3 times one of two large primes: no key fits their scales, and
     * their tree compares overheads per weight.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldChooseAsTheFullPassOverServersOfWeightsTooLargeForKeys(final long seed)
    {
        chooseAsTheFullPass("wlc", seed, Weights.LARGE_PRIMES);
    }

    private enum Weights
    {
        ONE,
        ONE_TO_FOUR,
        LARGE_PRIMES
    }

    private static void chooseAsTheFullPass(final String scheduler, final long seed, final Weights weights)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int count = 1 + random.nextInt(20);
        final StringBuilder spec = new StringBuilder();
        for (int i = 0; i < count; i++)
        {
            // The first and last server of the large weights, when usable, one of each prime: no key then fits.
            final int prime = weights == Weights.LARGE_PRIMES && (i == 0 || (i != count - 1 && random.nextBoolean())) ?
                65_521 : 65_519;
            final int weight = switch (weights)
            {
                case ONE -> 1;
                case ONE_TO_FOUR -> 1 + random.nextInt(4);
                case LARGE_PRIMES -> prime * (1 + random.nextInt(3));
            };
            spec.append((char)('A' + i)).append(random.nextInt(8) == 0 ? 0 : weight).append(' ');
        }
        final SchedulingContext context = new SchedulingContext(THIS_WORKER, seed, true);
        final ServiceFixture fixture = ServiceFixture.of(scheduler, SchedulerFlags.NONE, spec.toString(), context,
            WORKERS);
        final RealServer[] servers = fixture.service.servers();
        final CountedListScheduler counting = (CountedListScheduler)fixture.service.scheduler();
        if (weights != Weights.LARGE_PRIMES)
        {
            assertThat(counting.counted.keyed).as("keys for %s", spec).isTrue();
        }
        for (final RealServer server : servers)
        {
            if (random.nextInt(4) == 0)
            {
                fixture.service.setThresholds(server, random.nextInt(2, 6), 0);
            }
        }
        final int[] active = new int[count];
        final int[] inactive = new int[count];
        long now = 0;
        for (int step = 0; step < 2_000; step++)
        {
            if (random.nextInt(40) == 0)
            {
                context.nowNs(now += 1_000);
            }
            final int what = random.nextInt(10);
            if (what < 6)
            {
                final RealServer chosen = fixture.pick();
                // wlc's reference is the kernel's pass over the servers; lc's, sed's and nq's their own.
                assertThat(chosen).as("%s seed %d step %d over %s", scheduler, seed, step, spec)
                    .isSameAs(scheduler.equals("wlc") ? LeastConnection.weighted(servers) :
                        counting.pass(servers, null));
                if (chosen != null && random.nextInt(8) != 0)
                {
                    final int at = indexOf(servers, chosen);
                    final boolean asInactive = random.nextBoolean();
                    chosen.bindConnection(THIS_WORKER, asInactive);
                    context.countsChanged(chosen.countersAddress());
                    (asInactive ? inactive : active)[at]++;
                }
                continue;
            }
            final int at = random.nextInt(count);
            final RealServer server = servers[at];
            if (what == 6 && inactive[at] > 0)
            {
                server.connectionActivated(THIS_WORKER);
                inactive[at]--;
                active[at]++;
            }
            else if (what == 7 && active[at] > 0)
            {
                server.connectionDeactivated(THIS_WORKER);
                active[at]--;
                inactive[at]++;
            }
            else if (what >= 8 && active[at] + inactive[at] > 0)
            {
                final boolean wasInactive = inactive[at] > 0 && (active[at] == 0 || random.nextBoolean());
                server.unbindConnection(THIS_WORKER, wasInactive);
                (wasInactive ? inactive : active)[at]--;
            }
            else
            {
                continue;
            }
            context.countsChanged(server.countersAddress());
        }
    }

    /**
     * Connections another worker binds during this worker's burst reach this worker's choices at its next burst,
     * as another CPU's counts reach the kernel's ip_vs_wlc_schedule a moment after it read them; an edit of the
     * list reaches them at once (the hook takes the hint again).
     */
    @Test
    void shouldSeeAnotherWorkersConnectionsFromTheNextBurst()
    {
        final SchedulingContext context = new SchedulingContext(THIS_WORKER, 7L, true);
        final ServiceFixture fixture = ServiceFixture.of("wlc", SchedulerFlags.NONE, "A1 B1 C1", context, WORKERS);
        final RealServer[] servers = fixture.service.servers();
        context.nowNs(1_000);
        assertThat(fixture.pick()).isSameAs(servers[0]);

        servers[0].bindConnection(OTHER_WORKER, false);
        servers[1].bindConnection(OTHER_WORKER, false);
        assertThat(fixture.pick()).as("within the burst").isSameAs(servers[0]);

        context.nowNs(2_000);
        assertThat(fixture.pick()).as("the next burst").isSameAs(servers[2]);

        fixture.service.editServer(servers[2], 0, 0, 0, servers[2].forwardMethod());
        assertThat(fixture.pick()).as("after C is quiesced, within the burst").isSameAs(servers[0]);
    }

    /** A worker that does not report its changes (a test, the simulator) gets a full pass for every connection. */
    @Test
    void shouldReadEveryServerForEachConnectionWhenTheWorkerDoesNotReport()
    {
        final SchedulingContext context = new SchedulingContext(THIS_WORKER, 7L);
        final ServiceFixture fixture = ServiceFixture.of("wlc", SchedulerFlags.NONE, "A1 B1 C1", context, WORKERS);
        final RealServer[] servers = fixture.service.servers();
        context.nowNs(1_000);
        assertThat(fixture.pick()).isSameAs(servers[0]);
        servers[0].bindConnection(OTHER_WORKER, false);
        assertThat(fixture.pick()).isSameAs(servers[1]);
        servers[1].bindConnection(THIS_WORKER, true);
        assertThat(fixture.pick()).isSameAs(servers[2]);
    }

    private static int indexOf(final RealServer[] servers, final RealServer server)
    {
        for (int i = 0; i < servers.length; i++)
        {
            if (servers[i] == server)
            {
                return i;
            }
        }
        throw new AssertionError(server + " is not in the list");
    }
}
