package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The next hop towards a client, for replies and ICMP answers, compiled from a {@link Topology} into
 * primitive arrays: the client's neighbour entry; else the longest route holding it (its gateway's MAC,
 * or, on-link, none: the client must become a neighbour first); else the gateway of its family.
 * <p>
 * Neighbours are one open-addressing table of exact addresses. Routes are another, keyed by (family,
 * prefix length, masked network): a lookup masks the address once per distinct prefix length of its
 * family, longest first, and stops at the first hit. A routing table has few distinct lengths, so that
 * is a handful of probes; nothing is allocated.
 */
final class NeighbourIndex
{
    /** {@link #find}: no next hop is known. */
    static final long NONE = -1;

    private static final int EMPTY = -1;
    private static final long MAC_MASK = 0xFFFF_FFFF_FFFFL;

    private final long[] high;
    private final long[] low;
    private final int[] port;
    private final long[] mac;
    private final int mask;

    /** Route keys: family and length ({@code v6 ? 256 + length : length}), or EMPTY. */
    private final int[] routeTag;
    private final long[] routeHigh;
    private final long[] routeLow;
    /** The packed next hop of each route, or NONE for an on-link route. */
    private final long[] routeHop;
    private final int routeMask;
    private final int[] lengthsV4;
    private final long[] masksV4;
    private final int[] lengthsV6;
    private final long[] masksV6High;
    private final long[] masksV6Low;

    private final long gatewayV4;
    private final long gatewayV6;

    NeighbourIndex(final Topology topology)
    {
        final int size = tableSize(topology.neighbours().size());
        high = new long[size];
        low = new long[size];
        port = new int[size];
        mac = new long[size];
        Arrays.fill(port, EMPTY);
        mask = size - 1;
        for (final Map.Entry<IpAddress, Topology.Neighbour> entry : topology.neighbours().entrySet())
        {
            final IpAddress address = entry.getKey();
            int slot = hash(address.high(), address.low()) & mask;
            while (port[slot] != EMPTY)
            {
                slot = (slot + 1) & mask;
            }
            high[slot] = address.isV6() ? address.high() : ~0L;
            low[slot] = address.low();
            port[slot] = entry.getValue().port();
            mac[slot] = entry.getValue().mac();
        }

        final List<Topology.Route> routes = topology.distinctRoutes();
        final int routeSize = tableSize(routes.size());
        routeTag = new int[routeSize];
        routeHigh = new long[routeSize];
        routeLow = new long[routeSize];
        routeHop = new long[routeSize];
        Arrays.fill(routeTag, EMPTY);
        routeMask = routeSize - 1;
        final TreeSet<Integer> v4 = new TreeSet<>();
        final TreeSet<Integer> v6 = new TreeSet<>();
        for (final Topology.Route route : routes)
        {
            final IpPrefix prefix = route.prefix();
            final boolean isV6 = prefix.isV6();
            (isV6 ? v6 : v4).add(prefix.length());
            final int tag = tag(isV6, prefix.length());
            final long networkHigh = isV6 ? prefix.network().high() : 0;
            final long networkLow = prefix.network().low();
            int slot = routeHash(tag, networkHigh, networkLow) & routeMask;
            while (routeTag[slot] != EMPTY)
            {
                slot = (slot + 1) & routeMask;
            }
            routeTag[slot] = tag;
            routeHigh[slot] = networkHigh;
            routeLow[slot] = networkLow;
            routeHop[slot] = route.onLink() ? NONE : pack(route.port(), route.mac());
        }
        lengthsV4 = v4.descendingSet().stream().mapToInt(Integer::intValue).toArray();
        masksV4 = new long[lengthsV4.length];
        for (int k = 0; k < lengthsV4.length; k++)
        {
            masksV4[k] = lengthsV4[k] == 0 ? 0 : (0xFFFF_FFFFL << (32 - lengthsV4[k])) & 0xFFFF_FFFFL;
        }
        lengthsV6 = v6.descendingSet().stream().mapToInt(Integer::intValue).toArray();
        masksV6High = new long[lengthsV6.length];
        masksV6Low = new long[lengthsV6.length];
        for (int k = 0; k < lengthsV6.length; k++)
        {
            final int length = lengthsV6[k];
            masksV6High[k] = length >= 64 ? -1L : (length == 0 ? 0 : -1L << (64 - length));
            masksV6Low[k] = length <= 64 ? 0 : (length == 128 ? -1L : -1L << (128 - length));
        }

        gatewayV4 = topology.gatewayV4() == null ? NONE : pack(topology.gatewayV4().port(), topology.gatewayV4().mac());
        gatewayV6 = topology.gatewayV6() == null ? NONE : pack(topology.gatewayV6().port(), topology.gatewayV6().mac());
    }

    private static int tableSize(final int entries)
    {
        int size = 16;
        while (size < entries * 2)
        {
            size <<= 1;
        }
        return size;
    }

    private static int tag(final boolean v6, final int length)
    {
        return v6 ? 256 + length : length;
    }

    private static long pack(final int port, final long mac)
    {
        return (long)port << 48 | (mac & MAC_MASK);
    }

    /**
     * @return the port of a next hop {@link #find} returned.
     */
    static int port(final long hop)
    {
        return (int)(hop >>> 48);
    }

    /**
     * @return the MAC of a next hop {@link #find} returned.
     */
    static long mac(final long hop)
    {
        return hop & MAC_MASK;
    }

    private static int hash(final long high, final long low)
    {
        final long h = (low ^ Long.rotateLeft(high, 23)) * 0x9E37_79B9_7F4A_7C15L;
        return (int)(h ^ (h >>> 32));
    }

    private static int routeHash(final int tag, final long high, final long low)
    {
        final long h = (low ^ Long.rotateLeft(high, 23) ^ (long)tag << 40) * 0x9E37_79B9_7F4A_7C15L;
        return (int)(h ^ (h >>> 32));
    }

    /**
     * @param v6          the address's family.
     * @param addressHigh its first 64 bits (IPv6).
     * @param addressLow  its last 64 bits, or the IPv4 address in the low 32.
     * @return the next hop, packed (read it with {@link #port(long)} and {@link #mac(long)}), or {@link #NONE}.
     */
    long find(final boolean v6, final long addressHigh, final long addressLow)
    {
        final long keyHigh = v6 ? addressHigh : ~0L;
        int slot = hash(v6 ? addressHigh : 0, addressLow) & mask;
        while (port[slot] != EMPTY)
        {
            if (low[slot] == addressLow && high[slot] == keyHigh)
            {
                return pack(port[slot], mac[slot]);
            }
            slot = (slot + 1) & mask;
        }
        if (v6)
        {
            final int[] lengths = lengthsV6;
            for (int k = 0; k < lengths.length; k++)
            {
                final int route = route(256 + lengths[k], addressHigh & masksV6High[k], addressLow & masksV6Low[k]);
                if (route != EMPTY)
                {
                    return routeHop[route];
                }
            }
            return gatewayV6;
        }
        final int[] lengths = lengthsV4;
        for (int k = 0; k < lengths.length; k++)
        {
            final int route = route(lengths[k], 0, addressLow & masksV4[k]);
            if (route != EMPTY)
            {
                return routeHop[route];
            }
        }
        return gatewayV4;
    }

    private int route(final int tag, final long networkHigh, final long networkLow)
    {
        int slot = routeHash(tag, networkHigh, networkLow) & routeMask;
        while (routeTag[slot] != EMPTY)
        {
            if (routeTag[slot] == tag && routeLow[slot] == networkLow && routeHigh[slot] == networkHigh)
            {
                return slot;
            }
            slot = (slot + 1) & routeMask;
        }
        return EMPTY;
    }
}
