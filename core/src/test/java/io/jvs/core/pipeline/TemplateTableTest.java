package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The persistence templates every worker shares: answers returned, not kept; each worker sweeping its
 * own share; counts that stay exact when workers race for the same networks.
 */
class TemplateTableTest
{
    private static final long SECOND_NS = 1_000_000_000L;

    private static RealServer[] servers(final int count)
    {
        final RealServer[] servers = new RealServer[count + 1];
        for (int slot = 1; slot <= count; slot++)
        {
            servers[slot] = new RealServer(IpAddress.ofV4(0xC0A8_0100 + slot), 80, ForwardMethod.NAT, 1);
        }
        return servers;
    }

    private static long persistent(final RealServer[] servers)
    {
        long total = 0;
        for (int slot = 1; slot < servers.length; slot++)
        {
            total += servers[slot].persistentConnections();
        }
        return total;
    }

    @Test
    void shouldReturnTheWayAndServerOfATemplate()
    {
        final TemplateTable templates = new TemplateTable(16);
        final RealServer[] servers = servers(3);
        assertThat(templates.find(0, 0, 0x0A00_0000L, 0)).isEqualTo(TemplateTable.NOT_FOUND);
        final int way = templates.place(0, 0, 0x0A00_0000L, 2, servers, 0, 10 * SECOND_NS);
        assertThat(templates.attach(way, 0, 10 * SECOND_NS)).isTrue();
        final long found = templates.find(0, 0, 0x0A00_0000L, SECOND_NS);
        assertThat(TemplateTable.way(found)).isEqualTo(way);
        assertThat(TemplateTable.server(found)).isEqualTo(2);
        assertThat(templates.controlled(way)).isEqualTo(1);
        assertThat(servers[2].persistentConnections()).isEqualTo(1);
        assertThat(templates.find(1, 0, 0x0A00_0000L, SECOND_NS)).as("another service")
            .isEqualTo(TemplateTable.NOT_FOUND);

        // Taken over by another server: counted there, uncounted here, its connection still counted.
        assertThat(templates.place(0, 0, 0x0A00_0000L, 3, servers, SECOND_NS, 10 * SECOND_NS)).isEqualTo(way);
        assertThat(servers[2].persistentConnections()).isZero();
        assertThat(servers[3].persistentConnections()).isEqualTo(1);
        assertThat(templates.controlled(way)).isEqualTo(1);
        templates.detach(way);
        assertThat(templates.find(0, 0, 0x0A00_0000L, 11 * SECOND_NS)).as("expired").isEqualTo(TemplateTable.NOT_FOUND);
        assertThat(templates.sweepAll(11 * SECOND_NS, servers)).isEqualTo(1);
        assertThat(templates.size()).isZero();
        assertThat(persistent(servers)).isZero();
    }

    @Test
    void shouldFollowOnlyUsableServers()
    {
        assertThat(TemplateTable.usable(true, false, true)).isTrue();
        assertThat(TemplateTable.usable(true, true, false)).as("quiesced, followed by default").isTrue();
        assertThat(TemplateTable.usable(true, true, true)).isFalse();
        assertThat(TemplateTable.usable(false, false, false)).as("left its service").isFalse();
    }

    @Test
    void shouldSplitTheSweepBetweenWorkers()
    {
        final TemplateTable templates = new TemplateTable(64);
        final RealServer[] servers = servers(1);
        for (int network = 0; network < 500; network++)
        {
            templates.place(0, 0, network << 8, 1, servers, 0, SECOND_NS);
        }
        assertThat(templates.size()).isEqualTo(500);
        final TemplateTable.Sweeper first = templates.sweeper(0, 3);
        final TemplateTable.Sweeper second = templates.sweeper(1, 3);
        final TemplateTable.Sweeper third = templates.sweeper(2, 3);
        assertThat(first.buckets() + second.buckets() + third.buckets()).isEqualTo(64);

        final int byFirst = first.sweep(2 * SECOND_NS, first.buckets(), servers);
        assertThat(byFirst).isPositive().isLessThan(500);
        assertThat(first.sweep(2 * SECOND_NS, first.buckets(), servers)).as("its share is done").isZero();
        final int bySecond = second.sweep(2 * SECOND_NS, second.buckets(), servers);
        assertThat(bySecond).isPositive();
        assertThat(third.sweep(2 * SECOND_NS, third.buckets(), servers)).isEqualTo(500 - byFirst - bySecond);
        assertThat(templates.size()).isZero();
        assertThat(servers[1].persistentConnections()).isZero();
    }

    @Test
    void shouldSweepABudgetAtATimeFromWhereItStopped()
    {
        final TemplateTable templates = new TemplateTable(16);
        final RealServer[] servers = servers(1);
        for (int network = 0; network < 200; network++)
        {
            templates.place(0, 0, network << 8, 1, servers, 0, SECOND_NS);
        }
        final TemplateTable.Sweeper sweeper = templates.sweeper(0, 1);
        int retired = 0;
        for (int round = 0; round < 4; round++)
        {
            retired += sweeper.sweep(2 * SECOND_NS, 4, servers);
        }
        assertThat(retired).isEqualTo(200);
    }

    /**
     * Two workers create, follow, take over, count and sweep templates of the same few networks at once;
     * afterwards every template is counted on exactly one server, and nothing once all have ended.
     */
    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14})
    void shouldKeepCountsExactWhenWorkersRace(final long seed) throws Exception
    {
        final TemplateTable templates = new TemplateTable(4);
        final RealServer[] servers = servers(4);
        final int workers = 2;
        final CyclicBarrier start = new CyclicBarrier(workers);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < workers; w++)
        {
            final int worker = w;
            final Thread thread = new Thread(() ->
            {
                try
                {
                    final SplittableRandom random = new SplittableRandom(seed * 31 + worker);
                    final TemplateTable.Sweeper sweeper = templates.sweeper(worker, workers);
                    final List<Integer> attached = new ArrayList<>();
                    start.await();
                    long now = 0;
                    for (int op = 0; op < 200_000; op++)
                    {
                        now += random.nextInt(1000);
                        final long network = random.nextInt(48);
                        final long found = templates.find(0, 0, network, now);
                        int way = TemplateTable.way(found);
                        if (found == TemplateTable.NOT_FOUND || random.nextInt(8) == 0)
                        {
                            way = templates.place(0, 0, network, 1 + random.nextInt(4), servers, now, 50_000);
                        }
                        if (way != TemplateTable.NOT_FOUND && templates.attach(way, now, 50_000))
                        {
                            attached.add(way);
                        }
                        if (attached.size() > 20 || (!attached.isEmpty() && random.nextBoolean()))
                        {
                            templates.detach(attached.remove(random.nextInt(attached.size())));
                        }
                        // Sweeping all the time, so retiring races with creating and taking over.
                        sweeper.sweep(now, 1, servers);
                    }
                    for (final int way : attached)
                    {
                        templates.detach(way);
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertThat(failure.get()).isNull();
        assertThat(persistent(servers)).as("each template counted once").isEqualTo(templates.size());
        templates.sweepAll(Long.MAX_VALUE / 2, servers);
        assertThat(templates.size()).isZero();
        assertThat(persistent(servers)).isZero();
    }
}
