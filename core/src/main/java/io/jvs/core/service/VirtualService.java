package io.jvs.core.service;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.sched.Scheduler;
import io.jvs.core.sched.SchedulerKind;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.sched.SchedulingContext;

import java.util.Arrays;

/**
 * A virtual service: its key, its settings, its ordered list of real servers and its scheduler.
 * <p>
 * The list is kept as the kernel keeps it: a new server goes to the head, so adding A, B, C lists
 * C, B, A (D3), and every tie-break follows that order. The control plane changes the list by
 * publishing a new array with one volatile store and then telling the scheduler; workers read the
 * array and call {@link #schedule} without locks. Control-plane methods must not be called
 * concurrently with each other.
 */
public final class VirtualService
{
    private static final RealServer[] NO_SERVERS = {};

    private final ServiceKey key;
    private final SchedulerSettings sharedSettings;
    private ServiceSettings settings;
    private volatile Scheduler scheduler;
    private volatile RealServer[] servers = NO_SERVERS;

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
     * Adds a server at the head of the list (ipvsadm -a).
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
     * their counts until they end.
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
    }

    /**
     * Removes every server and releases the scheduler (ipvsadm -D).
     */
    public void close()
    {
        for (final RealServer server : servers)
        {
            server.available(false);
        }
        servers = NO_SERVERS;
        scheduler.done();
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
