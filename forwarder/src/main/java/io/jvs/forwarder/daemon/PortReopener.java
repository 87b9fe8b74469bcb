package io.jvs.forwarder.daemon;

import io.jvs.forwarder.port.Port;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.netlink.Link;

import java.util.ArrayList;
import java.util.List;

/**
 * Follows a device of the daemon's that is deleted and made again under its name (ifupdown re-creating a VLAN or a
 * bond, a container runtime re-creating a veth), as IPVS follows it by living in the kernel: the old device's
 * sockets were unbound from it (xsk_notifier, packet_notifier at NETDEV_UNREGISTER) and its programs' links went
 * with it, so when a link of the name appears with another ifindex, the interface's ports and programs are opened
 * on it, and every worker is handed its new port without any worker stopping.
 * <p>
 * Threads: the conductor alone calls {@link #linkChanged} (from {@link KernelTopology#poll}) and opens and closes
 * ports. It offers each worker its new port array ({@link Worker#offerPorts}, a release store), wakes it and waits
 * for the worker to say, with a release store of its own that the conductor reads with acquire
 * ({@link Worker#pollsOnly}), that it switched between two rounds and touches the old ports no more; only then are
 * the old ones closed (their rings unmapped). A worker that does not answer in time (stopping) leaves them open
 * until the daemon closes. The workers' connection tables, pipelines and counters are not touched. When the
 * ports cannot be opened (the new device is down, or of another kind), that is logged and tried again at the
 * link's next change.
 */
final class PortReopener implements AutoCloseable
{
    /** How long the conductor waits for every worker to let go of the replaced ports; a worker sleeps 100 ms. */
    static final long LET_GO_WAIT_NS = 2_000_000_000L;

    /**
     * An interface's ports opened again.
     *
     * @param ports    by worker, its new port.
     * @param opened   what closes the new ports and programs when the daemon stops (unless a later reopening
     *                 closed them first: closing twice is safe).
     * @param replaced what to close once no worker polls the old ports (the ports, and the programs' links the
     *                 kernel detached with the device).
     */
    record Reopened(Port[] ports, AutoCloseable opened, AutoCloseable replaced)
    {
    }

    /** Told, on the conductor's thread, that an interface's ports are open on a device made again. */
    interface ReopenedListener
    {
        void reopened(int port, Link link);
    }

    /** Opens an interface's ports (and attaches its programs) on the device that now has its name. */
    interface Opener
    {
        /**
         * @param port the interface's place among the config's interfaces.
         * @throws RuntimeException when it cannot: nothing was changed then.
         */
        Reopened reopen(int port);
    }

    private final String[] names;
    private final int[] boundIndexes;
    /** By port, the ifindex of the last device found down under its name (said once), or 0. */
    private final int[] downIndexes;
    private final Worker[] workers;
    private final Wakeup[] wakeups;
    private final Syscalls waker;
    private final Opener opener;
    private final ReopenedListener listener;
    /** By worker, the ports it was last offered. */
    private final Port[][] offered;
    /** Replaced ports a worker never let go of in time, and what {@link Opener} opened: closed with the daemon. */
    private final List<AutoCloseable> leftOpen = new ArrayList<>();
    /**
     * By port, what {@link Opener} last opened for it (in {@link #leftOpen}), or null while its ports are the start's:
     * once those ports are replaced and closed, the entry goes, so a device made again many times does not grow the
     * list.
     */
    private final AutoCloseable[] openedByPort;

    /**
     * @param names        the interfaces' names, by port.
     * @param boundIndexes by port, the ifindex its ports were opened on.
     * @param waker        the conductor's bindings, to write the workers' wake-ups.
     * @param listener     told once the workers poll the new ports (what else follows the device: the VIP
     *                     announcer).
     */
    PortReopener(final String[] names, final int[] boundIndexes, final Worker[] workers, final Wakeup[] wakeups,
        final Syscalls waker, final Opener opener, final ReopenedListener listener)
    {
        this.names = names.clone();
        this.boundIndexes = boundIndexes.clone();
        this.downIndexes = new int[names.length];
        this.openedByPort = new AutoCloseable[names.length];
        this.workers = workers;
        this.wakeups = wakeups;
        this.waker = waker;
        this.opener = opener;
        this.listener = listener;
        this.offered = new Port[workers.length][];
        for (int w = 0; w < workers.length; w++)
        {
            offered[w] = workers[w].ports();
        }
    }

    /** Told of a change of a link with the name of interface {@code port} (the conductor's thread). */
    void linkChanged(final int port, final Link link)
    {
        final int before = boundIndexes[port];
        if (link.index() == before)
        {
            return;
        }
        final String what = "interface " + names[port] + " was made again (ifindex " + before + " -> " +
            link.index() + ")";
        if (!link.up())
        {
            // As ifupdown and ip make a device: down, then addressed and brought up. An AF_XDP socket refuses a
            // device that is down, and traffic waits for it to be up anyway.
            if (downIndexes[port] != link.index())
            {
                downIndexes[port] = link.index();
                DaemonLog.info("interface " + names[port] + " appeared again as ifindex " + link.index() +
                    ", down: its ports are opened on it when it is up");
            }
            return;
        }
        final Reopened reopened;
        try
        {
            reopened = opener.reopen(port);
        }
        catch (final RuntimeException ex)
        {
            DaemonLog.warning(what + " but its ports cannot be opened on it: " + ex.getMessage() + " (tried " +
                "again at its next change)");
            return;
        }
        boundIndexes[port] = link.index();
        leftOpen.add(reopened.opened());
        for (int w = 0; w < workers.length; w++)
        {
            final Port[] next = offered[w].clone();
            next[port] = reopened.ports()[w];
            offered[w] = next;
            workers[w].offerPorts(next);
            wakeups[w].wake(waker);
        }
        if (awaitLetGo())
        {
            closeQuietly(reopened.replaced());
            // The ports just closed are the ones opened at the last re-creation, if any: nothing left to close.
            if (openedByPort[port] != null)
            {
                leftOpen.remove(openedByPort[port]);
            }
        }
        else
        {
            DaemonLog.warning(what + ": a worker did not take its new port within " + LET_GO_WAIT_NS / 1_000_000 +
                " ms: the old ones stay open until the daemon stops");
            leftOpen.add(reopened.replaced());
        }
        openedByPort[port] = reopened.opened();
        DaemonLog.info(what + ": its ports are open again");
        listener.reopened(port, link);
    }

    private boolean awaitLetGo()
    {
        final long deadline = System.nanoTime() + LET_GO_WAIT_NS;
        for (int w = 0; w < workers.length; w++)
        {
            while (!workers[w].pollsOnly(offered[w]))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    return false;
                }
                Thread.onSpinWait();
                Thread.yield();
            }
        }
        return true;
    }

    private static void closeQuietly(final AutoCloseable resource)
    {
        try
        {
            resource.close();
        }
        catch (final Exception ex)
        {
            DaemonLog.warning("closing the ports of a removed device: " + ex.getMessage());
        }
    }

    /** Closes, newest first, what it opened and any old ports a worker kept (each closes twice safely). */
    @Override
    public void close()
    {
        for (int i = leftOpen.size() - 1; i >= 0; i--)
        {
            closeQuietly(leftOpen.get(i));
        }
        leftOpen.clear();
    }
}
