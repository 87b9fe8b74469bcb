package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A firewall cluster: two balancers around a row of firewalls, for the daemon's system tests. It is the use
 * Wensong Zhang's article on LVS load scheduling (LVS集群的负载调度, linuxvirtualserver.org/zh/lvs4.html)
 * gives for sh and dh together: one entry and one exit per flow through a cluster of firewalls.
 * <pre>
 *   out   eth0 198.51.100.10, .11 ...                       outside   198.51.100.0/24  2001:db8:100::/64
 *    |    (one veth)
 *   lbA   ao 198.51.100.1  |  ai 10.1.0.1
 *    |    swa (bridge)                                      A transit 10.1.0.0/24      fd00:1::/64
 *   fw1   eo 10.1.0.11  |  ei 10.2.0.11     fw2 .12    fw3 .13 ...
 *    |    swb (bridge)                                      B transit 10.2.0.0/24      fd00:2::/64
 *   lbB   bo 10.2.0.1  |  bi 10.3.0.1
 *    |    swi (bridge)                                      inside    10.3.0.0/24      fd00:3::/64
 *   in1   eth0 10.3.0.2     in2 .3     in3 .4 ...           (IPv6: the same host numbers, in hex)
 * </pre>
 * jvs A (in {@code lbA}) picks a firewall per client by source hash and sends it there by DR; jvs B (in
 * {@code lbB}) sends the inside servers' answers back by destination hash, so both directions of a flow
 * should cross the same firewall. The firewalls are plain Linux routers ({@code ip_forward=1}; routes:
 * outside via lbA's {@code ai}, inside and the VIP via lbB's {@code bo}); the clients' default route is
 * lbA's {@code ao}, the inside servers' is lbB's {@code bi}. Neither balancer's kernel forwards: the
 * daemon does. The inside servers optionally hold a VIP on {@code lo} (arp_ignore=1, arp_announce=2), for
 * lbB to reach them by DR.
 * <p>
 * Every firewall counts, per flow, what enters it from each side ({@link FlowCounter} on {@code eo} and
 * {@code ei}): {@link #paths()} turns that into, per conversation, the firewalls it crossed inbound and
 * outbound, and {@link #symmetryProblems} says which conversations did not cross exactly one firewall, the
 * same both ways. Closing detaches the counters, closes what was {@link #register registered} and removes
 * every namespace, also when a test fails.
 */
public final class FirewallSandwich extends Topology
{
    public static final String CLIENT_DEVICE = "eth0";
    public static final String A_OUTSIDE_DEVICE = "ao";
    public static final String A_INSIDE_DEVICE = "ai";
    public static final String FIREWALL_OUTSIDE_DEVICE = "eo";
    public static final String FIREWALL_INSIDE_DEVICE = "ei";
    public static final String B_OUTSIDE_DEVICE = "bo";
    public static final String B_INSIDE_DEVICE = "bi";
    public static final String SERVER_DEVICE = "eth0";

    public static final String OUTSIDE_NETWORK_V4 = "198.51.100.0/24";
    public static final String OUTSIDE_NETWORK_V6 = "2001:db8:100::/64";
    public static final String A_TRANSIT_V4 = "10.1.0.0/24";
    public static final String A_TRANSIT_V6 = "fd00:1::/64";
    public static final String B_TRANSIT_V4 = "10.2.0.0/24";
    public static final String B_TRANSIT_V6 = "fd00:2::/64";
    public static final String INSIDE_NETWORK_V4 = "10.3.0.0/24";
    public static final String INSIDE_NETWORK_V6 = "fd00:3::/64";
    public static final Inet4Address VIP_V4 = v4("203.0.113.10");
    public static final Inet6Address VIP_V6 = v6("2001:db8:113::10");
    public static final int MAX_FIREWALLS = 50;
    public static final int MAX_SERVERS = 200;
    public static final int MAX_CLIENT_ADDRESSES = 200;

    private static final String OUTSIDE_V4 = "198.51.100.";
    private static final String OUTSIDE_V6 = "2001:db8:100::";
    private static final String A_V4 = "10.1.0.";
    private static final String A_V6 = "fd00:1::";
    private static final String B_V4 = "10.2.0.";
    private static final String B_V6 = "fd00:2::";
    private static final String INSIDE_V4 = "10.3.0.";
    private static final String INSIDE_V6 = "fd00:3::";
    private static final int BALANCER_HOST = 1;
    private static final int FIRST_CLIENT_HOST = 10;
    private static final int FIRST_FIREWALL_HOST = 11;
    private static final int FIRST_SERVER_HOST = 2;

    private final boolean vip;
    private final List<Firewall> firewalls = new ArrayList<>();
    private String outsideNamespace;
    private Balancer balancerA;
    private Balancer balancerB;

    /**
     * A firewall: a plain router between the two transit networks, with its two flow counters.
     *
     * @param index   1 to K, the order of the switch ports and addresses.
     * @param name    {@code fw1}, {@code fw2}...
     * @param outside {@code eo} on the A transit (10.1.0.10+index).
     * @param inside  {@code ei} on the B transit (10.2.0.10+index).
     */
    public record Firewall(int index, String name, String namespace, NetInterface outside, NetInterface inside,
                           FlowCounter fromOutside, FlowCounter fromInside)
    {
    }

    /**
     * A balancer's namespace and its two devices.
     *
     * @param outside towards the clients ({@code ao} of lbA, {@code bo} of lbB).
     * @param inside  towards the servers ({@code ai} of lbA, {@code bi} of lbB).
     */
    public record Balancer(String namespace, NetInterface outside, NetInterface inside)
    {
    }

    /**
     * One conversation between an outside endpoint and an inside one (the address the client used: the VIP
     * or a server's), as the firewalls see it.
     */
    public record Conversation(int protocol, InetSocketAddress outside, InetSocketAddress inside)
    {
        /** @return the conversation of a client connection: from its local address to the one it connected to. */
        public static Conversation of(final TcpDigestClient.Connection connection)
        {
            return new Conversation(TestPackets.IPPROTO_TCP, connection.local(), connection.remote());
        }

        /** @return the conversation of a UDP exchange with {@code target}. */
        public static Conversation of(final UdpDigestClient.Exchange exchange, final InetSocketAddress target)
        {
            return new Conversation(TestPackets.IPPROTO_UDP, exchange.local(), target);
        }

        @Override
        public String toString()
        {
            return (protocol == TestPackets.IPPROTO_TCP ? "tcp " : "udp ") + outside + " <> " + inside;
        }
    }

    /**
     * Which firewalls a conversation crossed, with packet counts.
     *
     * @param inbound  firewall name to the packets that entered it from outside (client to server).
     * @param outbound firewall name to the packets that entered it from inside (server to client).
     */
    public record Path(Map<String, Long> inbound, Map<String, Long> outbound)
    {
        /** @return whether both directions crossed one and the same firewall. */
        public boolean symmetric()
        {
            return inbound.size() == 1 && inbound.keySet().equals(outbound.keySet());
        }

        /** @return the one firewall both directions crossed, or null when it is not {@link #symmetric()}. */
        public String firewall()
        {
            return symmetric() ? inbound.keySet().iterator().next() : null;
        }
    }

    private FirewallSandwich(final Builder builder)
    {
        super("sandwich", builder.tag, builder.ipv6, VIP_V4, VIP_V6);
        this.vip = builder.vip;
    }

    /** @param tag a short word naming the test. */
    public static Builder builder(final String tag)
    {
        return new Builder(tag);
    }

    /** Chooses the sandwich's size; {@link #build()} makes it. */
    public static final class Builder
    {
        private final String tag;
        private int firewalls = 3;
        private int servers = 3;
        private int clientAddresses = 3;
        private boolean ipv6 = true;
        private boolean vip = true;

        private Builder(final String tag)
        {
            this.tag = tag;
        }

        /** @param count 1 to 50 firewalls (3 by default). */
        public Builder firewalls(final int count)
        {
            firewalls = check("firewalls", count, MAX_FIREWALLS);
            return this;
        }

        /** @param count 1 to 200 inside servers (3 by default). */
        public Builder servers(final int count)
        {
            servers = check("servers", count, MAX_SERVERS);
            return this;
        }

        /** @param count outside addresses on the client's device, 198.51.100.10 up (3 by default). */
        public Builder clientAddresses(final int count)
        {
            clientAddresses = check("client addresses", count, MAX_CLIENT_ADDRESSES);
            return this;
        }

        /** With IPv6 addresses (the default) or with IPv6 disabled everywhere. */
        public Builder ipv6(final boolean value)
        {
            ipv6 = value;
            return this;
        }

        /** Whether the inside servers hold the VIP on {@code lo} (the default). */
        public Builder vip(final boolean value)
        {
            vip = value;
            return this;
        }

        private static int check(final String what, final int count, final int max)
        {
            if (count < 1 || count > max)
            {
                throw new IllegalArgumentException(what + ": 1 to " + max + ", not " + count);
            }
            return count;
        }

        /** Makes the namespaces; on any failure removes what it made and throws. */
        public FirewallSandwich build()
        {
            return Topology.build(new FirewallSandwich(this), sandwich -> sandwich.create(this));
        }
    }

    private void create(final Builder builder)
    {
        outsideNamespace = network().namespace("out");
        final String lbA = network().namespace("lba");
        final String switchA = network().namespace("swa");
        final List<String> firewallNamespaces = new ArrayList<>();
        for (int i = 1; i <= builder.firewalls; i++)
        {
            firewallNamespaces.add(network().namespace("fw" + i));
        }
        final String switchB = network().namespace("swb");
        final String lbB = network().namespace("lbb");
        final String switchInside = network().namespace("swi");
        final List<String> serverNamespaces = new ArrayList<>();
        for (int i = 1; i <= builder.servers; i++)
        {
            serverNamespaces.add(network().namespace("in" + i));
        }
        final Set<String> switches = Set.of(switchA, switchB, switchInside);
        baseSysctls(switches);
        for (final String firewall : firewallNamespaces)
        {
            Netns.forwarding(firewall, true);
        }
        if (vip)
        {
            serverNamespaces.forEach(Topology::ignoreArpForLo);
        }

        Netns.ipBatch(outsideNamespace, List.of(Wiring.veth(CLIENT_DEVICE, lbA, A_OUTSIDE_DEVICE)));
        final List<String> a = new ArrayList<>(Wiring.bridge());
        a.addAll(Wiring.port("pa", lbA, A_INSIDE_DEVICE, 1500));
        final List<String> b = new ArrayList<>(Wiring.bridge());
        b.addAll(Wiring.port("pb", lbB, B_OUTSIDE_DEVICE, 1500));
        for (int i = 0; i < firewallNamespaces.size(); i++)
        {
            a.addAll(Wiring.port("p" + (i + 1), firewallNamespaces.get(i), FIREWALL_OUTSIDE_DEVICE, 1500));
            b.addAll(Wiring.port("p" + (i + 1), firewallNamespaces.get(i), FIREWALL_INSIDE_DEVICE, 1500));
        }
        Netns.ipBatch(switchA, a);
        Netns.ipBatch(switchB, b);
        final List<String> inside = new ArrayList<>(Wiring.bridge());
        inside.addAll(Wiring.port("pb", lbB, B_INSIDE_DEVICE, 1500));
        for (int i = 0; i < serverNamespaces.size(); i++)
        {
            inside.addAll(Wiring.port("p" + (i + 1), serverNamespaces.get(i), SERVER_DEVICE, 1500));
        }
        Netns.ipBatch(switchInside, inside);

        final List<String> clients = clientAddresses(CLIENT_DEVICE, OUTSIDE_V4, OUTSIDE_V6, FIRST_CLIENT_HOST,
            builder.clientAddresses);
        clients.addAll(defaultRoutes(OUTSIDE_V4, OUTSIDE_V6, BALANCER_HOST));
        Netns.ipBatch(outsideNamespace, clients);
        Netns.ipBatch(lbA, concat(
            addresses(A_OUTSIDE_DEVICE, OUTSIDE_V4, OUTSIDE_V6, BALANCER_HOST),
            addresses(A_INSIDE_DEVICE, A_V4, A_V6, BALANCER_HOST)));
        Netns.ipBatch(lbB, concat(
            addresses(B_OUTSIDE_DEVICE, B_V4, B_V6, BALANCER_HOST),
            addresses(B_INSIDE_DEVICE, INSIDE_V4, INSIDE_V6, BALANCER_HOST)));
        for (int i = 0; i < firewallNamespaces.size(); i++)
        {
            configureFirewall(firewallNamespaces.get(i), FIRST_FIREWALL_HOST + i);
        }
        for (int i = 0; i < serverNamespaces.size(); i++)
        {
            configureServer(serverNamespaces.get(i), FIRST_SERVER_HOST + i);
        }
        awaitReady(switches);

        readClient(outsideNamespace, CLIENT_DEVICE);
        balancerA = new Balancer(lbA, nic(lbA, A_OUTSIDE_DEVICE, OUTSIDE_V4, OUTSIDE_V6, BALANCER_HOST),
            nic(lbA, A_INSIDE_DEVICE, A_V4, A_V6, BALANCER_HOST));
        balancerB = new Balancer(lbB, nic(lbB, B_OUTSIDE_DEVICE, B_V4, B_V6, BALANCER_HOST),
            nic(lbB, B_INSIDE_DEVICE, INSIDE_V4, INSIDE_V6, BALANCER_HOST));
        for (int i = 0; i < firewallNamespaces.size(); i++)
        {
            final String namespace = firewallNamespaces.get(i);
            final int host = FIRST_FIREWALL_HOST + i;
            final FlowCounter fromOutside = register(FlowCounter.attach(namespace, FIREWALL_OUTSIDE_DEVICE));
            final FlowCounter fromInside = register(FlowCounter.attach(namespace, FIREWALL_INSIDE_DEVICE));
            firewalls.add(new Firewall(i + 1, "fw" + (i + 1), namespace,
                nic(namespace, FIREWALL_OUTSIDE_DEVICE, A_V4, A_V6, host),
                nic(namespace, FIREWALL_INSIDE_DEVICE, B_V4, B_V6, host), fromOutside, fromInside));
        }
        for (int i = 0; i < serverNamespaces.size(); i++)
        {
            addServer("in" + (i + 1), serverNamespaces.get(i), SERVER_DEVICE, INSIDE_V4, INSIDE_V6,
                FIRST_SERVER_HOST + i);
        }
    }

    private void configureFirewall(final String namespace, final int host)
    {
        final List<String> commands = concat(addresses(FIREWALL_OUTSIDE_DEVICE, A_V4, A_V6, host),
            addresses(FIREWALL_INSIDE_DEVICE, B_V4, B_V6, host),
            routes(OUTSIDE_NETWORK_V4, OUTSIDE_NETWORK_V6, A_V4, A_V6, BALANCER_HOST),
            routes(INSIDE_NETWORK_V4, INSIDE_NETWORK_V6, B_V4, B_V6, BALANCER_HOST),
            vipRoutes(B_V4, B_V6, BALANCER_HOST));
        Netns.ipBatch(namespace, commands);
    }

    private void configureServer(final String namespace, final int host)
    {
        final List<String> commands = concat(addresses(SERVER_DEVICE, INSIDE_V4, INSIDE_V6, host),
            defaultRoutes(INSIDE_V4, INSIDE_V6, BALANCER_HOST));
        if (vip)
        {
            commands.addAll(vipOnLo());
        }
        Netns.ipBatch(namespace, commands);
    }

    /** The inside servers hold the VIP with {@link Builder#vip}. */
    @Override
    boolean serversHoldVip()
    {
        return vip;
    }

    @SafeVarargs
    private static List<String> concat(final List<String>... lists)
    {
        final List<String> all = new ArrayList<>();
        for (final List<String> list : lists)
        {
            all.addAll(list);
        }
        return all;
    }

    /**
     * Per conversation seen by any firewall (TCP and UDP), the firewalls it crossed each way. A packet that
     * entered a firewall on {@code eo} came from outside: its source is the outside endpoint; on {@code ei},
     * its destination is.
     */
    public Map<Conversation, Path> paths()
    {
        final Map<Conversation, Map<String, Long>> inbound = new LinkedHashMap<>();
        final Map<Conversation, Map<String, Long>> outbound = new LinkedHashMap<>();
        for (final Firewall firewall : firewalls)
        {
            firewall.fromOutside().flows().forEach((flow, packets) -> inbound
                .computeIfAbsent(new Conversation(flow.protocol(), flow.source(), flow.destination()),
                    key -> new LinkedHashMap<>()).merge(firewall.name(), packets, Long::sum));
            firewall.fromInside().flows().forEach((flow, packets) -> outbound
                .computeIfAbsent(new Conversation(flow.protocol(), flow.destination(), flow.source()),
                    key -> new LinkedHashMap<>()).merge(firewall.name(), packets, Long::sum));
        }
        final Map<Conversation, Path> paths = new LinkedHashMap<>();
        for (final Conversation conversation : union(inbound.keySet(), outbound.keySet()))
        {
            paths.put(conversation, new Path(Map.copyOf(inbound.getOrDefault(conversation, Map.of())),
                Map.copyOf(outbound.getOrDefault(conversation, Map.of()))));
        }
        return paths;
    }

    private static List<Conversation> union(final Set<Conversation> first, final Set<Conversation> second)
    {
        final List<Conversation> all = new ArrayList<>(first);
        second.stream().filter(conversation -> !first.contains(conversation)).forEach(all::add);
        return all;
    }

    /**
     * @param expected the conversations the test made (e.g. {@link Conversation#of} each client connection).
     * @return one line per expected conversation that did not cross exactly one firewall, the same both ways
     *         (never seen, seen one way only, split over firewalls, or in by one and out by another); empty
     *         when every one did.
     */
    public List<String> symmetryProblems(final Collection<Conversation> expected)
    {
        final Map<Conversation, Path> paths = paths();
        final List<String> problems = new ArrayList<>();
        for (final Conversation conversation : expected)
        {
            final Path path = paths.get(conversation);
            if (path == null)
            {
                problems.add(conversation + ": crossed no firewall");
            }
            else if (!path.symmetric())
            {
                problems.add(conversation + ": in through " + new TreeSet<>(path.inbound().keySet()) +
                    ", out through " + new TreeSet<>(path.outbound().keySet()));
            }
        }
        return problems;
    }

    /**
     * @return per firewall name, the conversations that crossed it both ways (only it).
     */
    public Map<String, List<Conversation>> conversationsByFirewall()
    {
        final Map<String, List<Conversation>> byFirewall = new LinkedHashMap<>();
        firewalls.forEach(firewall -> byFirewall.put(firewall.name(), new ArrayList<>()));
        paths().forEach((conversation, path) ->
        {
            if (path.symmetric())
            {
                byFirewall.get(path.firewall()).add(conversation);
            }
        });
        return byFirewall;
    }

    /** @return the clients' namespace. */
    public String outsideNamespace()
    {
        return outsideNamespace;
    }

    /** @return jvs A's namespace and devices: {@code ao} (198.51.100.1) and {@code ai} (10.1.0.1). */
    public Balancer balancerA()
    {
        return balancerA;
    }

    /** @return jvs B's namespace and devices: {@code bo} (10.2.0.1) and {@code bi} (10.3.0.1). */
    public Balancer balancerB()
    {
        return balancerB;
    }

    /** @return the firewalls, fw1 first. */
    public List<Firewall> firewalls()
    {
        return List.copyOf(firewalls);
    }

    /** @param index 1 to K. */
    public Firewall firewall(final int index)
    {
        return firewalls.get(index - 1);
    }
}
