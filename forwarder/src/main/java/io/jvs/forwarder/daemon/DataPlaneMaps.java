package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.nativebindings.bpf.XdpVipFilter;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Keeps the kernel-side programs' address maps ({@link XdpVipFilter}: VIPs, real servers, the box's own
 * addresses, and the tries of destination and source prefixes, read by the XDP program, the AF_PACKET steal
 * program and the fanout program) in step with the conductor's snapshots. Conductor thread only; a null filter
 * (no program, e.g. in tests over memory ports) makes it keep the sets only.
 */
final class DataPlaneMaps
{
    private final XdpVipFilter filter;
    /** Whether jvs answers echo requests to the VIPs ({@code vip-arp on}), so the programs give them to it. */
    private final boolean vipEchoIsJvs;
    private final Set<IpAddress> vips = new HashSet<>();
    private final Set<IpAddress> servers = new HashSet<>();
    private final Set<IpAddress> locals = new HashSet<>();
    private final Set<IpPrefix> destinationPrefixes = new HashSet<>();
    private final Set<IpPrefix> sourcePrefixes = new HashSet<>();

    DataPlaneMaps(final XdpVipFilter filter)
    {
        this(filter, false);
    }

    /**
     * @param vipEchoIsJvs whether echo requests to the VIPs are jvs's to answer ({@code vip-arp on}: the box does
     *                     not hold the VIPs) rather than the kernel's.
     */
    DataPlaneMaps(final XdpVipFilter filter, final boolean vipEchoIsJvs)
    {
        this.filter = filter;
        this.vipEchoIsJvs = vipEchoIsJvs;
    }

    XdpVipFilter filter()
    {
        return filter;
    }

    /**
     * @param newDestinationPrefixes networks wider than a host whose destinations are steered as a VIP's.
     * @param newSourcePrefixes      networks wider than a host whose sources are steered as a real server's.
     * @param addOnly                true to add what is new and keep what went (before a snapshot is published),
     *                               false to remove what went as well (after).
     */
    void update(final Set<IpAddress> newVips, final Set<IpAddress> newServers, final Set<IpAddress> newLocals,
        final Set<IpPrefix> newDestinationPrefixes, final Set<IpPrefix> newSourcePrefixes, final boolean addOnly)
    {
        final boolean live = filter != null;
        sync(vips, Set.copyOf(newVips), addOnly, live ? a -> filter.addVip(inet(a), vipEchoIsJvs) : null,
            live ? a -> filter.removeVip(inet(a)) : null);
        sync(servers, Set.copyOf(newServers), addOnly, live ? a -> filter.addRealServer(inet(a)) : null,
            live ? a -> filter.removeRealServer(inet(a)) : null);
        sync(locals, Set.copyOf(newLocals), addOnly, live ? a -> filter.addLocalAddress(inet(a)) : null,
            live ? a -> filter.removeLocalAddress(inet(a)) : null);
        sync(destinationPrefixes, Set.copyOf(newDestinationPrefixes), addOnly,
            live ? p -> filter.addDestinationPrefix(inet(p.network()), p.length()) : null,
            live ? p -> filter.removeDestinationPrefix(inet(p.network()), p.length()) : null);
        sync(sourcePrefixes, Set.copyOf(newSourcePrefixes), addOnly,
            live ? p -> filter.addSourcePrefix(inet(p.network()), p.length()) : null,
            live ? p -> filter.removeSourcePrefix(inet(p.network()), p.length()) : null);
    }

    /** @return the source addresses (real servers, marked hosts) the programs know now. */
    Set<IpAddress> sources()
    {
        return Set.copyOf(servers);
    }

    /** @return the VIPs the programs know now. */
    Set<IpAddress> vips()
    {
        return Set.copyOf(vips);
    }

    /** @return the destination prefixes (marked networks) the programs know now. */
    Set<IpPrefix> destinationPrefixes()
    {
        return Set.copyOf(destinationPrefixes);
    }

    /** @return the source prefixes (marked networks) the programs know now. */
    Set<IpPrefix> sourcePrefixes()
    {
        return Set.copyOf(sourcePrefixes);
    }

    /** {@code add} and {@code remove} are null when there is no filter to tell. */
    private static <T> void sync(final Set<T> current, final Set<T> wanted, final boolean addOnly,
        final Consumer<T> add, final Consumer<T> remove)
    {
        for (final T entry : wanted)
        {
            if (current.add(entry) && add != null)
            {
                add.accept(entry);
            }
        }
        if (addOnly)
        {
            return;
        }
        for (final T entry : Set.copyOf(current))
        {
            if (!wanted.contains(entry))
            {
                current.remove(entry);
                if (remove != null)
                {
                    remove.accept(entry);
                }
            }
        }
    }

    private static InetAddress inet(final IpAddress address)
    {
        return address.toInetAddress();
    }
}
