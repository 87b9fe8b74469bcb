package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ports jvs sends from and the next hops it knows: what the forwarder fills in (statically, or as
 * it learns from ARP and neighbour discovery) and the pipeline reads to address frames.
 *
 * <p>
 * A host's next hop is found as the kernel's routing would find it ({@code fib_lookup}, then the
 * neighbour table): its own neighbour entry if it has one; else the longest route whose prefix holds it,
 * whose gateway's MAC it is, or, for an on-link route, nothing (the host itself must be a neighbour, and
 * is not yet known); else the gateway of its family; else nothing.
 *
 * @param ports      the ports, by index.
 * @param neighbours directly reachable hosts: their port and MAC.
 * @param gatewayV4  where IPv4 traffic for other hosts goes (clients behind a router), or null.
 * @param gatewayV6  the same for IPv6, or null.
 * @param routes     routes with their next hops resolved; of two routes for one prefix the first counts
 *                   (list them in the order of preference, the kernel's lowest metric first).
 */
public record Topology(
    List<Port> ports, Map<IpAddress, Neighbour> neighbours, Neighbour gatewayV4, Neighbour gatewayV6,
    List<Route> routes)
{
    /**
     * A port of the forwarder.
     *
     * @param index   its index in verdicts.
     * @param mac     its MAC address (the source MAC of frames it sends).
     * @param mtu     the largest IP packet it sends.
     * @param ipv4    its IPv4 address (the source of tunnels and ICMP errors), or null.
     * @param ipv6    its IPv6 address, or null.
     */
    public record Port(int index, long mac, int mtu, IpAddress ipv4, IpAddress ipv6)
    {
    }

    /**
     * Where a next hop is.
     *
     * @param port the port it is reached through.
     * @param mac  its MAC address.
     * @param mtu  the MTU of the route to the host, when the route has one of its own (the kernel's RTAX_MTU metric
     *             as its route lookup gives it); 0 for the port's.
     */
    public record Neighbour(int port, long mac, int mtu)
    {
        public Neighbour
        {
            if (mtu < 0)
            {
                throw new IllegalArgumentException("next hop on port " + port + ": MTU " + mtu + " is negative");
            }
        }

        /**
         * A next hop reached with the port's MTU.
         */
        public Neighbour(final int port, final long mac)
        {
            this(port, mac, 0);
        }
    }

    /**
     * A route whose next hop is resolved, as the daemon reads them from the kernel's routing table.
     *
     * @param prefix the destinations it covers.
     * @param port   the port it leaves through.
     * @param mac    the MAC of its gateway, or {@link #ON_LINK} for a prefix on the port's own segment,
     *               whose hosts are reached directly once they are neighbours.
     * @param mtu    its own MTU (the kernel's RTAX_MTU metric), or 0 for the port's.
     */
    public record Route(IpPrefix prefix, int port, long mac, int mtu)
    {
        /** {@link #mac} of an on-link route: the destination itself must be a neighbour. */
        public static final long ON_LINK = 0;

        /**
         * A route with the port's MTU.
         */
        public Route(final IpPrefix prefix, final int port, final long mac)
        {
            this(prefix, port, mac, 0);
        }

        public Route
        {
            if (mtu < 0)
            {
                throw new IllegalArgumentException("route " + prefix + ": MTU " + mtu + " is negative");
            }
            if (prefix == null)
            {
                throw new IllegalArgumentException("a route needs a prefix");
            }
            if (port < 0)
            {
                throw new IllegalArgumentException("route " + prefix + ": port " + port + " is negative");
            }
            if ((mac & ~0xFFFF_FFFF_FFFFL) != 0)
            {
                throw new IllegalArgumentException("route " + prefix + ": MAC " + Long.toHexString(mac) +
                    " has more than 48 bits");
            }
        }

        public boolean onLink()
        {
            return mac == ON_LINK;
        }
    }

    /**
     * A topology without routes: neighbours and gateways only.
     */
    public Topology(final List<Port> ports, final Map<IpAddress, Neighbour> neighbours, final Neighbour gatewayV4,
        final Neighbour gatewayV6)
    {
        this(ports, neighbours, gatewayV4, gatewayV6, List.of());
    }

    public Topology
    {
        ports = List.copyOf(ports);
        neighbours = Map.copyOf(neighbours);
        routes = List.copyOf(routes);
        for (int i = 0; i < ports.size(); i++)
        {
            if (ports.get(i).index() != i)
            {
                throw new IllegalArgumentException("port " + i + " has index " + ports.get(i).index());
            }
        }
        for (final Route route : routes)
        {
            if (route.port() >= ports.size())
            {
                throw new IllegalArgumentException("route " + route.prefix() + " leaves through port " +
                    route.port() + ", but there are " + ports.size() + " ports");
            }
        }
    }

    /**
     * @return a topology with one port and no neighbours (useful for tests).
     */
    public static Topology singlePort(final long mac, final int mtu, final IpAddress ipv4)
    {
        return new Topology(List.of(new Port(0, mac, mtu, ipv4, null)), Map.of(), null, null);
    }

    /**
     * Finds a host's next hop (on the control plane; workers use the snapshot's compiled index).
     *
     * @param address a host.
     * @return how to reach it: as a neighbour, else by the longest matching route (null if that route is
     *         on-link: the host is not a known neighbour), else through the gateway of its family, else null.
     */
    public Neighbour resolve(final IpAddress address)
    {
        final Neighbour direct = neighbours.get(address);
        if (direct != null)
        {
            return direct;
        }
        final Route route = route(address);
        if (route != null)
        {
            return route.onLink() ? null : new Neighbour(route.port(), route.mac(), route.mtu());
        }
        return address.isV6() ? gatewayV6 : gatewayV4;
    }

    /**
     * @param address a host.
     * @return the longest route whose prefix holds it (the first listed of equal prefixes), or null.
     */
    public Route route(final IpAddress address)
    {
        Route best = null;
        for (final Route route : routes)
        {
            final IpPrefix prefix = route.prefix();
            if (prefix.contains(address.isV6(), address.high(), address.low()) &&
                (best == null || prefix.length() > best.prefix().length()))
            {
                best = route;
            }
        }
        return best;
    }

    /**
     * @return the routes, one per prefix: the first listed of each.
     */
    List<Route> distinctRoutes()
    {
        final Set<IpPrefix> seen = new HashSet<>();
        final List<Route> distinct = new ArrayList<>();
        for (final Route route : routes)
        {
            if (seen.add(route.prefix()))
            {
                distinct.add(route);
            }
        }
        return distinct;
    }

    /**
     * @return a builder starting from this topology.
     */
    public Builder toBuilder()
    {
        final Builder builder = new Builder();
        builder.ports.putAll(java.util.stream.IntStream.range(0, ports.size()).boxed()
            .collect(java.util.stream.Collectors.toMap(i -> i, ports::get)));
        builder.neighbours.putAll(neighbours);
        builder.gatewayV4 = gatewayV4;
        builder.gatewayV6 = gatewayV6;
        builder.routes.addAll(routes);
        return builder;
    }

    /**
     * Assembles a topology.
     */
    public static final class Builder
    {
        private final Map<Integer, Port> ports = new LinkedHashMap<>();
        private final Map<IpAddress, Neighbour> neighbours = new LinkedHashMap<>();
        private final List<Route> routes = new ArrayList<>();
        private Neighbour gatewayV4;
        private Neighbour gatewayV6;

        public Builder port(final int index, final long mac, final int mtu, final IpAddress ipv4, final IpAddress ipv6)
        {
            ports.put(index, new Port(index, mac, mtu, ipv4, ipv6));
            return this;
        }

        public Builder neighbour(final IpAddress address, final int port, final long mac)
        {
            return neighbour(address, port, mac, 0);
        }

        /**
         * @param mtu the MTU of the route to the neighbour when it has one of its own, else 0 (the port's).
         */
        public Builder neighbour(final IpAddress address, final int port, final long mac, final int mtu)
        {
            neighbours.put(address, new Neighbour(port, mac, mtu));
            return this;
        }

        public Builder gatewayV4(final int port, final long mac)
        {
            gatewayV4 = new Neighbour(port, mac);
            return this;
        }

        public Builder gatewayV6(final int port, final long mac)
        {
            gatewayV6 = new Neighbour(port, mac);
            return this;
        }

        /**
         * Adds a route after those added before (an earlier route for the same prefix is preferred).
         *
         * @param prefix the destinations.
         * @param port   the port.
         * @param mac    the gateway's MAC, or {@link Route#ON_LINK}.
         */
        public Builder route(final IpPrefix prefix, final int port, final long mac)
        {
            return route(prefix, port, mac, 0);
        }

        /**
         * As {@link #route(IpPrefix, int, long)}, for a route with an MTU of its own.
         *
         * @param mtu the route's MTU, or 0 for the port's.
         */
        public Builder route(final IpPrefix prefix, final int port, final long mac, final int mtu)
        {
            routes.add(new Route(prefix, port, mac, mtu));
            return this;
        }

        public Topology build()
        {
            final Port[] ordered = new Port[ports.size()];
            for (final Port port : ports.values())
            {
                if (port.index() < 0 || port.index() >= ordered.length)
                {
                    throw new IllegalArgumentException("ports must be numbered 0.." + (ordered.length - 1));
                }
                ordered[port.index()] = port;
            }
            return new Topology(List.of(ordered), neighbours, gatewayV4, gatewayV6, routes);
        }
    }
}
