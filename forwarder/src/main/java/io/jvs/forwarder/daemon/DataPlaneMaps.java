package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.nativebindings.bpf.XdpVipFilter;

import java.net.InetAddress;
import java.util.HashSet;
import java.util.Set;

/**
 * Keeps the kernel-side programs' address maps ({@link XdpVipFilter}: VIPs, real servers, the box's own
 * addresses, read by the XDP program, the AF_PACKET steal program and the fanout program) in step with the
 * conductor's snapshots. Conductor thread only; a null filter (no program, e.g. in tests over memory ports)
 * makes it keep the sets only.
 */
final class DataPlaneMaps
{
    private final XdpVipFilter filter;
    private final Set<IpAddress> vips = new HashSet<>();
    private final Set<IpAddress> servers = new HashSet<>();
    private final Set<IpAddress> locals = new HashSet<>();

    DataPlaneMaps(final XdpVipFilter filter)
    {
        this.filter = filter;
    }

    XdpVipFilter filter()
    {
        return filter;
    }

    /**
     * @param addOnly true to add what is new and keep what went (before a snapshot is published), false to
     *                remove what went as well (after).
     */
    void update(final Set<IpAddress> newVips, final Set<IpAddress> newServers, final Set<IpAddress> newLocals,
        final boolean addOnly)
    {
        sync(vips, newVips, addOnly, Kind.VIP);
        sync(servers, newServers, addOnly, Kind.REAL_SERVER);
        sync(locals, newLocals, addOnly, Kind.LOCAL);
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

    private enum Kind
    {
        VIP, REAL_SERVER, LOCAL
    }

    private void sync(final Set<IpAddress> current, final Set<IpAddress> wanted, final boolean addOnly,
        final Kind kind)
    {
        for (final IpAddress address : wanted)
        {
            if (current.add(address) && filter != null)
            {
                switch (kind)
                {
                    case VIP -> filter.addVip(inet(address));
                    case REAL_SERVER -> filter.addRealServer(inet(address));
                    case LOCAL -> filter.addLocalAddress(inet(address));
                    default -> throw new IllegalStateException();
                }
            }
        }
        if (addOnly)
        {
            return;
        }
        for (final IpAddress address : Set.copyOf(current))
        {
            if (!wanted.contains(address))
            {
                current.remove(address);
                if (filter != null)
                {
                    switch (kind)
                    {
                        case VIP -> filter.removeVip(inet(address));
                        case REAL_SERVER -> filter.removeRealServer(inet(address));
                        case LOCAL -> filter.removeLocalAddress(inet(address));
                        default -> throw new IllegalStateException();
                    }
                }
            }
        }
    }

    private static InetAddress inet(final IpAddress address)
    {
        return address.toInetAddress();
    }
}
