package io.jvs.core.service;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.sched.SchedulerKind;
import io.jvs.core.sched.SchedulerSettings;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every virtual service of one configuration, with the operations ipvsadm performs on them.
 * <p>
 * Control plane only: an operation either completes or throws {@link IllegalArgumentException} with
 * ipvsadm's wording and leaves the table as it was.
 */
public final class ServiceTable
{
    private SchedulerSettings schedulerSettings;
    private final Map<ServiceKey, VirtualService> services = new LinkedHashMap<>();
    /**
     * The servers of deleted services that connections, templates or a data-plane slot still count on, by the
     * deleted service's key: the kernel's trash, which gives a destination back to a service created again under
     * the same key. Control plane only; forgotten once nothing counts on them.
     */
    private final Map<ServiceKey, List<RealServer>> deletedServicesServers = new LinkedHashMap<>();
    private final int[] timeoutsSeconds = {900, 120, 300};

    /**
     * @param schedulerSettings the worker count and sysctls every service's scheduler is created with.
     */
    public ServiceTable(final SchedulerSettings schedulerSettings)
    {
        this.schedulerSettings = schedulerSettings;
    }

    public SchedulerSettings schedulerSettings()
    {
        return schedulerSettings;
    }

    /**
     * Changes the sysctls every service's scheduler shares (lblc_expiration, lblcr_expiration): the services'
     * schedulers take them at once, as a write to {@code /proc/sys/net/ipv4/vs} does, and services added later are
     * made with them.
     *
     * @param next the new settings: the same worker count, no flags.
     * @throws IllegalArgumentException when the worker count differs (a restart's business).
     */
    public void schedulerSettings(final SchedulerSettings next)
    {
        if (next.workers() != schedulerSettings.workers())
        {
            throw new IllegalArgumentException("the worker count changes only with a restart: " +
                schedulerSettings.workers() + " -> " + next.workers());
        }
        schedulerSettings = next;
        for (final VirtualService service : services.values())
        {
            service.sysctls(next);
        }
    }

    /**
     * @return the services in the order they were added.
     */
    public Collection<VirtualService> services()
    {
        return Collections.unmodifiableCollection(services.values());
    }

    /**
     * @param key a service key.
     * @return the service, or null.
     */
    public VirtualService find(final ServiceKey key)
    {
        return services.get(key);
    }

    /**
     * Finds the service a packet belongs to as the kernel does: a firewall-mark service first when the
     * packet carries a mark, then the exact protocol, address and port, then a port-0 service on the
     * address (the catch-all of persistent services).
     *
     * @param firewallMark the packet's mark, 0 for none.
     * @param protocol     its protocol.
     * @param address      its destination address.
     * @param port         its destination port.
     * @return the service, or null.
     */
    public VirtualService lookup(final int firewallMark, final Protocol protocol, final IpAddress address, final int port)
    {
        if (firewallMark != 0)
        {
            final VirtualService marked = services.get(ServiceKey.ofFirewallMark(firewallMark, address.isV6()));
            if (marked != null)
            {
                return marked;
            }
        }
        final VirtualService exact = services.get(ServiceKey.of(protocol, address, port));
        if (exact != null)
        {
            return exact;
        }
        return services.get(ServiceKey.of(protocol, address, 0));
    }

    /**
     * ipvsadm -A.
     *
     * @param key      the new service.
     * @param settings its settings.
     */
    public void addService(final ServiceKey key, final ServiceSettings settings)
    {
        if (services.containsKey(key))
        {
            throw new IllegalArgumentException("Service already exists");
        }
        requireScheduler(settings);
        final VirtualService service = new VirtualService(key, settings, schedulerSettings);
        final List<RealServer> left = deletedServicesServers.remove(key);
        if (left != null)
        {
            service.adoptDeparted(left);
        }
        services.put(key, service);
    }

    /**
     * ipvsadm -E.
     *
     * @param key      an existing service.
     * @param settings its new settings.
     */
    public void editService(final ServiceKey key, final ServiceSettings settings)
    {
        requireScheduler(settings);
        requireService(key).edit(settings);
    }

    /**
     * ipvsadm -D.
     *
     * @param key an existing service.
     */
    public void deleteService(final ServiceKey key)
    {
        requireService(key);
        keepServersOf(key, services.remove(key).close());
    }

    /**
     * ipvsadm -C.
     */
    public void clear()
    {
        for (final VirtualService service : services.values())
        {
            keepServersOf(service.key(), service.close());
        }
        services.clear();
    }

    /** Keeps a deleted service's servers that something counts on, forgetting those of others that nothing does. */
    private void keepServersOf(final ServiceKey key, final List<RealServer> servers)
    {
        deletedServicesServers.values().forEach(kept ->
            kept.removeIf(server -> server.totalConnections() == 0 && server.persistentConnections() == 0 &&
                server.forwardingSlot() == 0));
        deletedServicesServers.values().removeIf(List::isEmpty);
        if (!servers.isEmpty())
        {
            deletedServicesServers.put(key, new ArrayList<>(servers));
        }
    }

    /**
     * ipvsadm -a. A server removed from the service at the same address and port that connections, templates or
     * a data-plane slot still count on is taken back with the new settings instead of a new one, as ip_vs_add_dest
     * takes a destination back from the trash, so its connections are forwarded and counted again.
     *
     * @param key            the service.
     * @param address        the real server's address.
     * @param port           its port.
     * @param forwardMethod  how packets reach it.
     * @param weight         0..2147483647.
     * @param upperThreshold the upper connection threshold, 0 for none.
     * @param lowerThreshold the lower one.
     * @return the server added: a new one, or the departed one taken back.
     */
    public RealServer addServer(
        final ServiceKey key,
        final IpAddress address,
        final int port,
        final ForwardMethod forwardMethod,
        final int weight,
        final int upperThreshold,
        final int lowerThreshold)
    {
        final VirtualService service = services.get(key);
        if (service == null)
        {
            throw new IllegalArgumentException("Service not defined");
        }
        requireFamily(key, address, forwardMethod);
        final RealServer departed = service.findDeparted(address, port);
        if (departed != null)
        {
            service.readmit(departed, forwardMethod, weight, upperThreshold, lowerThreshold);
            return departed;
        }
        final RealServer server = new RealServer(address, port, forwardMethod, weight, schedulerSettings.workers());
        if (service.find(address, port) != null)
        {
            throw new IllegalArgumentException("Destination already exists");
        }
        server.thresholds(upperThreshold, lowerThreshold);
        service.addServer(server);
        return server;
    }

    /**
     * ipvsadm -e.
     *
     * @param key            the service.
     * @param address        the server's address.
     * @param port           its port.
     * @param forwardMethod  the new method.
     * @param weight         the new weight.
     * @param upperThreshold the new upper threshold.
     * @param lowerThreshold the new lower threshold.
     */
    public void editServer(
        final ServiceKey key,
        final IpAddress address,
        final int port,
        final ForwardMethod forwardMethod,
        final int weight,
        final int upperThreshold,
        final int lowerThreshold)
    {
        final VirtualService service = requireServiceOfServer(key);
        requireFamily(key, address, forwardMethod);
        service.editServer(requireServer(service, address, port), weight, upperThreshold, lowerThreshold, forwardMethod);
    }

    /**
     * ipvsadm -d.
     *
     * @param key     the service.
     * @param address the server's address.
     * @param port    its port.
     */
    public void deleteServer(final ServiceKey key, final IpAddress address, final int port)
    {
        final VirtualService service = requireServiceOfServer(key);
        service.removeServer(requireServer(service, address, port));
    }

    /**
     * ipvsadm --set: the idle timeouts of established TCP, closing TCP and UDP connections.
     *
     * @param tcpSeconds    ESTABLISHED timeout, 0 keeps the current value.
     * @param tcpFinSeconds FIN_WAIT timeout, 0 keeps the current value.
     * @param udpSeconds    UDP timeout, 0 keeps the current value.
     */
    public void setTimeouts(final int tcpSeconds, final int tcpFinSeconds, final int udpSeconds)
    {
        final int[] values = {tcpSeconds, tcpFinSeconds, udpSeconds};
        for (int i = 0; i < values.length; i++)
        {
            if (values[i] != 0)
            {
                timeoutsSeconds[i] = values[i];
            }
        }
    }

    /**
     * @return {tcp, tcpfin, udp} timeouts in seconds, as {@code ipvsadm -L --timeout} shows them.
     */
    public int[] timeoutsSeconds()
    {
        return timeoutsSeconds.clone();
    }

    /**
     * @return every service's servers, for listings.
     */
    public List<RealServer> allServers()
    {
        final List<RealServer> all = new ArrayList<>();
        for (final VirtualService service : services.values())
        {
            Collections.addAll(all, service.servers());
        }
        return all;
    }

    private static void requireScheduler(final ServiceSettings settings)
    {
        if (SchedulerKind.byName(settings.scheduler()) == null)
        {
            throw new IllegalArgumentException("Scheduler not found: " + settings.scheduler());
        }
    }

    private VirtualService requireService(final ServiceKey key)
    {
        final VirtualService service = services.get(key);
        if (service == null)
        {
            throw new IllegalArgumentException("No such service");
        }
        return service;
    }

    /** ipvs_update_dest and ipvs_del_dest word ESRCH otherwise than the service commands. */
    private VirtualService requireServiceOfServer(final ServiceKey key)
    {
        final VirtualService service = services.get(key);
        if (service == null)
        {
            throw new IllegalArgumentException("Service not defined");
        }
        return service;
    }

    private static RealServer requireServer(final VirtualService service, final IpAddress address, final int port)
    {
        final RealServer server = service.find(address, port);
        if (server == null)
        {
            throw new IllegalArgumentException("No such destination");
        }
        return server;
    }

    private static void requireFamily(final ServiceKey key, final IpAddress address, final ForwardMethod method)
    {
        if (key.v6() != address.isV6() && method != ForwardMethod.TUN)
        {
            throw new IllegalArgumentException("Different address family is allowed only for tunneling servers");
        }
    }
}
