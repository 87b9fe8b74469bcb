package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.net.IpAddress;
import io.jvs.core.service.RealServer;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The workers' connection entries as an iteration reaches them ({@code ipvsadm -L -c}, {@code /proc/net/ip_vs_conn}):
 * a {@link ConnectionPage} at a time, asked of a worker between its bursts (no worker stops), each entry's real
 * server named by the snapshot current when its page came; entries whose server has left the snapshot are left out.
 * So a listing of millions of entries holds one page and the entry being written, not the table's worth of objects
 * (about 2 KB an entry once formatted), which would otherwise stay live until the whole answer was made. Listings
 * may interleave: each page is asked for under the lock, as a worker answers one request at a time. Worker by
 * worker, IPv4 before IPv6; {@code hasNext} throws IllegalStateException when a worker does not answer within a
 * second (it is stopping).
 */
final class ConnectionListing implements Iterator<ListedConnection>
{
    private static final long ANSWER_WAIT_NS = TimeUnit.SECONDS.toNanos(1);

    private final Worker[] workers;
    private final IntFunction<Runnable> wake;
    private final Supplier<DataPlane> snapshot;
    private final Object lock;
    private final ConnectionPage page = new ConnectionPage();
    private int worker;
    private boolean v6;
    /** Whether {@link #page} holds a page of the current worker's and family's table. */
    private boolean paging;
    private int index;
    private DataPlane plane;
    private ListedConnection next;

    /**
     * @param workers  the workers whose tables are listed.
     * @param wake     by worker, what wakes it from its poll(2).
     * @param snapshot the snapshot that names the servers now.
     * @param lock     held while a page is asked for: one request at a time per worker.
     */
    ConnectionListing(final Worker[] workers, final IntFunction<Runnable> wake, final Supplier<DataPlane> snapshot,
        final Object lock)
    {
        this.workers = workers;
        this.wake = wake;
        this.snapshot = snapshot;
        this.lock = lock;
    }

    @Override
    public boolean hasNext()
    {
        while (next == null)
        {
            if (worker >= workers.length)
            {
                return false;
            }
            if (!paging)
            {
                page.v6 = v6;
                page.from = 0;
                fetch();
            }
            else if (index < page.count)
            {
                next = entry(index++);
            }
            else if (page.next != ConnectionPage.END)
            {
                page.from = page.next;
                fetch();
            }
            else
            {
                paging = false;
                worker += v6 ? 1 : 0;
                v6 = !v6;
            }
        }
        return true;
    }

    @Override
    public ListedConnection next()
    {
        if (!hasNext())
        {
            throw new NoSuchElementException();
        }
        final ListedConnection entry = next;
        next = null;
        return entry;
    }

    private void fetch()
    {
        synchronized (lock)
        {
            if (!workers[worker].connections(page, wake.apply(worker), ANSWER_WAIT_NS))
            {
                throw new IllegalStateException("worker " + worker + " did not answer within a second");
            }
        }
        plane = snapshot.get();
        paging = true;
        index = 0;
    }

    /** @return entry {@code i} of the page, or null when its server has left the snapshot. */
    private ListedConnection entry(final int i)
    {
        final RealServer server = page.server[i] < plane.serverSlots() ? plane.server(page.server[i]) : null;
        if (server == null)
        {
            return null;
        }
        // The port the entry forwards to, as the kernel's cp->dport holds it: a server of port 0 (a -f or port-0
        // service's), or any connection a persistent -f or port-0 service made, takes the packet's own
        // (ip_vs_schedule, ip_vs_sched_persist).
        final int serverPort = plane.serverPort(page.server[i], page.portKey[i]);
        return new ListedConnection(page.protocol[i], page.state[i],
            page.expiresInTicks[i] * ConnectionTable.TICK_NS / 1_000_000L,
            address(page.v6, page.clientHigh[i], page.clientLow[i]), page.clientPort[i],
            address(page.v6, page.virtualHigh[i], page.virtualLow[i]), page.virtualPort[i], server.address(),
            serverPort);
    }

    private static IpAddress address(final boolean v6, final long high, final long low)
    {
        return v6 ? IpAddress.ofV6(high, low) : IpAddress.ofV4((int)low);
    }
}
