package io.jvs.core.pipeline;

import io.jvs.core.net.IpPrefix;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The MTUs of the routes to clients, for the packets jvs forwards towards them (NAT replies): the MTU of the longest
 * route holding the destination when that route has one of its own, as ip_forward holds a packet to the MTU of the
 * route the kernel found (ip_dst_mtu_maybe_forward honours a route's MTU metric). Empty, and never searched, while no
 * route has an MTU, the usual case; the routes are few, so a search is a scan from the longest prefix down.
 */
final class RouteMtus
{
    static final RouteMtus NONE = new RouteMtus(new IpPrefix[0], new int[0]);

    private final IpPrefix[] prefixes;
    private final int[] mtu;

    private RouteMtus(final IpPrefix[] prefixes, final int[] mtu)
    {
        this.prefixes = prefixes;
        this.mtu = mtu;
    }

    /**
     * @param routes a topology's routes, the preferred first for each prefix.
     * @return their MTUs, or {@link #NONE} when none has one.
     */
    static RouteMtus of(final List<Topology.Route> routes)
    {
        if (routes.stream().noneMatch(route -> route.mtu() > 0))
        {
            return NONE;
        }
        final List<Topology.Route> ordered = new ArrayList<>(routes);
        // Longest prefix first; a stable sort keeps the preferred of equal prefixes first.
        ordered.sort(Comparator.comparingInt((Topology.Route route) -> route.prefix().length()).reversed());
        final IpPrefix[] prefixes = new IpPrefix[ordered.size()];
        final int[] mtu = new int[ordered.size()];
        for (int i = 0; i < prefixes.length; i++)
        {
            prefixes[i] = ordered.get(i).prefix();
            mtu[i] = ordered.get(i).mtu();
        }
        return new RouteMtus(prefixes, mtu);
    }

    /**
     * @return the least MTU of a route, or {@link Integer#MAX_VALUE} when none has one.
     */
    int least()
    {
        int least = Integer.MAX_VALUE;
        for (final int each : mtu)
        {
            if (each > 0)
            {
                least = Math.min(least, each);
            }
        }
        return least;
    }

    /**
     * @return the MTU of the longest route holding the address, or 0 when that route has none (or no route holds
     *     it): the egress port's then applies.
     */
    int find(final boolean isV6, final long addressHigh, final long addressLow)
    {
        for (int i = 0; i < prefixes.length; i++)
        {
            if (prefixes[i].contains(isV6, addressHigh, addressLow))
            {
                return mtu[i];
            }
        }
        return 0;
    }
}
