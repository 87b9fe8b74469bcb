package io.jvs.forwarder.control.netlink;

import io.jvs.core.net.IpAddress;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A backend that keeps IPVS's tables in memory and refuses what {@code ip_vs_ctl.c} refuses in the common cases:
 * EEXIST for a service or server that is there, ESRCH for a missing service, ENOENT for a missing server or an
 * unknown scheduler or persistence engine, ERANGE for a negative weight or a lower threshold above the upper, EINVAL
 * for an IPv6 prefix outside 1..128. Counters and connection lines are set by the test. Synchronised: sessions run
 * on their own threads.
 */
public final class InMemoryIpvsBackend implements IpvsNetlinkBackend
{
    /** The schedulers a 6.x kernel ships. */
    private static final Set<String> SCHEDULERS = Set.of("rr", "wrr", "lc", "wlc", "lblc", "lblcr", "dh", "sh",
        "sed", "nq", "fo", "ovf", "mh", "twos");
    private static final String CONNECTIONS_HEADER =
        "Pro FromIP   FPrt ToIP     TPrt DestIP   DPrt State       Expires PEName PEData\n";

    private final Map<IpvsServiceKey, Service> services = new LinkedHashMap<>();
    private final List<IpvsDaemon> daemons = new ArrayList<>();
    private final List<IpvsNetlinkRequest.Change> applied = new ArrayList<>();
    private IpvsTimeouts timeouts = new IpvsTimeouts(900, 120, 300);
    private String connections = "";

    private static final class Service
    {
        IpvsServiceOptions options;
        int flags;
        IpvsStats stats = IpvsStats.ZERO;
        final Map<DestKey, Dest> dests = new LinkedHashMap<>();
    }

    private record DestKey(IpAddress address, int port)
    {
    }

    private static final class Dest
    {
        IpvsDestination destination;
        int active;
        int inactive;
        IpvsStats stats = IpvsStats.ZERO;
    }

    @Override
    public synchronized int apply(final IpvsNetlinkRequest.Change change)
    {
        final int errno = change(change);
        if (errno == 0)
        {
            applied.add(change);
        }
        return errno;
    }

    private int change(final IpvsNetlinkRequest.Change change)
    {
        switch (change)
        {
            case IpvsNetlinkRequest.NewService add ->
            {
                if (services.containsKey(add.service()))
                {
                    return Netlink.EEXIST;
                }
                final int refused = checkOptions(add.service(), add.options());
                if (refused != 0)
                {
                    return refused;
                }
                final Service service = new Service();
                service.options = add.options();
                service.flags = add.options().mergeFlags(0) | IpvsNetlink.SVC_F_HASHED;
                services.put(add.service(), service);
                return 0;
            }
            case IpvsNetlinkRequest.SetService edit ->
            {
                final Service service = services.get(edit.service());
                if (service == null)
                {
                    return Netlink.ESRCH;
                }
                final int refused = checkOptions(edit.service(), edit.options());
                if (refused != 0)
                {
                    return refused;
                }
                service.options = edit.options();
                service.flags = edit.options().mergeFlags(service.flags) | IpvsNetlink.SVC_F_HASHED;
                return 0;
            }
            case IpvsNetlinkRequest.DelService delete ->
            {
                return services.remove(delete.service()) == null ? Netlink.ESRCH : 0;
            }
            case IpvsNetlinkRequest.NewDest add ->
            {
                final Service service = services.get(add.service());
                if (service == null)
                {
                    return Netlink.ESRCH;
                }
                final int refused = checkDest(add.destination());
                if (refused != 0)
                {
                    return refused;
                }
                final DestKey key = new DestKey(add.destination().address(), add.destination().port());
                if (service.dests.containsKey(key))
                {
                    return Netlink.EEXIST;
                }
                final Dest dest = new Dest();
                dest.destination = add.destination();
                service.dests.put(key, dest);
                return 0;
            }
            case IpvsNetlinkRequest.SetDest edit ->
            {
                final Service service = services.get(edit.service());
                if (service == null)
                {
                    return Netlink.ESRCH;
                }
                final int refused = checkDest(edit.destination());
                if (refused != 0)
                {
                    return refused;
                }
                final Dest dest = service.dests.get(new DestKey(edit.destination().address(),
                    edit.destination().port()));
                if (dest == null)
                {
                    return Netlink.ENOENT;
                }
                dest.destination = edit.destination();
                return 0;
            }
            case IpvsNetlinkRequest.DelDest delete ->
            {
                final Service service = services.get(delete.service());
                if (service == null)
                {
                    return Netlink.ESRCH;
                }
                return service.dests.remove(new DestKey(delete.destination().address(),
                    delete.destination().port())) == null ? Netlink.ENOENT : 0;
            }
            case IpvsNetlinkRequest.Zero zero ->
            {
                if (zero.service() != null && !services.containsKey(zero.service()))
                {
                    return Netlink.ESRCH;
                }
                services.forEach((key, service) ->
                {
                    if (zero.service() == null || zero.service().equals(key))
                    {
                        service.stats = IpvsStats.ZERO;
                        service.dests.values().forEach(dest -> dest.stats = IpvsStats.ZERO);
                    }
                });
                return 0;
            }
            case IpvsNetlinkRequest.Flush flush ->
            {
                services.clear();
                return 0;
            }
            case IpvsNetlinkRequest.SetConfig config ->
            {
                timeouts = config.applyTo(timeouts);
                return 0;
            }
            case IpvsNetlinkRequest.NewDaemon start ->
            {
                if (daemons.stream().anyMatch(daemon -> daemon.state() == start.daemon().state()))
                {
                    return Netlink.EEXIST;
                }
                daemons.add(start.daemon());
                return 0;
            }
            case IpvsNetlinkRequest.DelDaemon stop ->
            {
                return daemons.removeIf(daemon -> daemon.state() == stop.state()) ? 0 : Netlink.ESRCH;
            }
        }
    }

    private static int checkOptions(final IpvsServiceKey key, final IpvsServiceOptions options)
    {
        if (!SCHEDULERS.contains(options.scheduler()))
        {
            return Netlink.ENOENT;
        }
        if (options.persistence() != null && !options.persistence().equals("sip"))
        {
            return Netlink.ENOENT;
        }
        if (key.family() == Netlink.AF_INET6 && (options.netmask() < 1 || options.netmask() > 128))
        {
            return Netlink.EINVAL;
        }
        return 0;
    }

    private static int checkDest(final IpvsDestination destination)
    {
        if (destination.weight() < 0 || Integer.compareUnsigned(destination.lowerThreshold(),
            destination.upperThreshold()) > 0)
        {
            return Netlink.ERANGE;
        }
        return 0;
    }

    @Override
    public synchronized List<IpvsServiceEntry> listServices()
    {
        final List<IpvsServiceEntry> entries = new ArrayList<>();
        services.forEach((key, service) -> entries.add(entry(key, service)));
        return entries;
    }

    private static IpvsServiceEntry entry(final IpvsServiceKey key, final Service service)
    {
        return new IpvsServiceEntry(key, service.options.scheduler(), service.options.persistence(), service.flags,
            service.options.timeout(), service.options.netmask(), service.stats);
    }

    @Override
    public synchronized Optional<IpvsServiceEntry> service(final IpvsServiceKey key)
    {
        final Service service = services.get(key);
        return service == null ? Optional.empty() : Optional.of(entry(key, service));
    }

    @Override
    public synchronized List<IpvsDestEntry> listDests(final IpvsServiceKey key)
    {
        final Service service = services.get(key);
        if (service == null)
        {
            return List.of();
        }
        return service.dests.values().stream()
            .map(dest -> new IpvsDestEntry(dest.destination, dest.active, dest.inactive, 0, dest.stats)).toList();
    }

    @Override
    public IpvsInfo info()
    {
        return new IpvsInfo(IpvsNetlink.VERSION_CODE, 4096);
    }

    @Override
    public synchronized IpvsTimeouts timeouts()
    {
        return timeouts;
    }

    @Override
    public synchronized List<IpvsDaemon> daemons()
    {
        return List.copyOf(daemons);
    }

    @Override
    public synchronized String connectionsFile()
    {
        return CONNECTIONS_HEADER + connections;
    }

    // ---------------------------------------------------------------------------------------------------------
    // For the tests

    /** @return every change applied, in order. */
    public synchronized List<IpvsNetlinkRequest.Change> applied()
    {
        return List.copyOf(applied);
    }

    /** @return the service's current settings, or null. */
    public synchronized IpvsServiceOptions options(final IpvsServiceKey key)
    {
        final Service service = services.get(key);
        return service == null ? null : service.options;
    }

    /** @return the service's server, or null. */
    public synchronized IpvsDestination destination(final IpvsServiceKey key, final IpAddress address, final int port)
    {
        final Service service = services.get(key);
        final Dest dest = service == null ? null : service.dests.get(new DestKey(address, port));
        return dest == null ? null : dest.destination;
    }

    /** Sets a service's counters. */
    public synchronized void setStats(final IpvsServiceKey key, final IpvsStats stats)
    {
        services.get(key).stats = stats;
    }

    /** Sets a server's counters and connection counts. */
    public synchronized void setDestStats(final IpvsServiceKey key, final IpAddress address, final int port,
        final int active, final int inactive, final IpvsStats stats)
    {
        final Dest dest = services.get(key).dests.get(new DestKey(address, port));
        dest.active = active;
        dest.inactive = inactive;
        dest.stats = stats;
    }

    /** Sets the connection lines of {@code /proc/net/ip_vs_conn} (after its header). */
    public synchronized void setConnections(final String lines)
    {
        connections = lines;
    }

    /** @return how many services there are. */
    public synchronized int serviceCount()
    {
        return services.size();
    }
}
