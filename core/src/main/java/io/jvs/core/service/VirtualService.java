package io.jvs.core.service;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.sched.Scheduler;
import io.jvs.core.sched.SchedulerKind;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.sched.SchedulingContext;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A virtual service: its key, its settings, its ordered list of real servers and its scheduler.
 * <p>
 * The list is kept as the kernel keeps it: a new server goes to the head ({@code __ip_vs_update_dest}), so
 * adding A, B, C lists C, B, A, and every tie-break follows that order, so that decisions and listings match
 * ipvsadm's for the same commands. The control plane changes the list by
 * publishing a new array with one volatile store and then telling the scheduler; workers read the
 * array and call {@link #schedule} without locks. Control-plane methods must not be called
 * concurrently with each other.
 * <p>
 * A removed server that connections, persistence templates or a data-plane slot still count on is kept as
 * departed, and an add of the same address and port takes that object back ({@link #findDeparted},
 * {@link #readmit}) so that its connections carry on, as the kernel's destination trash does.
 */
public final class VirtualService
{
    private static final RealServer[] NO_SERVERS = {};

    private final ServiceKey key;
    /** Control plane only: read when a scheduler is made, changed by {@link #sysctls}. */
    private SchedulerSettings sharedSettings;
    private ServiceSettings settings;
    private volatile Scheduler scheduler;
    private volatile RealServer[] servers = NO_SERVERS;
    /**
     * Servers removed while something still counted on them, oldest first: the kernel's dest_trash, kept with the
     * service because ip_vs_trash_get_dest gives a destination back only to a service of the same key. Control
     * plane only; workers reach a departed server through its data-plane slot, never through this list.
     */
    private final List<RealServer> departed = new ArrayList<>();

    /**
     * Creates the service and initialises its scheduler.
     *
     * @param key            what identifies the service.
     * @param settings       scheduler, flags, persistence.
     * @param sharedSettings the worker count and sysctls shared by all services (their flags are ignored).
     * @throws IllegalArgumentException when the scheduler is unknown.
     */
    public VirtualService(final ServiceKey key, final ServiceSettings settings, final SchedulerSettings sharedSettings)
    {
        this.key = key;
        this.sharedSettings = sharedSettings;
        this.settings = settings;
        this.scheduler = newScheduler(settings);
    }

    /**
     * The sysctls shared by all services changed (control plane only): the scheduler takes them at once, and a
     * scheduler made later for this service is made with them.
     *
     * @param shared the new shared settings (the same worker count).
     */
    void sysctls(final SchedulerSettings shared)
    {
        this.sharedSettings = shared;
        scheduler.sysctls(shared);
    }

    private Scheduler newScheduler(final ServiceSettings settings)
    {
        final SchedulerKind kind = SchedulerKind.byName(settings.scheduler());
        if (kind == null)
        {
            throw new IllegalArgumentException("Scheduler not found: " + settings.scheduler());
        }
        final Scheduler created = kind.create(sharedSettings.withFlags(settings.flags()));
        try
        {
            created.init(this);
        }
        catch (final IllegalStateException ex)
        {
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
        return created;
    }

    public ServiceKey key()
    {
        return key;
    }

    public ServiceSettings settings()
    {
        return settings;
    }

    public Scheduler scheduler()
    {
        return scheduler;
    }

    /**
     * @return the real servers in list order (newest first). The array is shared: do not modify it.
     */
    public RealServer[] servers()
    {
        return servers;
    }

    /**
     * @param address a real server's address.
     * @param port    its port.
     * @return the server, or null when the service has none at that address and port.
     */
    public RealServer find(final IpAddress address, final int port)
    {
        for (final RealServer server : servers)
        {
            if (server.port() == port && server.address().equals(address))
            {
                return server;
            }
        }
        return null;
    }

    /**
     * Chooses the real server for a new connection.
     *
     * @param flow    the packet.
     * @param context the calling worker's context.
     * @return the server, or null when none can take the connection.
     */
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        return scheduler.schedule(flow, context);
    }

    /**
     * Changes scheduler, flags or persistence (ipvsadm -E). A new scheduler, or new flags, start from a
     * freshly initialised state; if the new scheduler refuses the current servers, nothing changes.
     *
     * @param newSettings the settings to apply.
     */
    public void edit(final ServiceSettings newSettings)
    {
        final boolean reschedule = !newSettings.scheduler().equals(settings.scheduler()) ||
            !newSettings.flags().equals(settings.flags());
        if (reschedule)
        {
            final Scheduler replacement = newScheduler(newSettings);
            final Scheduler previous = scheduler;
            scheduler = replacement;
            previous.done();
        }
        settings = newSettings;
    }

    /**
     * Adds a server at the head of the list (ipvsadm -a) and binds it to this service ({@link RealServer#service()}).
     *
     * @param server the new server, not in any service.
     * @throws IllegalArgumentException when the service already has a server at that address and port,
     *                                  or the scheduler cannot take one more server; the list is unchanged.
     */
    public void addServer(final RealServer server)
    {
        if (find(server.address(), server.port()) != null)
        {
            throw new IllegalArgumentException("Destination already exists");
        }
        final RealServer[] previous = servers;
        final RealServer[] next = new RealServer[previous.length + 1];
        next[0] = server;
        System.arraycopy(previous, 0, next, 1, previous.length);
        server.available(true);
        servers = next;
        try
        {
            scheduler.onServerAdded(server);
        }
        catch (final IllegalStateException ex)
        {
            servers = previous;
            server.available(false);
            scheduler.onServerRemoved(server);
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
        departed.remove(server);
        server.service(this);
    }

    /**
     * Finds a server removed from this service that something still counts on, as ip_vs_add_dest asks
     * ip_vs_trash_get_dest before it makes a new destination. Departed servers nothing counts on any more are
     * forgotten on the way, as ip_vs_trash_get_dest purges the unreferenced ones it passes.
     *
     * @param address the address being added.
     * @param port    its port.
     * @return the departed server to take back with {@link #readmit}, or null to add a new one.
     */
    RealServer findDeparted(final IpAddress address, final int port)
    {
        forgetIdleDeparted();
        for (final RealServer server : departed)
        {
            if (server.port() == port && server.address().equals(address))
            {
                return server;
            }
        }
        return null;
    }

    /**
     * The server an add of {@code address} and {@code port} would take back ({@link #findDeparted}), found without
     * forgetting any: for a caller that counts what a change would need before it makes it.
     *
     * @return the departed server something still counts on, or null when an add would make a new one.
     */
    public RealServer departedToTakeBack(final IpAddress address, final int port)
    {
        for (final RealServer server : departed)
        {
            if (server.port() == port && server.address().equals(address) && isCountedOn(server))
            {
                return server;
            }
        }
        return null;
    }

    /**
     * Takes a departed server back (ipvsadm -a of its address and port), as ip_vs_add_dest does with a destination
     * it found in the trash: __ip_vs_update_dest gives it the new weight, method and thresholds, as an edit would,
     * and lists it again at the head. The object itself comes back, so the connections and templates still bound to
     * it, and to its data-plane slot, are forwarded again and counted in its ActiveConn and InActConn. Its traffic
     * figures go on when it comes back to this service object, and start again from zero when it was a deleted
     * service's ({@link #adoptDeparted}): {@link RealServer#service()} changes, as {@code __ip_vs_update_dest}
     * zeroes the stats of a destination bound to another service object than before.
     *
     * @param server         a server {@link #findDeparted} returned.
     * @param forwardMethod  the new forwarding method.
     * @param weight         the new weight, 0..2147483647.
     * @param upperThreshold the new upper connection threshold (0 = none).
     * @param lowerThreshold the new lower connection threshold.
     * @throws IllegalArgumentException as {@link #addServer}, or for a weight or threshold out of range; the server
     *                                  then keeps its old settings and stays departed.
     */
    void readmit(
        final RealServer server,
        final ForwardMethod forwardMethod,
        final int weight,
        final int upperThreshold,
        final int lowerThreshold)
    {
        if (!departed.contains(server))
        {
            throw new IllegalArgumentException("not a departed server of " + key + ": " + server);
        }
        final RealServer.Settings previous = server.settings();
        try
        {
            server.weight(weight);
            server.thresholds(upperThreshold, lowerThreshold);
            server.forwardMethod(forwardMethod);
            addServer(server);
        }
        catch (final IllegalArgumentException ex)
        {
            server.settings(previous);
            throw ex;
        }
    }

    /**
     * @return the departed servers still kept, oldest first (a view: control plane only).
     */
    List<RealServer> departed()
    {
        return Collections.unmodifiableList(departed);
    }

    /**
     * Edits a server (ipvsadm -e) and tells the scheduler.
     *
     * @param server         a server of this service.
     * @param weight         the new weight, 0..2147483647.
     * @param upperThreshold the new upper connection threshold (0 = none).
     * @param lowerThreshold the new lower connection threshold.
     * @param forwardMethod  the new forwarding method.
     */
    public void editServer(
        final RealServer server,
        final int weight,
        final int upperThreshold,
        final int lowerThreshold,
        final ForwardMethod forwardMethod)
    {
        requireMember(server);
        server.weight(weight);
        server.thresholds(upperThreshold, lowerThreshold);
        server.forwardMethod(forwardMethod);
        scheduler.onServerUpdated(server);
    }

    /**
     * Sets a server's connection thresholds (ipvsadm -x and -y) without the scheduler hook, as when
     * the server is first configured.
     *
     * @param server         a server of this service.
     * @param upperThreshold the upper threshold, 0 for none.
     * @param lowerThreshold the lower threshold.
     */
    public void setThresholds(final RealServer server, final int upperThreshold, final int lowerThreshold)
    {
        requireMember(server);
        server.thresholds(upperThreshold, lowerThreshold);
    }

    /**
     * Removes a server (ipvsadm -d). It stops being AVAILABLE; connections already bound to it keep
     * their counts until they end, and while anything counts on it the service keeps it as departed, as
     * __ip_vs_del_dest moves a destination to the trash, for an add of the same address and port to take back.
     *
     * @param server a server of this service.
     */
    public void removeServer(final RealServer server)
    {
        final RealServer[] previous = servers;
        final int index = indexOf(previous, server);
        if (index < 0)
        {
            throw new IllegalArgumentException("No such destination");
        }
        final RealServer[] next = new RealServer[previous.length - 1];
        System.arraycopy(previous, 0, next, 0, index);
        System.arraycopy(previous, index + 1, next, index, previous.length - index - 1);
        server.available(false);
        servers = next;
        scheduler.onServerRemoved(server);
        forgetIdleDeparted();
        if (isCountedOn(server))
        {
            departed.add(server);
        }
    }

    /**
     * Removes every server and releases the scheduler (ipvsadm -D).
     *
     * @return the servers, listed or departed, that something still counts on: the kernel's __ip_vs_del_service
     *         moves its destinations to the trash, where ip_vs_trash_get_dest gives them back to a service created
     *         again under the same key ({@link ServiceTable} hands them to it, {@link #adoptDeparted}).
     */
    public List<RealServer> close()
    {
        final List<RealServer> kept = new ArrayList<>(departed);
        for (final RealServer server : servers)
        {
            server.available(false);
            if (isCountedOn(server))
            {
                kept.add(server);
            }
        }
        servers = NO_SERVERS;
        departed.clear();
        scheduler.done();
        kept.removeIf(server -> !isCountedOn(server));
        return kept;
    }

    /**
     * Takes over the servers a deleted service of this key left that something still counts on, as departed
     * servers of this one: an add of the same address and port takes each back ({@link #findDeparted}), so the
     * connections of a service deleted and created again ({@code ipvsadm -D} then {@code -A}, or {@code -C} then
     * {@code -R}) resume as the kernel's do.
     *
     * @param servers what {@link #close} of the deleted service returned.
     */
    void adoptDeparted(final List<RealServer> servers)
    {
        for (final RealServer server : servers)
        {
            if (isCountedOn(server) && !departed.contains(server))
            {
                departed.add(server);
            }
        }
    }

    /**
     * Whether a removed server may still have connections or templates that a later add should take back: counted
     * ones, or any while it holds a data-plane slot (until the data plane releases it, a worker on an older
     * snapshot may still bind one more).
     */
    private static boolean isCountedOn(final RealServer server)
    {
        return server.totalConnections() != 0 || server.persistentConnections() != 0 || server.forwardingSlot() != 0;
    }

    private void forgetIdleDeparted()
    {
        departed.removeIf(server -> !isCountedOn(server));
    }

    private void requireMember(final RealServer server)
    {
        if (indexOf(servers, server) < 0)
        {
            throw new IllegalArgumentException("No such destination");
        }
    }

    private static int indexOf(final RealServer[] list, final RealServer server)
    {
        for (int i = 0; i < list.length; i++)
        {
            if (list[i] == server)
            {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString()
    {
        return key + " " + settings.scheduler() + " " + Arrays.toString(servers);
    }
}
