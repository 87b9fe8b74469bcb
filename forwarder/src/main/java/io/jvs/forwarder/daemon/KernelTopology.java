package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.pipeline.Topology;
import io.jvs.forwarder.config.InterfaceConfig;
import io.jvs.forwarder.config.JvsConfig;
import io.jvs.forwarder.config.PortKind;
import io.jvs.forwarder.port.xdp.AfXdpSettings;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.netlink.Address;
import io.jvs.nativebindings.netlink.Link;
import io.jvs.nativebindings.netlink.Neighbour;
import io.jvs.nativebindings.netlink.NetlinkEvent;
import io.jvs.nativebindings.netlink.NetlinkSubscription;
import io.jvs.nativebindings.netlink.Route;
import io.jvs.nativebindings.netlink.RouteNetlink;
import io.jvs.nativebindings.netlink.Rtnetlink;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The box's ports and next hops as the kernel keeps them, followed over rtnetlink, as IPVS follows them by
 * living in the kernel: a real server is reached by the route the kernel picks for its address
 * ({@code RTM_GETROUTE}, policy routing included) and the MAC the kernel resolved for that route's next hop; a
 * client's reply goes by the longest matching route of the main table. The config's {@code neighbour} and
 * {@code gateway} statements take precedence.
 * <p>
 * Neighbour entries are used as the kernel's forwarding uses them: REACHABLE, STALE, DELAY and PROBE carry a
 * MAC; INCOMPLETE, FAILED and deleted ones do not, and their next hops get no frames (dropped as
 * {@code no-neighbour}, counted) while the kernel is asked to resolve them ({@code NTF_USE}). jvs's traffic
 * never confirms an entry to the kernel, so the next hops in use are marked used once a second, which makes the
 * kernel probe a STALE entry instead of trusting it forever. Every change the kernel announces is taken in on
 * the conductor's next duty cycle; a lost notification (the socket overflowed) makes it dump everything again.
 */
final class KernelTopology implements TopologySource
{
    /** Next hops in use are marked used this often; a missing one is asked for at most this often. */
    static final long REFRESH_NS = 1_000_000_000L;
    /** How long a path MTU learnt from a router's error is kept: net.ipv4.route.mtu_expires, ten minutes. */
    static final long PATH_MTU_EXPIRES_NS = 600_000_000_000L;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;

    private JvsConfig config;
    private final RouteNetlink netlink;
    private final NetlinkSubscription subscription;
    private final Map<Integer, Link> links = new HashMap<>();
    private final List<Address> addresses = new ArrayList<>();
    private final List<Route> routes = new ArrayList<>();
    private final Map<NeighbourKey, Neighbour> neighbours = new HashMap<>();
    private final Map<IpAddress, Route> serverRoutes = new HashMap<>();
    /** Path MTUs learnt towards servers ({@link #learnPathMtu}). */
    private final Map<IpAddress, PathMtu> pathMtus = new HashMap<>();
    /**
     * What changed that the snapshots carry (a path MTU learnt, forgotten or expired; an interface's new MTU or MAC),
     * logged by {@link #published} once a snapshot that carries it is in the workers' hands: a line read as "in
     * effect" was otherwise written while the snapshot was still being made, or up to a rebuild period before.
     */
    private final List<String> news = new ArrayList<>();
    private final Map<NeighbourKey, Long> asked = new HashMap<>();
    private final Set<NeighbourKey> inUse = new LinkedHashSet<>();
    private long lastRefreshNs;
    private boolean resync;
    private PortMacListener portMacListener = (port, mac) ->
    {
    };
    private PortLinkListener portLinkListener = (port, link) ->
    {
    };
    /** Links with an interface's name that changed in this poll, told to {@link #portLinkListener} after it. */
    private final List<Link> changedPortLinks = new ArrayList<>();

    /** Told of the new MAC of one of the daemon's interfaces, on the conductor's thread. */
    interface PortMacListener
    {
        void macChanged(int port, long mac);
    }

    /**
     * Told of every link the kernel announces (or a dump lists) under one of the daemon's interfaces' names, on the
     * conductor's thread, after the poll has taken in every change: a device made again has another ifindex.
     */
    interface PortLinkListener
    {
        void linkChanged(int port, Link link);
    }

    /** @param listener told of each change of a link with an interface's name (its ports may have to follow). */
    void onPortLink(final PortLinkListener listener)
    {
        portLinkListener = listener;
    }

    /** @param listener told when one of the daemon's interfaces takes a new MAC (its TAP must follow). */
    void onPortMac(final PortMacListener listener)
    {
        portMacListener = listener;
    }

    private record NeighbourKey(int index, InetAddress address)
    {
    }

    /** The kernel's headroom before a frame in an AF_XDP chunk (XDP_PACKET_HEADROOM). */
    private static final int XDP_PACKET_HEADROOM = 256;

    KernelTopology(final JvsConfig config, final RouteNetlink netlink, final NetlinkSubscription subscription)
    {
        this.config = config;
        this.netlink = netlink;
        this.subscription = subscription;
    }

    /**
     * Subscribes first, then dumps, so nothing that changes in between is missed.
     */
    static KernelTopology open(final Syscalls syscalls, final JvsConfig config)
    {
        final NetlinkSubscription subscription = RouteNetlink.subscribe(Syscalls.create());
        final RouteNetlink netlink;
        try
        {
            netlink = RouteNetlink.open(Syscalls.create());
        }
        catch (final RuntimeException ex)
        {
            subscription.close();
            throw ex;
        }
        final KernelTopology topology = new KernelTopology(config, netlink, subscription);
        try
        {
            topology.dump();
            for (final InterfaceConfig face : config.interfaces())
            {
                final Link link = topology.link(face.name());
                if (link == null)
                {
                    throw new IllegalStateException("interface " + face.name() + " is not in the kernel's links");
                }
                warnOfFramesLongerThanChunks(face, link.mtu());
            }
            return topology;
        }
        catch (final RuntimeException ex)
        {
            topology.close();
            throw ex;
        }
    }

    private void dump()
    {
        links.clear();
        for (final Link link : netlink.links())
        {
            links.put(link.index(), link);
        }
        addresses.clear();
        addresses.addAll(netlink.addresses());
        routes.clear();
        routes.addAll(netlink.routes(AF_INET));
        routes.addAll(netlink.routes(AF_INET6));
        neighbours.clear();
        for (final Neighbour neighbour : netlink.neighbours(AF_INET))
        {
            neighbours.put(new NeighbourKey(neighbour.index(), neighbour.address()), neighbour);
        }
        for (final Neighbour neighbour : netlink.neighbours(AF_INET6))
        {
            neighbours.put(new NeighbourKey(neighbour.index(), neighbour.address()), neighbour);
        }
        serverRoutes.clear();
    }

    private Link link(final String name)
    {
        for (final Link link : links.values())
        {
            if (link.name().equals(name))
            {
                return link;
            }
        }
        return null;
    }

    /** @return the port index of an interface index, or -1 when it is not one of jvs's interfaces. */
    private int portOf(final int index)
    {
        final Link link = links.get(index);
        return link == null ? -1 : config.interfaceIndex(link.name());
    }

    @Override
    public Topology topology(final Collection<IpAddress> servers)
    {
        final Topology.Builder builder = new Topology.Builder();
        final List<InterfaceConfig> faces = config.interfaces();
        for (int p = 0; p < faces.size(); p++)
        {
            final Link link = link(faces.get(p).name());
            final long mac = link == null || !link.hasMac() ? 0 : link.mac();
            // Every packet is held to its egress port's MTU: one a message left out must not stop them all.
            final int mtu = link == null || link.mtu() <= 0 ? 1500 : link.mtu();
            builder.port(p, mac, mtu, firstAddress(link, false), firstAddress(link, true));
        }
        inUse.clear();
        // Every resolved neighbour on a jvs interface (on-link clients, gateways), but a real server: it is reached
        // by the route the kernel picks for it, which may go through a gateway even when the server is on-link.
        final java.util.Set<IpAddress> serverSet = new java.util.HashSet<>(servers);
        for (final Neighbour neighbour : neighbours.values())
        {
            final int port = portOf(neighbour.index());
            final IpAddress address = IpAddress.of(neighbour.address());
            if (port >= 0 && neighbour.usable() && !serverSet.contains(address))
            {
                builder.neighbour(address, port, neighbour.mac());
            }
        }
        for (final IpAddress server : servers)
        {
            if (config.neighbours().containsKey(server))
            {
                continue;
            }
            serverNextHop(builder, server);
        }
        final boolean configGateway = config.gatewayV4() != null || config.gatewayV6() != null;
        // Of the routes of one prefix the kernel takes the one of least metric (fib_table_lookup and fib6 walk a
        // prefix's routes in priority order), and the topology the first listed: the list keeps the dump's order and
        // appends what is announced later, so a route added with a lower metric must be put before the others.
        final List<Route> preferredFirst = new ArrayList<>(routes);
        preferredFirst.sort((a, b) -> Integer.compareUnsigned(a.priority(), b.priority()));
        for (final Route route : preferredFirst)
        {
            clientRoute(builder, route, configGateway);
        }
        config.neighbours().forEach((address, hop) -> builder.neighbour(address, hop.port(), hop.mac(),
            serverMtu(address, null, 0)));
        if (config.gatewayV4() != null)
        {
            builder.gatewayV4(config.gatewayV4().port(), config.gatewayV4().mac());
        }
        if (config.gatewayV6() != null)
        {
            builder.gatewayV6(config.gatewayV6().port(), config.gatewayV6().mac());
        }
        return builder.build();
    }

    /** The kernel's route to a server, looked up once until a route changes. */
    private Route serverRoute(final IpAddress server)
    {
        Route route = serverRoutes.get(server);
        if (route == null && !serverRoutes.containsKey(server))
        {
            route = routeTo(server.toInetAddress());
            serverRoutes.put(server, route);
        }
        return route;
    }

    private void serverNextHop(final Topology.Builder builder, final IpAddress server)
    {
        final Route route = serverRoute(server);
        if (route == null || route.outputIndex() == 0)
        {
            return;
        }
        final int port = portOf(route.outputIndex());
        if (port < 0)
        {
            return;
        }
        final InetAddress hop = route.gateway() != null ? route.gateway() : server.toInetAddress();
        final NeighbourKey key = new NeighbourKey(route.outputIndex(), hop);
        inUse.add(key);
        final Neighbour neighbour = neighbours.get(key);
        if (neighbour != null && neighbour.usable())
        {
            builder.neighbour(server, port, neighbour.mac(), serverMtu(server, route, route.mtu()));
        }
    }

    /** A path MTU learnt towards a server, with the route it was learnt through. */
    private static final class PathMtu
    {
        final int mtu;
        final Route route;
        long expiresNs;

        PathMtu(final int mtu, final Route route, final long expiresNs)
        {
            this.mtu = mtu;
            this.route = route;
            this.expiresNs = expiresNs;
        }
    }

    /**
     * The MTU towards a server: its route's (0 for its interface's), or a smaller path MTU learnt through that same
     * route. One learnt through a route since replaced or removed is forgotten, as the kernel's route exceptions go
     * with the nexthop they hang from.
     *
     * @param route the route to the server now, null for a {@code neighbour} statement's.
     */
    private int serverMtu(final IpAddress server, final Route route, final int routeMtu)
    {
        final PathMtu learnt = pathMtus.get(server);
        if (learnt == null)
        {
            return routeMtu;
        }
        if (!java.util.Objects.equals(learnt.route, route))
        {
            pathMtus.remove(server);
            news.add("path mtu to " + server + ": forgotten (the route to it changed)");
            return routeMtu;
        }
        return routeMtu == 0 ? learnt.mtu : Math.min(routeMtu, learnt.mtu);
    }

    /**
     * Keeps a path MTU a worker learnt towards a server, as __ip_rt_update_pmtu keeps a route exception: a smaller one
     * replaces it, the same one extends its life, a larger one is ignored while it lives.
     */
    @Override
    public boolean learnPathMtu(final IpAddress server, final int mtu, final long nowNs)
    {
        final PathMtu learnt = pathMtus.get(server);
        if (learnt != null && learnt.mtu <= mtu)
        {
            if (learnt.mtu == mtu)
            {
                learnt.expiresNs = nowNs + PATH_MTU_EXPIRES_NS;
            }
            return false;
        }
        final Route route = config.neighbours().containsKey(server) ? null : serverRoute(server);
        pathMtus.put(server, new PathMtu(mtu, route, nowNs + PATH_MTU_EXPIRES_NS));
        news.add("path mtu to " + server + ": " + mtu + " (from a router's error about a tunnelled packet), " +
            "for " + PATH_MTU_EXPIRES_NS / 1_000_000_000L + " s");
        return true;
    }

    @Override
    public void published()
    {
        for (final String line : news)
        {
            DaemonLog.info(line);
        }
        news.clear();
    }

    /** Forgets the path MTUs whose time is up. */
    boolean expirePathMtus(final long nowNs)
    {
        final boolean[] expired = {false};
        pathMtus.entrySet().removeIf(entry ->
        {
            if (nowNs - entry.getValue().expiresNs < 0)
            {
                return false;
            }
            news.add("path mtu to " + entry.getKey() + ": expired");
            expired[0] = true;
            return true;
        });
        return expired[0];
    }

    private Route routeTo(final InetAddress address)
    {
        try
        {
            return netlink.routeTo(address);
        }
        catch (final NativeCallException ex)
        {
            DaemonLog.warning("route lookup of " + address.getHostAddress() + ": " + ex.getMessage());
            return null;
        }
    }

    /** A main-table unicast route out of a jvs interface, for replies towards clients. */
    private void clientRoute(final Topology.Builder builder, final Route route, final boolean configGateway)
    {
        if (route.table() != Rtnetlink.RT_TABLE_MAIN || route.type() != Rtnetlink.RTN_UNICAST ||
            (configGateway && route.prefixLength() == 0))
        {
            return;
        }
        final int index = route.multipath() ? route.nextHops().get(0).outputIndex() : route.outputIndex();
        final InetAddress gateway = route.multipath() ? route.nextHops().get(0).gateway() : route.gateway();
        final int port = portOf(index);
        if (port < 0)
        {
            return;
        }
        final IpPrefix prefix = new IpPrefix(IpAddress.of(route.destination()), route.prefixLength());
        if (gateway == null)
        {
            builder.route(prefix, port, 0, route.mtu());
            return;
        }
        final NeighbourKey key = new NeighbourKey(index, gateway);
        inUse.add(key);
        final Neighbour neighbour = neighbours.get(key);
        // An unresolved gateway: as on-link the client has no next hop (it is no neighbour), and the miss it
        // records makes resolve() ask for the gateway.
        builder.route(prefix, port, neighbour != null && neighbour.usable() ? neighbour.mac() : Topology.Route.ON_LINK,
            route.mtu());
    }

    private IpAddress firstAddress(final Link link, final boolean v6)
    {
        if (link == null)
        {
            return null;
        }
        for (final Address address : addresses)
        {
            if (address.index() == link.index() && (address.address() instanceof Inet6Address) == v6 &&
                !address.address().isLinkLocalAddress() && !address.tentative())
            {
                return IpAddress.of(address.address());
            }
        }
        return null;
    }

    @Override
    public int[] descriptors()
    {
        return new int[] {subscription.fd()};
    }

    @Override
    public boolean poll(final long nowNs)
    {
        final boolean[] changed = {false};
        subscription.poll(event -> changed[0] |= apply(event));
        if (resync)
        {
            resync = false;
            dump();
            changed[0] = true;
            // The announcements lost may have been a device's removal and return.
            for (final InterfaceConfig face : config.interfaces())
            {
                final Link link = link(face.name());
                if (link != null)
                {
                    changedPortLinks.add(link);
                }
            }
        }
        for (final Link link : changedPortLinks)
        {
            final int port = config.interfaceIndex(link.name());
            if (port >= 0)
            {
                portLinkListener.linkChanged(port, link);
            }
        }
        changedPortLinks.clear();
        if (nowNs - lastRefreshNs >= REFRESH_NS)
        {
            lastRefreshNs = nowNs;
            refresh(nowNs);
            changed[0] |= !pathMtus.isEmpty() && expirePathMtus(nowNs);
        }
        return changed[0];
    }

    boolean apply(final NetlinkEvent event)
    {
        switch (event)
        {
            case NetlinkEvent.LinkChanged changed ->
            {
                final Link before = links.put(changed.link().index(), changed.link());
                // A link set down loses its IPv4 routes without RTM_DELROUTE: read the tables again.
                if (before != null && before.up() != changed.link().up())
                {
                    resync = true;
                }
                logPortChange(before, changed.link());
                if (config.interfaceIndex(changed.link().name()) >= 0)
                {
                    changedPortLinks.add(changed.link());
                }
            }
            case NetlinkEvent.LinkRemoved removed ->
            {
                links.remove(removed.link().index());
                final int port = config.interfaceIndex(removed.link().name());
                if (port >= 0)
                {
                    // The port's sockets and programs were bound to this ifindex (xsk_unbind_dev, packet_notifier's
                    // NETDEV_UNREGISTER): they receive and send nothing more, until a device is made again under
                    // the name and the ports are opened on it (PortReopener).
                    DaemonLog.error("interface " + removed.link().name() + " (port " + port + ") was removed: " +
                        "nothing is received or sent on it until a device of that name is made again");
                }
            }
            case NetlinkEvent.AddressAdded added ->
            {
                addresses.removeIf(a -> sameAddress(a, added.address()));
                addresses.add(added.address());
            }
            case NetlinkEvent.AddressRemoved removed -> addresses.removeIf(a -> sameAddress(a, removed.address()));
            case NetlinkEvent.RouteAdded added ->
            {
                if (added.replaced())
                {
                    routes.removeIf(r -> sameRouteKey(r, added.route()));
                }
                routes.add(added.route());
                serverRoutes.clear();
            }
            case NetlinkEvent.RouteRemoved removed ->
            {
                routes.removeIf(r -> sameRouteKey(r, removed.route()) &&
                    java.util.Objects.equals(r.gateway(), removed.route().gateway()) &&
                    r.outputIndex() == removed.route().outputIndex());
                serverRoutes.clear();
            }
            case NetlinkEvent.NeighbourChanged changed -> neighbours.put(
                new NeighbourKey(changed.neighbour().index(), changed.neighbour().address()), changed.neighbour());
            case NetlinkEvent.NeighbourRemoved removed -> neighbours.remove(
                new NeighbourKey(removed.neighbour().index(), removed.neighbour().address()));
            case NetlinkEvent.Resync lost ->
            {
                DaemonLog.warning("rtnetlink: " + lost.reason() + ": reading the kernel's tables again");
                resync = true;
            }
        }
        return true;
    }

    /**
     * Logs what an operator of the box needs to hear of one of the daemon's interfaces: down, up, carrier lost, a
     * new MTU or MAC (followed: the ports take them from here), or a device come back under a removed one's name.
     */
    private void logPortChange(final Link before, final Link after)
    {
        final int port = config.interfaceIndex(after.name());
        if (port < 0)
        {
            return;
        }
        final String what = "interface " + after.name() + " (port " + port + ")";
        if (before == null)
        {
            // A device made again under the name: its ports follow it (the listener of onPortLink), and the TAP
            // and the VIP announcements take its MAC, which is likely another.
            if (after.hasMac())
            {
                try
                {
                    portMacListener.macChanged(port, after.mac());
                }
                catch (final RuntimeException ex)
                {
                    DaemonLog.warning(what + ": " + ex.getMessage());
                }
            }
            return;
        }
        final String state = linkState(after);
        if (!state.equals(linkState(before)))
        {
            if (state.equals("up"))
            {
                DaemonLog.info(what + ": up");
            }
            else
            {
                DaemonLog.warning(what + ": " + state);
            }
        }
        if (before.mtu() != after.mtu())
        {
            news.add(what + ": mtu " + before.mtu() + " -> " + after.mtu());
            warnOfFramesLongerThanChunks(config.interfaces().get(port), after.mtu());
        }
        if (before.mac() != after.mac())
        {
            // Logged once the TAP and the VIP announcements have it (here) and the workers' snapshot too.
            news.add(what + ": mac " + EthernetHeader.macToString(before.mac()) + " -> " +
                EthernetHeader.macToString(after.mac()));
            if (after.hasMac())
            {
                try
                {
                    portMacListener.macChanged(port, after.mac());
                }
                catch (final RuntimeException ex)
                {
                    DaemonLog.warning(what + ": " + ex.getMessage());
                }
            }
        }
    }

    /**
     * An AF_XDP socket in copy mode takes a frame only while it fits a chunk less the kernel's headroom
     * (__xsk_rcv against xsk_pool_get_rx_frame_size: the chunk less XDP_PACKET_HEADROOM, jvs's UMEM headroom being
     * 0); a longer one is dropped by the kernel, seen only in {@code kernel-rx-dropped}. Native XDP on a veth takes
     * MTUs up to about 3 500, so an interface can be configured, and even forward its short frames, while its long
     * ones vanish: say so in the log.
     */
    private static void warnOfFramesLongerThanChunks(final InterfaceConfig face, final int mtu)
    {
        final String warning = framesLongerThanChunks(face, mtu);
        if (warning != null)
        {
            DaemonLog.warning(warning);
        }
    }

    /**
     * @return the warning for an AF_XDP interface whose MTU makes frames longer than a chunk takes, or null.
     */
    static String framesLongerThanChunks(final InterfaceConfig face, final int mtu)
    {
        final int longest = AfXdpSettings.DEFAULT_CHUNK_SIZE - XDP_PACKET_HEADROOM;
        if (face.port() != PortKind.AFXDP || mtu + EthernetHeader.LENGTH <= longest)
        {
            return null;
        }
        return "interface " + face.name() + " (afxdp): mtu " + mtu + " makes frames of up to " +
            (mtu + EthernetHeader.LENGTH) + " bytes, but an AF_XDP socket takes at most " + longest + " (a " +
            AfXdpSettings.DEFAULT_CHUNK_SIZE + "-byte chunk less the kernel's " + XDP_PACKET_HEADROOM +
            " of headroom): the kernel drops longer ones (kernel-rx-dropped); use port afpacket on it, or an mtu of " +
            "at most " + (longest - EthernetHeader.LENGTH);
    }

    private static String linkState(final Link link)
    {
        if (!link.up())
        {
            return "down";
        }
        return link.lowerUp() ? "up" : "no carrier";
    }

    private static boolean sameAddress(final Address a, final Address b)
    {
        return a.index() == b.index() && a.address().equals(b.address()) && a.prefixLength() == b.prefixLength();
    }

    private static boolean sameRouteKey(final Route a, final Route b)
    {
        return a.family() == b.family() && a.table() == b.table() && a.prefixLength() == b.prefixLength() &&
            a.destination().equals(b.destination()) && a.priority() == b.priority();
    }

    /**
     * Marks the next hops in use as used (the kernel probes a STALE one) and asks again for those still without a
     * MAC.
     */
    private void refresh(final long nowNs)
    {
        for (final NeighbourKey key : inUse)
        {
            final Neighbour neighbour = neighbours.get(key);
            if (neighbour == null || !neighbour.usable() || (neighbour.state() & Rtnetlink.NUD_STALE) != 0)
            {
                ask(key, nowNs);
            }
        }
    }

    @Override
    public void resolve(final IpAddress address, final long nowNs)
    {
        final Route route = routeTo(address.toInetAddress());
        if (route == null || route.outputIndex() == 0 || portOf(route.outputIndex()) < 0)
        {
            return;
        }
        final InetAddress hop = route.gateway() != null ? route.gateway() : address.toInetAddress();
        ask(new NeighbourKey(route.outputIndex(), hop), nowNs);
    }

    private void ask(final NeighbourKey key, final long nowNs)
    {
        final Long last = asked.get(key);
        if (last != null && nowNs - last < REFRESH_NS)
        {
            return;
        }
        asked.put(key, nowNs);
        if (asked.size() > 65536)
        {
            asked.clear();
        }
        try
        {
            netlink.resolve(key.index(), key.address());
        }
        catch (final NativeCallException ex)
        {
            DaemonLog.warning("resolving " + key.address().getHostAddress() + ": " + ex.getMessage());
        }
    }

    @Override
    public void reconfigure(final JvsConfig next)
    {
        this.config = next;
    }

    @Override
    public Set<IpAddress> localAddresses()
    {
        final Set<IpAddress> locals = new LinkedHashSet<>();
        for (final Address address : addresses)
        {
            if (address.address() instanceof Inet4Address || address.address() instanceof Inet6Address)
            {
                locals.add(IpAddress.of(address.address()));
            }
        }
        return locals;
    }

    @Override
    public void close()
    {
        subscription.close();
        netlink.close();
    }

    /** For the log and status. */
    Map<String, String> describe()
    {
        final Map<String, String> text = new LinkedHashMap<>();
        text.put("links", String.valueOf(links.size()));
        text.put("routes", String.valueOf(routes.size()));
        text.put("neighbours", String.valueOf(neighbours.size()));
        return text;
    }
}
