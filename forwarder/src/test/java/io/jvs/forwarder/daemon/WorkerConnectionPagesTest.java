package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.conn.TcpStates;
import io.jvs.core.packet.L4Headers;
import io.jvs.forwarder.port.memory.FrameTemplates;
import io.jvs.forwarder.port.memory.MemoryPort;
import io.jvs.forwarder.port.memory.TransmitObserver;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ipvsadm -c}'s source: a running worker answers page requests from another thread between bursts, and the
 * pages together hold every live connection once, with its protocol, state, client, virtual address and server;
 * no page looks at more than its scan limit of slots, so a sparse table never holds the worker long; a stopped
 * worker does not answer and the lister is told so instead of waiting forever.
 */
class WorkerConnectionPagesTest
{
    private static final int CONNECTIONS = ConnectionPage.CAPACITY + 200;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);

    @Test
    void shouldListEveryConnectionOnceAcrossPagesWhileTheWorkerRuns() throws Exception
    {
        try (WorkerFarm farm = new WorkerFarm(1, 0);
             RunningWorker running = RunningWorker.withConnections(farm, CONNECTIONS))
        {
            final Worker worker = running.worker;
            final ConnectionPage page = new ConnectionPage();
            final Set<Integer> clientPorts = new HashSet<>();
            int pages = 0;
            page.v6 = false;
            page.from = 0;
            do
            {
                assertThat(worker.connections(page, () -> { }, TIMEOUT_NS)).as("answered").isTrue();
                pages++;
                for (int i = 0; i < page.count; i++)
                {
                    assertThat(clientPorts.add(page.clientPort[i])).as("listed once").isTrue();
                    assertThat(page.protocol[i]).isEqualTo(6);
                    assertThat(page.state[i]).isEqualTo(TcpStates.SYN_RECV);
                    assertThat(page.clientLow[i]).isEqualTo(Integer.toUnsignedLong(
                        WorkerFarm.client(page.clientPort[i] - 10_000)));
                    assertThat(page.virtualLow[i]).isEqualTo(Integer.toUnsignedLong(WorkerFarm.VIP));
                    assertThat(page.virtualPort[i]).isEqualTo(80);
                    assertThat(page.server[i]).isPositive();
                    assertThat(page.expiresInTicks[i]).isPositive()
                        .isLessThanOrEqualTo((int)(TimeUnit.SECONDS.toNanos(60) / ConnectionTable.TICK_NS));
                }
                if (page.next != ConnectionPage.END)
                {
                    assertThat(page.next - page.from).as("slots one page looked at")
                        .isPositive().isLessThanOrEqualTo(ConnectionPage.SCAN_LIMIT);
                }
                page.from = page.next;
            }
            while (page.next != ConnectionPage.END);
            assertThat(clientPorts).hasSize(CONNECTIONS);
            assertThat(pages).isGreaterThanOrEqualTo(2);

            page.v6 = true;
            page.from = 0;
            assertThat(worker.connections(page, () -> { }, TIMEOUT_NS)).isTrue();
            assertThat(page.count).as("no IPv6 connections").isZero();
            assertThat(page.next).isEqualTo(ConnectionPage.END);
        }
    }

    @Test
    void shouldAskForPagesOnlyAsTheListingReachesThem() throws Exception
    {
        try (WorkerFarm farm = new WorkerFarm(1, 0);
             RunningWorker running = RunningWorker.withConnections(farm, CONNECTIONS))
        {
            final Worker worker = running.worker;
            final ConnectionListing listing = new ConnectionListing(new Worker[] {worker}, w -> () -> { },
                farm.publisher::current, new Object());
            assertThat(worker.pagesAnswered()).as("nothing asked before the iteration").isZero();
            assertThat(listing.hasNext()).isTrue();
            assertThat(worker.pagesAnswered()).as("the first entry: one page").isOne();
            final Set<Integer> clientPorts = new HashSet<>();
            final java.util.List<Integer> askedAt = new java.util.ArrayList<>();
            long asked = 1;
            int taken = 0;
            while (listing.hasNext())
            {
                final ListedConnection entry = listing.next();
                assertThat(clientPorts.add(entry.clientPort())).as("listed once").isTrue();
                assertThat(entry.virtualPort()).isEqualTo(80);
                assertThat(entry.serverPort()).isEqualTo(WorkerFarm.SERVER_PORT);
                taken++;
                if (taken == 1)
                {
                    assertThat(worker.pagesAnswered()).as("the first entry taken: still one page").isOne();
                }
                else if (worker.pagesAnswered() > asked)
                {
                    asked = worker.pagesAnswered();
                    askedAt.add(taken);
                }
            }
            assertThat(clientPorts).hasSize(CONNECTIONS);
            assertThat(askedAt).as("the next IPv4 page asked for once the entries before it were taken: " +
                "the first page holds what a page's scan of slots found").hasSize(1);
            assertThat(askedAt.get(0)).isGreaterThan(1).isLessThanOrEqualTo(ConnectionPage.CAPACITY + 1);
            assertThat(worker.pagesAnswered()).as("every IPv4 page, then the IPv6 table's one")
                .isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void shouldTellTheListerWhenAStoppedWorkerDoesNotAnswer() throws Exception
    {
        try (WorkerFarm farm = new WorkerFarm(1, 0))
        {
            final MemoryPort[] ports = farm.ports(new FrameTemplates(1, farm.toVip(1, L4Headers.TCP_SYN)), null,
                TransmitObserver.NONE, TransmitObserver.NONE);
            final Worker worker = farm.worker(0, ports, new boolean[2], WorkerFarm::ownerByParity);
            worker.stop();
            final ConnectionPage page = new ConnectionPage();
            assertThat(worker.connections(page, () -> { }, TimeUnit.MILLISECONDS.toNanos(200))).isFalse();
            assertThat(worker.hasInbound()).as("a pending request keeps a worker from sleeping").isTrue();
        }
    }

    /** A worker of {@code farm} that opened {@code connections} TCP connections, running on a thread of its own. */
    private static final class RunningWorker implements AutoCloseable
    {
        final Worker worker;
        private final AtomicBoolean stop = new AtomicBoolean();
        private final Thread thread;

        private RunningWorker(final Worker worker)
        {
            this.worker = worker;
            thread = Thread.ofPlatform().start(() ->
            {
                while (!stop.get())
                {
                    if (worker.doWork() == 0)
                    {
                        Thread.onSpinWait();
                    }
                }
            });
        }

        static RunningWorker withConnections(final WorkerFarm farm, final int connections) throws InterruptedException
        {
            final byte[][] syns = new byte[connections][];
            for (int n = 0; n < connections; n++)
            {
                syns[n] = farm.toVip(n, L4Headers.TCP_SYN);
            }
            final MemoryPort[] ports = farm.ports(new FrameTemplates(connections, syns), null, TransmitObserver.NONE,
                TransmitObserver.NONE);
            final RunningWorker running = new RunningWorker(farm.worker(0, ports, new boolean[2],
                WorkerFarm::ownerByParity));
            final long start = System.nanoTime();
            while (running.worker.pipeline().connectionsV4().size() < connections &&
                System.nanoTime() - start < TIMEOUT_NS)
            {
                Thread.sleep(5);
            }
            return running;
        }

        @Override
        public void close() throws InterruptedException
        {
            stop.set(true);
            thread.join();
        }
    }
}
