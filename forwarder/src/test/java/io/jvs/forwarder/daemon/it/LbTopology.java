package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.jvs.nativebindings.bpf.XdpLink;
import io.jvs.nativebindings.testing.TestNetwork;

/**
 * The kernel's IPVS selftest topology grown to N real servers, for the daemon's system tests: a client
 * namespace, a director namespace {@code lb} whose interfaces the director owns, N real servers, and for DR
 * and TUN a router that carries the servers' replies to the clients around the director.
 * <pre>
 *   two-arm:
 *                       client LAN 10.0.0.0/24, fd00:10::/64            server LAN 172.16.0.0/24, fd00:172:16::/64
 *   cli [c0 .2 .3 ..] ── swc(br0) ── [lc .1] lb [ls .1] ── sws(br0) ──┬── [eth0 .2] rs1
 *                                 └─ [rc .254] rt [rs .254] ─────────┤── [eth0 .3] rs2 ...
 *                                   (DR, TUN, one-arm or router(true)) (one veth per port of the bridge)
 *   one-arm: no lc; the client reaches the VIP through rt, which routes it to lb's ls.
 *   secondDirector(true), one-arm only: a second director lb2 [ls .253] on the server LAN beside lb, for two
 *   directors behind one router (the router's routes to the VIP still name lb; a test routes some to lb2).
 * </pre>
 * The bridges sit in switch namespaces of their own ({@code swc}, {@code sws}), so the director has one
 * plain veth per side, as it would have one NIC. Per mode:
 * <ul>
 *   <li>NAT: the real servers' default route is the director (172.16.0.1, fd00:172:16::1);</li>
 *   <li>DR: the servers hold the VIP on {@code lo} ({@code arp_ignore=1}, {@code arp_announce=2}) and their
 *       default route is the router (.254), so replies bypass the director;</li>
 *   <li>TUN: as DR, plus the {@link TunnelDecapsulator} XDP program on each server's {@code eth0}, held by
 *       this JVM for the topology's life (this kernel has no ipip module for a {@code tunl0}).</li>
 * </ul>
 * Everywhere: reverse-path filtering off, IPv6 duplicate address detection off (addresses are usable at
 * once), the client's route to the VIP via the director's client side (two-arm) or the router (one-arm).
 * The director's kernel does not forward ({@code ip_forward=0}): the director under test does. The switches
 * have IPv6 off, so they add no frames of their own.
 * <p>
 * Closing detaches the XDP programs, closes what was {@link #register registered} (servers started with
 * {@link #startTcpServers}) and removes every namespace, also when a test fails (a shutdown hook of
 * {@link TestNetwork} covers a JVM that dies).
 */
public final class LbTopology extends Topology
{
    /** How the director forwards to the real servers. */
    public enum Mode
    {
        NAT, DR, TUN
    }

    public static final String CLIENT_DEVICE = "c0";
    public static final String DIRECTOR_CLIENT_DEVICE = "lc";
    public static final String DIRECTOR_SERVER_DEVICE = "ls";
    public static final String REAL_SERVER_DEVICE = "eth0";
    public static final String ROUTER_CLIENT_DEVICE = "rc";
    public static final String ROUTER_SERVER_DEVICE = "rs";
    public static final String BRIDGE = Wiring.BRIDGE;

    public static final String CLIENT_NETWORK_V4 = "10.0.0.0/24";
    public static final String CLIENT_NETWORK_V6 = "fd00:10::/64";
    public static final String SERVER_NETWORK_V4 = "172.16.0.0/24";
    public static final String SERVER_NETWORK_V6 = "fd00:172:16::/64";
    /** The selftest's VIP. */
    public static final Inet4Address VIP_V4 = v4("207.175.44.110");
    public static final Inet6Address VIP_V6 = v6("2001:db8:44::110");
    public static final int MAX_REAL_SERVERS = 200;
    public static final int MAX_CLIENT_ADDRESSES = 200;

    private static final String V4_CLIENT = "10.0.0.";
    private static final String V6_CLIENT = "fd00:10::";
    private static final String V4_SERVER = "172.16.0.";
    private static final String V6_SERVER = "fd00:172:16::";
    private static final int DIRECTOR_HOST = 1;
    private static final int ROUTER_HOST = 254;
    private static final int SECOND_DIRECTOR_HOST = 253;

    private final Mode mode;
    private final boolean oneArm;
    private final boolean secondDirector;
    private String clientNamespace;
    private String clientSwitchNamespace;
    private String directorNamespace;
    private String secondDirectorNamespace;
    private String serverSwitchNamespace;
    private String routerNamespace;
    private NetInterface directorClientSide;
    private NetInterface directorServerSide;
    private NetInterface secondDirectorServerSide;
    private NetInterface routerClientSide;
    private NetInterface routerServerSide;

    private LbTopology(final Builder builder)
    {
        super("topology", builder.tag, builder.ipv6, VIP_V4, VIP_V6);
        this.mode = builder.mode;
        this.oneArm = builder.oneArm;
        this.secondDirector = builder.secondDirector;
    }

    /**
     * @param tag a short word naming the test, for the namespaces' names.
     */
    public static Builder builder(final String tag)
    {
        return new Builder(tag);
    }

    /** Chooses the topology's shape; {@link #build()} makes it. */
    public static final class Builder
    {
        private final String tag;
        private Mode mode = Mode.NAT;
        private int realServers = 3;
        private int clientAddresses = 1;
        private boolean oneArm;
        private boolean secondDirector;
        private boolean ipv6 = true;
        private int serverMtu = 1500;
        private int clientMtu = 1500;
        private boolean segmentationOffload = true;
        private boolean router;
        private int directorQueues = 1;

        private Builder(final String tag)
        {
            this.tag = tag;
        }

        /** NAT (the default), DR or TUN: how the real servers are set up. */
        public Builder mode(final Mode value)
        {
            mode = value;
            return this;
        }

        /** @param count 1 to 200 (3 by default). */
        public Builder realServers(final int count)
        {
            if (count < 1 || count > MAX_REAL_SERVERS)
            {
                throw new IllegalArgumentException("real servers: 1 to " + MAX_REAL_SERVERS + ", not " + count);
            }
            realServers = count;
            return this;
        }

        /** @param count addresses on the client's device, 10.0.0.2 up (and fd00:10::2 up); 1 by default. */
        public Builder clientAddresses(final int count)
        {
            if (count < 1 || count > MAX_CLIENT_ADDRESSES)
            {
                throw new IllegalArgumentException("client addresses: 1 to " + MAX_CLIENT_ADDRESSES + ", not " +
                    count);
            }
            clientAddresses = count;
            return this;
        }

        /** The director gets only its server-side device; clients reach it through the router. */
        public Builder oneArm(final boolean value)
        {
            oneArm = value;
            return this;
        }

        /**
         * A second director, {@code lb2}, one-arm as {@code lb} is: its device {@code ls} on the server LAN at
         * 172.16.0.253 (fd00:172:16::fd), its default route the router. Only with {@link #oneArm}.
         */
        public Builder secondDirector(final boolean value)
        {
            secondDirector = value;
            return this;
        }

        /** With IPv6 addresses (the default) or with IPv6 disabled in every namespace. */
        public Builder ipv6(final boolean value)
        {
            ipv6 = value;
            return this;
        }

        /** A router namespace even in two-arm NAT (DR, TUN and one-arm always have one). */
        public Builder router(final boolean value)
        {
            router = value;
            return this;
        }

        /**
         * The MTU of every device on the server LAN (director, bridge ports, real servers, router); 1500 by
         * default. A TUN director adds 20 (IPv4) or 40 (IPv6) bytes to each packet: 1540 carries full-sized
         * client packets without ICMP "fragmentation needed".
         */
        public Builder serverMtu(final int value)
        {
            serverMtu = value;
            return this;
        }

        /** The MTU of every device on the client LAN; 1500 by default. */
        public Builder clientMtu(final int value)
        {
            clientMtu = value;
            return this;
        }

        /**
         * With {@code false}, the client's and the real servers' TCP stacks send segments of one MSS
         * ({@code gso_max_segs 1}) instead of the up-to-64 KiB GSO packets a veth otherwise carries, so a
         * director that reads frames (AF_PACKET) sees wire-sized packets. On by default (the kernel's way).
         */
        public Builder segmentationOffload(final boolean value)
        {
            segmentationOffload = value;
            return this;
        }

        /**
         * @param queues receive and transmit queues of the director's devices (and their bridge ports), 1 by
         *               default: one per worker, for a director that binds a socket per queue.
         */
        public Builder directorQueues(final int queues)
        {
            if (queues < 1 || queues > 64)
            {
                throw new IllegalArgumentException("director queues: 1 to 64, not " + queues);
            }
            directorQueues = queues;
            return this;
        }

        /** Makes the namespaces; on any failure removes what it made and throws. */
        public LbTopology build()
        {
            if (secondDirector && !oneArm)
            {
                throw new IllegalArgumentException("a second director needs a one-arm topology");
            }
            return Topology.build(new LbTopology(this), topology -> topology.create(this));
        }
    }

    private void create(final Builder builder)
    {
        final boolean withRouter = builder.router || oneArm || mode != Mode.NAT;
        clientNamespace = network().namespace("cli");
        clientSwitchNamespace = network().namespace("swc");
        directorNamespace = network().namespace("lb");
        secondDirectorNamespace = secondDirector ? network().namespace("lb2") : null;
        serverSwitchNamespace = network().namespace("sws");
        routerNamespace = withRouter ? network().namespace("rt") : null;
        final List<String> servers = new ArrayList<>();
        for (int i = 1; i <= builder.realServers; i++)
        {
            servers.add(network().namespace("rs" + i));
        }
        final Set<String> switches = Set.of(clientSwitchNamespace, serverSwitchNamespace);
        baseSysctls(switches);
        if (serversHoldVip())
        {
            servers.forEach(Topology::ignoreArpForLo);
        }
        if (routerNamespace != null)
        {
            Netns.sysctl(routerNamespace, "net.ipv4.ip_forward", "1");
            if (ipv6())
            {
                Netns.sysctl(routerNamespace, "net.ipv6.conf.all.forwarding", "1");
            }
        }

        // The switches make the veths: one end a bridge port, the other moved to the namespace it serves.
        final List<String> clientLan = new ArrayList<>(Wiring.bridge());
        clientLan.addAll(Wiring.port("pc", clientNamespace, CLIENT_DEVICE, builder.clientMtu));
        if (!oneArm)
        {
            clientLan.addAll(Wiring.port("pl", directorNamespace, DIRECTOR_CLIENT_DEVICE, builder.clientMtu,
                builder.directorQueues));
        }
        if (routerNamespace != null)
        {
            clientLan.addAll(Wiring.port("pr", routerNamespace, ROUTER_CLIENT_DEVICE, builder.clientMtu));
        }
        Netns.ipBatch(clientSwitchNamespace, clientLan);
        final List<String> serverLan = new ArrayList<>(Wiring.bridge());
        serverLan.addAll(Wiring.port("pl", directorNamespace, DIRECTOR_SERVER_DEVICE, builder.serverMtu,
            builder.directorQueues));
        if (secondDirector)
        {
            serverLan.addAll(Wiring.port("pl2", secondDirectorNamespace, DIRECTOR_SERVER_DEVICE, builder.serverMtu,
                builder.directorQueues));
        }
        if (routerNamespace != null)
        {
            serverLan.addAll(Wiring.port("pr", routerNamespace, ROUTER_SERVER_DEVICE, builder.serverMtu));
        }
        for (int i = 0; i < servers.size(); i++)
        {
            serverLan.addAll(Wiring.port("p" + (i + 1), servers.get(i), REAL_SERVER_DEVICE, builder.serverMtu));
        }
        Netns.ipBatch(serverSwitchNamespace, serverLan);

        configureClient(builder);
        configureDirector();
        if (routerNamespace != null)
        {
            configureRouter();
        }
        for (int i = 0; i < servers.size(); i++)
        {
            configureRealServer(i + 1, servers.get(i), builder.segmentationOffload);
        }
        if (!builder.segmentationOffload)
        {
            Netns.ip(clientNamespace, "link", "set", "dev", CLIENT_DEVICE, "gso_max_segs", "1");
        }
        readInterfaces(servers);
        awaitReady(switches);
    }

    private void configureClient(final Builder builder)
    {
        final List<String> commands = clientAddresses(CLIENT_DEVICE, V4_CLIENT, V6_CLIENT, 2,
            builder.clientAddresses);
        commands.addAll(vipRoutes(V4_CLIENT, V6_CLIENT, oneArm ? ROUTER_HOST : DIRECTOR_HOST));
        Netns.ipBatch(clientNamespace, commands);
    }

    private void configureDirector()
    {
        final List<String> commands = new ArrayList<>();
        if (!oneArm)
        {
            commands.addAll(addresses(DIRECTOR_CLIENT_DEVICE, V4_CLIENT, V6_CLIENT, DIRECTOR_HOST));
        }
        commands.addAll(addresses(DIRECTOR_SERVER_DEVICE, V4_SERVER, V6_SERVER, DIRECTOR_HOST));
        if (oneArm)
        {
            commands.addAll(defaultRoutes(V4_SERVER, V6_SERVER, ROUTER_HOST));
        }
        Netns.ipBatch(directorNamespace, commands);
        if (secondDirector)
        {
            final List<String> second = new ArrayList<>(
                addresses(DIRECTOR_SERVER_DEVICE, V4_SERVER, V6_SERVER, SECOND_DIRECTOR_HOST));
            second.addAll(defaultRoutes(V4_SERVER, V6_SERVER, ROUTER_HOST));
            Netns.ipBatch(secondDirectorNamespace, second);
        }
    }

    private void configureRouter()
    {
        final List<String> commands = new ArrayList<>(
            addresses(ROUTER_CLIENT_DEVICE, V4_CLIENT, V6_CLIENT, ROUTER_HOST));
        commands.addAll(addresses(ROUTER_SERVER_DEVICE, V4_SERVER, V6_SERVER, ROUTER_HOST));
        if (oneArm)
        {
            commands.addAll(vipRoutes(V4_SERVER, V6_SERVER, DIRECTOR_HOST));
        }
        Netns.ipBatch(routerNamespace, commands);
    }

    private void configureRealServer(final int index, final String namespace, final boolean segmentationOffload)
    {
        final List<String> commands = new ArrayList<>(
            addresses(REAL_SERVER_DEVICE, V4_SERVER, V6_SERVER, 1 + index));
        if (!segmentationOffload)
        {
            commands.add("link set dev " + REAL_SERVER_DEVICE + " gso_max_segs 1");
        }
        commands.addAll(defaultRoutes(V4_SERVER, V6_SERVER, mode == Mode.NAT ? DIRECTOR_HOST : ROUTER_HOST));
        if (serversHoldVip())
        {
            commands.addAll(vipOnLo());
        }
        Netns.ipBatch(namespace, commands);
    }

    private void readInterfaces(final List<String> servers)
    {
        readClient(clientNamespace, CLIENT_DEVICE);
        if (!oneArm)
        {
            directorClientSide = nic(directorNamespace, DIRECTOR_CLIENT_DEVICE, V4_CLIENT, V6_CLIENT, DIRECTOR_HOST);
        }
        directorServerSide = nic(directorNamespace, DIRECTOR_SERVER_DEVICE, V4_SERVER, V6_SERVER, DIRECTOR_HOST);
        if (secondDirector)
        {
            secondDirectorServerSide = nic(secondDirectorNamespace, DIRECTOR_SERVER_DEVICE, V4_SERVER, V6_SERVER,
                SECOND_DIRECTOR_HOST);
        }
        if (routerNamespace != null)
        {
            routerClientSide = nic(routerNamespace, ROUTER_CLIENT_DEVICE, V4_CLIENT, V6_CLIENT, ROUTER_HOST);
            routerServerSide = nic(routerNamespace, ROUTER_SERVER_DEVICE, V4_SERVER, V6_SERVER, ROUTER_HOST);
        }
        for (int i = 1; i <= servers.size(); i++)
        {
            final String namespace = servers.get(i - 1);
            final Host server = addServer("rs" + i, namespace, REAL_SERVER_DEVICE, V4_SERVER, V6_SERVER, 1 + i);
            if (mode == Mode.TUN)
            {
                register(TunnelDecapsulator.attach(namespace, REAL_SERVER_DEVICE, server.ipv4(), server.ipv6()));
            }
        }
    }

    /**
     * Puts a narrower hop between the director and {@code server}: the director's route to the server goes through
     * the router (172.16.0.254), whose own route on to it, back out of {@code rs}, has MTU {@code mtu}. A forwarded
     * packet is held to its route's MTU (ip_dst_mtu_maybe_forward), so the router answers one with DF set that does
     * not fit with frag-needed naming {@code mtu}, to the packet's source, and drops it (ip_forward, ip_exceeds_mtu;
     * its {@code Ip: FragFails} counts them: {@link Netns#snmp}). The router sends no ICMP redirects for the hairpin.
     *
     * @throws IllegalStateException when the topology has no router.
     */
    public void narrowPathTo(final Host server, final int mtu)
    {
        final String router = routerNamespace().orElseThrow(() -> new IllegalStateException("no router"));
        final String address = server.ipv4().getHostAddress() + "/32";
        // A redirect is sent when either of these is on (IN_DEV_TX_REDIRECTS).
        Netns.sysctl(router, "net.ipv4.conf.all.send_redirects", "0",
            "net.ipv4.conf." + ROUTER_SERVER_DEVICE + ".send_redirects", "0");
        Netns.ipBatch(router, List.of("route replace " + address + " dev " + ROUTER_SERVER_DEVICE + " mtu " + mtu));
        Netns.ipBatch(directorNamespace, List.of("route replace " + address + " via " + V4_SERVER + ROUTER_HOST +
            " dev " + DIRECTOR_SERVER_DEVICE));
    }

    /** The real servers hold the VIP under DR and TUN. */
    @Override
    boolean serversHoldVip()
    {
        return mode != Mode.NAT;
    }

    public Mode mode()
    {
        return mode;
    }

    public boolean oneArm()
    {
        return oneArm;
    }

    public String clientNamespace()
    {
        return clientNamespace;
    }

    public String directorNamespace()
    {
        return directorNamespace;
    }

    /** @return the second director's namespace, if it was built with {@link Builder#secondDirector}. */
    public Optional<String> secondDirectorNamespace()
    {
        return Optional.ofNullable(secondDirectorNamespace);
    }

    /** @return the second director's device {@code ls} (172.16.0.253), if there is one. */
    public Optional<NetInterface> secondDirectorServerSide()
    {
        return Optional.ofNullable(secondDirectorServerSide);
    }

    public String clientSwitchNamespace()
    {
        return clientSwitchNamespace;
    }

    public String serverSwitchNamespace()
    {
        return serverSwitchNamespace;
    }

    /** @return the router's namespace; empty for a two-arm NAT topology built without {@link Builder#router}. */
    public Optional<String> routerNamespace()
    {
        return Optional.ofNullable(routerNamespace);
    }

    /** @return the director's client-side device {@code lc} (10.0.0.1); empty when one-arm. */
    public Optional<NetInterface> directorClientSide()
    {
        return Optional.ofNullable(directorClientSide);
    }

    /** @return the director's server-side device {@code ls} (172.16.0.1). */
    public NetInterface directorServerSide()
    {
        return directorServerSide;
    }

    /** @return the router's client-side device {@code rc} (10.0.0.254), if there is a router. */
    public Optional<NetInterface> routerClientSide()
    {
        return Optional.ofNullable(routerClientSide);
    }

    /** @return the router's server-side device {@code rs} (172.16.0.254), if there is a router. */
    public Optional<NetInterface> routerServerSide()
    {
        return Optional.ofNullable(routerServerSide);
    }

    /** @return the real servers, rs1 (172.16.0.2) first: {@link #servers()}. */
    public List<Host> realServers()
    {
        return servers();
    }

    /** @param index 1 to N. */
    public Host realServer(final int index)
    {
        return server(index);
    }

    /** @return the real server whose name is {@code name}. */
    public Host realServer(final String name)
    {
        return servers().stream().filter(server -> server.name().equals(name)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no real server " + name));
    }

    /**
     * @return the XDP links of the TUN decapsulator, one per real server, still attached (empty in other
     *         modes).
     */
    public List<XdpLink> decapsulatorLinks()
    {
        return registered(XdpLink.class);
    }
}
