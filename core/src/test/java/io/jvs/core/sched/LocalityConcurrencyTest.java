package io.jvs.core.sched;

import io.jvs.core.concurrent.SharedKeyTable;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two workers schedule through one lblc or lblcr table while its entries churn: afterwards every
 * destination is LIVE at most once, the entry count matches the LIVE ways, and every entry names
 * servers of the service (a replica set never twice the same).
 */
class LocalityConcurrencyTest
{
    private static final int DESTINATIONS = 3_000;
    private static final int ROUNDS = 200_000;

    @ParameterizedTest(name = "{0} seed {1}")
    @CsvSource({"lblc, 1", "lblc, 2", "lblcr, 1", "lblcr, 2"})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldStayConsistentUnderTwoWorkers(final String scheduler, final long seed) throws Exception
    {
        // 64 buckets: a small table, so ways are reused and refused all the time.
        final SchedulerFlags flags = SchedulerFlags.parse("table-size=64", scheduler);
        final ServiceFixture fixture = ServiceFixture.of(
            scheduler, flags, "A1 B2 C3 D1 E2 F3", new SchedulingContext(0, 1L), 2);
        final AbstractLocalityScheduler locality = (AbstractLocalityScheduler)fixture.service.scheduler();
        final IpAddress[] destinations = new IpAddress[DESTINATIONS];
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < DESTINATIONS; i++)
        {
            destinations[i] = i % 2 == 0 ? IpAddress.ofV4(random.nextInt()) :
                IpAddress.ofV6(random.nextLong(), random.nextLong());
        }
        final Set<RealServer> members = new HashSet<>(List.of(fixture.service.servers()));
        final CyclicBarrier start = new CyclicBarrier(2);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread[] workers = new Thread[2];
        for (int w = 0; w < 2; w++)
        {
            final int worker = w;
            workers[w] = new Thread(() ->
            {
                try
                {
                    final SchedulingContext context = new SchedulingContext(worker, worker + 1L);
                    final SplittableRandom choices = new SplittableRandom(seed * 7 + worker);
                    final FlowTuple flow = new FlowTuple();
                    start.await();
                    for (int round = 0; round < ROUNDS; round++)
                    {
                        final IpAddress destination = destinations[choices.nextInt(DESTINATIONS)];
                        final IpAddress source = destination.isV6() ? IpAddress.ofV6(1, 1) : IpAddress.ofV4(1);
                        flow.set(Protocol.TCP, source, 1000, destination, 80);
                        context.nowNs(round * 1_000_000L);
                        final RealServer server = fixture.service.schedule(flow, context);
                        assertThat(members).contains(server);
                        server.bindConnection(false);
                        if (choices.nextInt(3) == 0)
                        {
                            server.unbindConnection(false);
                        }
                        if (worker == 1 && round % 997 == 0)
                        {
                            // Churn: retire whatever has been idle for a while, as the collector would.
                            for (int bucket = 0; bucket < locality.table().buckets(); bucket++)
                            {
                                locality.table().expireBucket(bucket, round * 1_000_000L, 50_000_000L);
                            }
                        }
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
            });
            workers[w].start();
        }
        for (final Thread worker : workers)
        {
            worker.join();
        }
        assertThat(failure.get()).isNull();

        final SharedKeyTable table = locality.table();
        assertThat(table.entries()).isEqualTo(table.countLive()).isPositive();
        final int bits = Integer.numberOfTrailingZeros(table.buckets());
        for (final IpAddress destination : destinations)
        {
            final long fingerprint = SharedKeyTable.fingerprint(destination.isV6(), destination.high(), destination.low());
            final int bucket = AddressHash.MULTIPLICATIVE.bucket(destination.fold(), bits);
            assertThat(table.liveCopies(fingerprint, bucket)).as("copies of %s", destination).isLessThanOrEqualTo(1);
            final int way = table.lookup(fingerprint, bucket);
            if (way == SharedKeyTable.NOT_FOUND)
            {
                continue;
            }
            final long payload = table.payload(way);
            if ("lblc".equals(scheduler))
            {
                assertThat(members).contains(locality.slots.get((int)payload));
            }
            else
            {
                final Set<Integer> seen = new HashSet<>();
                assertThat(ReplicaSet.size(payload)).isBetween(1, ReplicaSet.CAPACITY);
                for (int lane = 0; lane < ReplicaSet.size(payload); lane++)
                {
                    final int member = ReplicaSet.member(payload, lane);
                    assertThat(seen.add(member)).as("member %d twice", member).isTrue();
                    assertThat(members).contains(locality.slots.get(member));
                }
            }
        }
    }
}
