package io.jvs.nativebindings.netlink;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link RouteNetlink} and {@link NetlinkSubscription} against the running kernel, in a namespace "a" joined to
 * a peer namespace "b" by a veth pair (va in a, vb in b), set up with iproute2: the dumps must show what
 * {@code ip} configured, {@code routeTo} must agree with {@code ip route get}, the notifications of
 * {@code ip} changes must arrive within a second, and neighbour resolution must behave as the kernel's own.
 * Needs root, as CI has; the namespaces are removed even when a test fails.
 */
class RouteNetlinkKernelTest
{
    private static final long MAC_A = 0x02_aa_00_00_00_01L;
    private static final long MAC_B = 0x02_bb_00_00_00_02L;
    private static final long STATIC_MAC = 0x02_00_00_00_00_09L;
    private static final int MTU_A = 1400;
    private static final long SECOND_NS = 1_000_000_000L;

    private TestNetwork network;
    private String a;
    private String b;

    @BeforeEach
    void setUpTwoNamespaces()
    {
        network = TestNetwork.create("netlink");
        a = network.namespace("a");
        b = network.namespace("b");
        network.veth(a, "va", b, "vb");
        ip(a, "link set va address 02:aa:00:00:00:01 mtu " + MTU_A);
        ip(b, "link set vb address 02:bb:00:00:00:02");
        ip(a, "addr add 10.1.0.1/24 dev va");
        ip(a, "addr add 10.1.0.100/24 dev va");
        ip(b, "addr add 10.1.0.2/24 dev vb");
        ip(a, "addr add fd00:1::1/64 dev va nodad");
        ip(b, "addr add fd00:1::2/64 dev vb nodad");
    }

    @AfterEach
    void removeTheNamespaces()
    {
        network.close();
    }

    @Test
    void shouldDumpTheLinksAndAddressesIpSetUp()
    {
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                final List<Link> links = netlink.links();
                assertThat(links).extracting(Link::name).containsExactlyInAnyOrder("lo", "va");
                final Link link = links.stream().filter(l -> l.index() == va).findFirst().orElseThrow();
                assertThat(link.name()).isEqualTo("va");
                assertThat(link.kind()).isEqualTo("veth");
                assertThat(link.mac()).isEqualTo(MAC_A);
                assertThat(link.mtu()).isEqualTo(MTU_A);
                assertThat(link.type()).as("ARPHRD_ETHER").isEqualTo(1);
                assertThat(link.up()).isTrue();
                final Link loopback = links.stream().filter(l -> l.name().equals("lo")).findFirst().orElseThrow();
                assertThat(loopback.index()).isEqualTo(1);
                assertThat(loopback.flags() & Rtnetlink.IFF_LOOPBACK).isNotZero();
                assertThat(loopback.kind()).isNull();

                final List<Address> addresses = netlink.addresses();
                assertThat(addresses).contains(
                    new Address(va, Sockets.AF_INET, address("10.1.0.1"), 24, Rtnetlink.RT_SCOPE_UNIVERSE,
                        Rtnetlink.IFA_F_PERMANENT),
                    new Address(va, Sockets.AF_INET, address("10.1.0.100"), 24, Rtnetlink.RT_SCOPE_UNIVERSE,
                        Rtnetlink.IFA_F_PERMANENT | Rtnetlink.IFA_F_SECONDARY),
                    new Address(1, Sockets.AF_INET, address("127.0.0.1"), 8, Rtnetlink.RT_SCOPE_HOST,
                        Rtnetlink.IFA_F_PERMANENT),
                    new Address(va, Sockets.AF_INET6, address("fd00:1::1"), 64, Rtnetlink.RT_SCOPE_UNIVERSE,
                        Rtnetlink.IFA_F_PERMANENT | Rtnetlink.IFA_F_NODAD));
                // The kernel's own link-local address (made from the MAC the veth had when it came up).
                assertThat(addresses).anySatisfy(address ->
                {
                    assertThat(address.index()).isEqualTo(va);
                    assertThat(address.address().isLinkLocalAddress()).isTrue();
                    assertThat(address.prefixLength()).isEqualTo(64);
                    assertThat(address.scope()).isEqualTo(Rtnetlink.RT_SCOPE_LINK);
                });
            }
            return null;
        });
    }

    @Test
    void shouldDumpTheRoutesIpSetUp()
    {
        ip(a, "route add 10.50.0.0/16 via 10.1.0.2");
        ip(a, "route add 10.60.0.0/16 dev va");
        ip(a, "route add default via 10.1.0.2");
        ip(a, "route add 10.90.0.0/16 via 10.1.0.2 metric 50 mtu 1300");
        ip(a, "route add blackhole 10.70.0.0/16");
        ip(a, "route add 10.80.0.0/16 nexthop via 10.1.0.2 weight 1 nexthop via 10.1.0.3 weight 2");
        ip(a, "route add 10.40.0.0/16 via 10.1.0.3 table 100");
        ip(a, "-6 route add fd00:50::/64 via fd00:1::2");
        ip(a, "-6 route add fd00:80::/64 nexthop via fd00:1::2 nexthop via fd00:1::3");
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                final List<Route> routes = netlink.routes(Sockets.AF_INET);
                final Route viaGateway = find(routes, "10.50.0.0", 16, Rtnetlink.RT_TABLE_MAIN);
                assertThat(viaGateway.gateway()).isEqualTo(address("10.1.0.2"));
                assertThat(viaGateway.outputIndex()).isEqualTo(va);
                assertThat(viaGateway.type()).isEqualTo(Rtnetlink.RTN_UNICAST);
                assertThat(viaGateway.protocol()).isEqualTo(Rtnetlink.RTPROT_BOOT);
                assertThat(viaGateway.scope()).isEqualTo(Rtnetlink.RT_SCOPE_UNIVERSE);
                assertThat(viaGateway.multipath()).isFalse();
                assertThat(viaGateway.paths()).containsExactly(new NextHop(address("10.1.0.2"), va, 1, 0));

                final Route onLink = find(routes, "10.60.0.0", 16, Rtnetlink.RT_TABLE_MAIN);
                assertThat(onLink.gateway()).isNull();
                assertThat(onLink.outputIndex()).isEqualTo(va);
                assertThat(onLink.scope()).isEqualTo(Rtnetlink.RT_SCOPE_LINK);

                final Route defaultRoute = find(routes, "0.0.0.0", 0, Rtnetlink.RT_TABLE_MAIN);
                assertThat(defaultRoute.isDefault()).isTrue();
                assertThat(defaultRoute.gateway()).isEqualTo(address("10.1.0.2"));

                final Route metric = find(routes, "10.90.0.0", 16, Rtnetlink.RT_TABLE_MAIN);
                assertThat(metric.priority()).isEqualTo(50);
                assertThat(metric.mtu()).isEqualTo(1300);

                assertThat(find(routes, "10.70.0.0", 16, Rtnetlink.RT_TABLE_MAIN).type())
                    .isEqualTo(Rtnetlink.RTN_BLACKHOLE);

                final Route multipath = find(routes, "10.80.0.0", 16, Rtnetlink.RT_TABLE_MAIN);
                assertThat(multipath.multipath()).isTrue();
                assertThat(multipath.gateway()).isNull();
                assertThat(multipath.nextHops()).containsExactly(
                    new NextHop(address("10.1.0.2"), va, 1, 0), new NextHop(address("10.1.0.3"), va, 2, 0));

                final Route connected = find(routes, "10.1.0.0", 24, Rtnetlink.RT_TABLE_MAIN);
                assertThat(connected.protocol()).isEqualTo(Rtnetlink.RTPROT_KERNEL);
                assertThat(connected.preferredSource()).isEqualTo(address("10.1.0.1"));

                assertThat(find(routes, "10.40.0.0", 16, 100).gateway()).isEqualTo(address("10.1.0.3"));
                final Route local = find(routes, "10.1.0.1", 32, Rtnetlink.RT_TABLE_LOCAL);
                assertThat(local.type()).isEqualTo(Rtnetlink.RTN_LOCAL);
                assertThat(local.scope()).isEqualTo(Rtnetlink.RT_SCOPE_HOST);

                final List<Route> routes6 = netlink.routes(Sockets.AF_INET6);
                assertThat(routes6).allSatisfy(route -> assertThat(route.family()).isEqualTo(Sockets.AF_INET6));
                assertThat(find(routes6, "fd00:50::", 64, Rtnetlink.RT_TABLE_MAIN).gateway())
                    .isEqualTo(address("fd00:1::2"));
                final Route multipath6 = find(routes6, "fd00:80::", 64, Rtnetlink.RT_TABLE_MAIN);
                assertThat(multipath6.paths()).extracting(NextHop::gateway)
                    .containsExactly(address("fd00:1::2"), address("fd00:1::3"));
                assertThat(routes).allSatisfy(route -> assertThat(route.family()).isEqualTo(Sockets.AF_INET));
            }
            return null;
        });
    }

    @Test
    void shouldDumpNeighboursInTheirStates()
    {
        ip(a, "neigh add 10.1.0.9 lladdr 02:00:00:00:00:09 dev va nud permanent");
        ip(a, "neigh add 10.1.0.8 lladdr 02:00:00:00:00:08 dev va nud stale");
        ip(a, "-6 neigh add fd00:1::9 lladdr 02:00:00:00:00:09 dev va nud permanent");
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                final List<Neighbour> neighbours = netlink.neighbours(Sockets.AF_INET);
                final Neighbour permanent = find(neighbours, "10.1.0.9");
                assertThat(permanent.index()).isEqualTo(va);
                assertThat(permanent.mac()).isEqualTo(STATIC_MAC);
                assertThat(permanent.state()).isEqualTo(Rtnetlink.NUD_PERMANENT);
                assertThat(permanent.usable()).isTrue();
                assertThat(permanent.fixed()).isTrue();
                final Neighbour stale = find(neighbours, "10.1.0.8");
                assertThat(stale.state()).isEqualTo(Rtnetlink.NUD_STALE);
                assertThat(stale.usable()).isTrue();
                assertThat(stale.fixed()).isFalse();

                final List<Neighbour> neighbours6 = netlink.neighbours(Sockets.AF_INET6);
                assertThat(find(neighbours6, "fd00:1::9").mac()).isEqualTo(STATIC_MAC);
                assertThat(neighbours6).noneMatch(n -> n.family() != Sockets.AF_INET6);

                assertThat(netlink.neighbour(va, address("10.1.0.9"))).isEqualTo(permanent);
                assertThat(netlink.neighbour(va, address("10.1.0.99"))).isNull();
            }
            return null;
        });
    }

    @Test
    void shouldChooseTheRoutesIpRouteGetChooses()
    {
        ip(a, "route add 10.50.0.0/16 via 10.1.0.2");
        ip(a, "route add 10.60.0.0/16 dev va");
        ip(a, "route add default via 10.1.0.2");
        ip(a, "route add 10.80.0.0/16 nexthop via 10.1.0.2 weight 1 nexthop via 10.1.0.3 weight 2");
        ip(a, "route add blackhole 10.70.0.0/16");
        ip(a, "route add unreachable 10.71.0.0/16");
        ip(a, "route add prohibit 10.72.0.0/16");
        // Policy routing: what comes from 10.1.0.100 goes by table 100, what carries mark 7 by table 101.
        ip(a, "route add default via 10.1.0.3 table 100");
        ip(a, "rule add from 10.1.0.100 table 100 priority 100");
        ip(a, "route add 10.50.0.0/16 via 10.1.0.4 table 101");
        ip(a, "rule add fwmark 7 table 101 priority 101");
        ip(a, "-6 route add fd00:50::/64 via fd00:1::2");
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                for (final String destination : List.of("10.50.1.1", "10.60.1.1", "10.1.0.2", "192.0.2.1",
                    "10.80.1.1", "10.80.7.9", "fd00:50::1", "fd00:1::2"))
                {
                    final Route route = netlink.routeTo(address(destination));
                    final Map<String, String> expected = ipRouteGet(destination);
                    assertThat(route).as(destination).isNotNull();
                    assertThat(route.outputIndex()).as(destination + " dev").isEqualTo(va);
                    assertThat(route.gateway()).as(destination + " via")
                        .isEqualTo(expected.containsKey("via") ? address(expected.get("via")) : null);
                    assertThat(route.preferredSource()).as(destination + " src")
                        .isEqualTo(address(expected.get("src")));
                    assertThat(route.destination()).isEqualTo(address(destination));
                    assertThat(route.type()).isEqualTo(Rtnetlink.RTN_UNICAST);
                }
                assertThat(netlink.routeTo(address("192.0.2.1")).table()).isEqualTo(Rtnetlink.RT_TABLE_MAIN);

                final Route local = netlink.routeTo(address("10.1.0.1"));
                assertThat(local.type()).isEqualTo(Rtnetlink.RTN_LOCAL);
                assertThat(local.outputIndex()).as("local delivery goes through lo").isEqualTo(1);
                assertThat(local.table()).isEqualTo(Rtnetlink.RT_TABLE_LOCAL);

                final Route policy = netlink.routeTo(address("192.0.2.1"), address("10.1.0.100"), 0);
                assertThat(policy.gateway()).isEqualTo(address("10.1.0.3"));
                assertThat(policy.table()).isEqualTo(100);
                assertThat(policy.gateway().getHostAddress())
                    .isEqualTo(ipRouteGet("192.0.2.1", "from", "10.1.0.100").get("via"));
                final Route marked = netlink.routeTo(address("10.50.1.1"), null, 7);
                assertThat(marked.gateway()).isEqualTo(address("10.1.0.4"));
                assertThat(marked.table()).isEqualTo(101);
                assertThat(marked.gateway().getHostAddress())
                    .isEqualTo(ipRouteGet("10.50.1.1", "mark", "7").get("via"));

                assertThat(netlink.routeTo(address("10.70.1.1"))).as("blackhole").isNull();
                assertThat(netlink.routeTo(address("10.71.1.1"))).as("unreachable").isNull();
                assertThat(netlink.routeTo(address("10.72.1.1"))).as("prohibit").isNull();
                assertThat(netlink.routeTo(address("2001:db8::1"))).as("no IPv6 default route").isNull();
                assertThatThrownBy(() -> netlink.routeTo(address("10.1.0.1"), address("fd00:1::1"), 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("different families");
            }
            return null;
        });
    }

    @Test
    void shouldDeliverTheNotificationsOfIpChangesWithinASecond()
    {
        ip(a, "route add 10.50.0.0/16 via 10.1.0.2");
        ip(a, "route add 10.60.0.0/16 dev va");
        ip(a, "neigh add 10.1.0.9 lladdr 02:00:00:00:00:09 dev va nud permanent");
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (NetlinkSubscription subscription = RouteNetlink.subscribe(syscalls))
            {
                assertThat(subscription.poll(event -> { })).as("nothing queued yet").isZero();
                assertThat(subscription.receiveBufferBytes()).isGreaterThanOrEqualTo(
                    NetlinkSubscription.RECEIVE_BUFFER_BYTES);

                ip(a, "route replace 10.50.0.0/16 via 10.1.0.3");
                final NetlinkEvent.RouteAdded replaced = awaitEvent(subscription, NetlinkEvent.RouteAdded.class,
                    e -> e.route().destination().equals(address("10.50.0.0")));
                assertThat(replaced.replaced()).isTrue();
                assertThat(replaced.route().gateway()).isEqualTo(address("10.1.0.3"));
                assertThat(replaced.route().outputIndex()).isEqualTo(va);

                ip(a, "route del 10.60.0.0/16");
                final NetlinkEvent.RouteRemoved removed = awaitEvent(subscription, NetlinkEvent.RouteRemoved.class,
                    e -> e.route().destination().equals(address("10.60.0.0")));
                assertThat(removed.route().prefixLength()).isEqualTo(16);

                ip(a, "route add 10.61.0.0/16 via 10.1.0.2");
                assertThat(awaitEvent(subscription, NetlinkEvent.RouteAdded.class,
                    e -> e.route().destination().equals(address("10.61.0.0"))).replaced()).isFalse();

                ip(a, "neigh replace 10.1.0.9 lladdr 02:00:00:00:00:99 dev va");
                final NetlinkEvent.NeighbourChanged changed = awaitEvent(subscription,
                    NetlinkEvent.NeighbourChanged.class, e -> e.neighbour().address().equals(address("10.1.0.9")));
                assertThat(changed.neighbour().mac()).isEqualTo(0x02_00_00_00_00_99L);
                assertThat(changed.neighbour().index()).isEqualTo(va);

                ip(a, "neigh del 10.1.0.9 dev va");
                awaitEvent(subscription, NetlinkEvent.NeighbourRemoved.class,
                    e -> e.neighbour().address().equals(address("10.1.0.9")));

                ip(a, "addr add 10.1.0.200/24 dev va");
                final NetlinkEvent.AddressAdded added = awaitEvent(subscription, NetlinkEvent.AddressAdded.class,
                    e -> e.address().address().equals(address("10.1.0.200")));
                assertThat(added.address().prefixLength()).isEqualTo(24);
                assertThat(added.address().index()).isEqualTo(va);

                ip(a, "-6 route add fd00:50::/64 via fd00:1::2");
                awaitEvent(subscription, NetlinkEvent.RouteAdded.class,
                    e -> e.route().destination().equals(address("fd00:50::")));

                ip(a, "link set va down");
                final NetlinkEvent.LinkChanged down = awaitEvent(subscription, NetlinkEvent.LinkChanged.class,
                    e -> e.link().index() == va && !e.link().up());
                assertThat(down.link().name()).isEqualTo("va");
                assertThat(down.link().running()).isFalse();
            }
            return null;
        });
    }

    @Test
    void shouldDropIpv4RoutesOfALinkSetDownWithoutANotification()
    {
        ip(a, "route add 10.50.0.0/16 via 10.1.0.2");
        ip(a, "-6 route add fd00:50::/64 via fd00:1::2");
        ip(a, "neigh add 10.1.0.9 lladdr 02:00:00:00:00:09 dev va nud permanent");
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (NetlinkSubscription subscription = RouteNetlink.subscribe(syscalls);
                RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                ip(a, "link set va down");
                final List<NetlinkEvent> events = new ArrayList<>();
                awaitEvent(subscription, NetlinkEvent.RouteRemoved.class,
                    e -> e.route().destination().equals(address("fd00:50::")), events);
                awaitEvent(subscription, NetlinkEvent.NeighbourRemoved.class,
                    e -> e.neighbour().address().equals(address("10.1.0.9")), events);
                // IPv4 deletes the main table's routes through the link (fib_sync_down_dev) and tells nobody; the
                // addresses stay, and with them their local routes.
                final List<Route> routes = netlink.routes(Sockets.AF_INET);
                assertThat(routes).noneMatch(r -> r.table() == Rtnetlink.RT_TABLE_MAIN && r.outputIndex() == va);
                assertThat(routes).anyMatch(r -> r.destination().equals(address("10.1.0.1")) &&
                    r.type() == Rtnetlink.RTN_LOCAL);
                assertThat(events).noneMatch(e -> e instanceof NetlinkEvent.RouteRemoved removed &&
                    removed.route().family() == Sockets.AF_INET);
            }
            return null;
        });
    }

    @Test
    void shouldKeepRoutesButFlushLearntNeighboursWhenTheCarrierGoes()
    {
        ip(a, "route add 10.50.0.0/16 via 10.1.0.2");
        ip(a, "neigh add 10.1.0.9 lladdr 02:00:00:00:00:09 dev va nud permanent");
        ip(a, "neigh add 10.1.0.8 lladdr 02:00:00:00:00:08 dev va nud stale");
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (NetlinkSubscription subscription = RouteNetlink.subscribe(syscalls);
                RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                ip(b, "link set vb down");
                // The link watcher may hold a carrier change back for up to a second.
                final List<NetlinkEvent> events = new ArrayList<>();
                final NetlinkEvent.LinkChanged lost = awaitEvent(subscription, NetlinkEvent.LinkChanged.class,
                    e -> e.link().index() == va && !e.link().lowerUp(), events, 3);
                assertThat(lost.link().up()).isTrue();
                assertThat(lost.link().running()).isFalse();
                awaitEvent(subscription, NetlinkEvent.NeighbourRemoved.class,
                    e -> e.neighbour().address().equals(address("10.1.0.8")), events);
                final Route kept = find(netlink.routes(Sockets.AF_INET), "10.50.0.0", 16, Rtnetlink.RT_TABLE_MAIN);
                assertThat(kept.flags() & Rtnetlink.RTNH_F_LINKDOWN).isNotZero();
                assertThat(kept.paths().getFirst().down()).isTrue();
                assertThat(netlink.neighbour(va, address("10.1.0.9")).state()).isEqualTo(Rtnetlink.NUD_PERMANENT);
                assertThat(netlink.neighbour(va, address("10.1.0.8"))).isNull();
                // The kernel still chooses the route (net.ipv4.conf.*.ignore_routes_with_linkdown is 0).
                assertThat(netlink.routeTo(address("10.50.1.1")).gateway()).isEqualTo(address("10.1.0.2"));
            }
            return null;
        });
    }

    @Test
    void shouldResolveANeighbourThePeerAnswersFor()
    {
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (RouteNetlink netlink = RouteNetlink.open(syscalls);
                NetlinkSubscription subscription = RouteNetlink.subscribe(syscalls))
            {
                assertThat(netlink.neighbour(va, address("10.1.0.2"))).isNull();
                netlink.resolve(va, address("10.1.0.2"));

                final NetlinkEvent.NeighbourChanged reachable = awaitEvent(subscription,
                    NetlinkEvent.NeighbourChanged.class, e -> e.neighbour().address().equals(address("10.1.0.2")) &&
                        e.neighbour().state() == Rtnetlink.NUD_REACHABLE);
                assertThat(reachable.neighbour().mac()).isEqualTo(MAC_B);
                assertThat(reachable.neighbour().usable()).isTrue();
                assertThat(ip(a, "neigh show 10.1.0.2 dev va")).contains("lladdr 02:bb:00:00:00:02 REACHABLE");

                // Neighbour solicitations go from the link-local address, once duplicate address detection is done.
                awaitNoTentativeAddress(a);
                awaitNoTentativeAddress(b);
                netlink.resolve(va, address("fd00:1::2"));
                final NetlinkEvent.NeighbourChanged reachable6 = awaitEvent(subscription,
                    NetlinkEvent.NeighbourChanged.class, e -> e.neighbour().address().equals(address("fd00:1::2")) &&
                        e.neighbour().state() == Rtnetlink.NUD_REACHABLE);
                assertThat(reachable6.neighbour().mac()).isEqualTo(MAC_B);
            }
            return null;
        });
    }

    @Test
    void shouldLeaveAnAddressNobodyAnswersForFailed()
    {
        // Three broadcast solicitations half a second apart, rather than a second.
        ip(a, "ntable change name arp_cache dev va retrans 500");
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                netlink.resolve(va, address("10.1.0.77"));
                assertThat(netlink.neighbour(va, address("10.1.0.77")).state()).isEqualTo(Rtnetlink.NUD_INCOMPLETE);
                assertThat(ip(a, "neigh show 10.1.0.77 dev va")).contains("INCOMPLETE");
                final Neighbour failed = awaitNeighbour(netlink, va, "10.1.0.77", Rtnetlink.NUD_FAILED, 5);
                assertThat(failed.usable()).isFalse();
                assertThat(failed.mac()).isEqualTo(Link.NO_MAC);
                assertThat(ip(a, "neigh show 10.1.0.77 dev va")).contains("FAILED");

                // A FAILED entry is tried again.
                netlink.resolve(va, address("10.1.0.77"));
                assertThat(netlink.neighbour(va, address("10.1.0.77")).state()).isEqualTo(Rtnetlink.NUD_INCOMPLETE);
            }
            return null;
        });
    }

    @Test
    void shouldProbeAStaleNeighbourAndLeaveAPermanentOneAlone()
    {
        ip(a, "neigh add 10.1.0.2 lladdr 02:bb:00:00:00:02 dev va nud stale");
        ip(a, "neigh add 10.1.0.9 lladdr 02:00:00:00:00:09 dev va nud permanent");
        // DELAY lasts delay_first_probe_time (5 s by default) before the unicast probe.
        ip(a, "ntable change name arp_cache dev va delay_probe 1000");
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            final int va = syscalls.ifNameToIndex("va");
            try (RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                assertThat(netlink.neighbour(va, address("10.1.0.2")).state()).isEqualTo(Rtnetlink.NUD_STALE);
                netlink.resolve(va, address("10.1.0.2"));
                assertThat(netlink.neighbour(va, address("10.1.0.2")).state()).isEqualTo(Rtnetlink.NUD_DELAY);
                assertThat(ip(a, "neigh show 10.1.0.2 dev va")).contains("DELAY");
                final Neighbour confirmed = awaitNeighbour(netlink, va, "10.1.0.2", Rtnetlink.NUD_REACHABLE, 5);
                assertThat(confirmed.mac()).isEqualTo(MAC_B);

                netlink.resolve(va, address("10.1.0.9"));
                final Neighbour permanent = netlink.neighbour(va, address("10.1.0.9"));
                assertThat(permanent.state()).isEqualTo(Rtnetlink.NUD_PERMANENT);
                assertThat(permanent.mac()).isEqualTo(STATIC_MAC);
            }
            return null;
        });
    }

    @Test
    void shouldNameTheRequestAndTheErrnoWhenTheKernelRefuses()
    {
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            try (RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                assertThatThrownBy(() -> netlink.resolve(9_999, address("10.1.0.2")))
                    .isInstanceOf(NativeCallException.class)
                    .hasMessageContaining("netlink RTM_GETNEIGH")
                    .hasMessageContaining("ENODEV")
                    .hasMessageContaining("10.1.0.2 on interface 9999")
                    .satisfies(ex -> assertThat(((NativeCallException)ex).errno()).isEqualTo(19));
                // The socket is still in step after a failure.
                assertThat(netlink.links()).hasSize(2);
                assertThatThrownBy(() -> netlink.routes(7)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> netlink.resolve(0, address("10.1.0.2")))
                    .isInstanceOf(IllegalArgumentException.class);
                // Closing twice (here and at the end of the block) is harmless; using it after is not.
                netlink.close();
                assertThatThrownBy(netlink::links).isInstanceOf(IllegalStateException.class);
            }
            return null;
        });
    }

    @Test
    void shouldResyncWhenTheQueueOverflowsOrDeliverEverything()
    {
        final int routes = 20_000;
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            try (NetlinkSubscription subscription = RouteNetlink.subscribe(syscalls);
                RouteNetlink netlink = RouteNetlink.open(syscalls))
            {
                addRoutesInOneBatch(routes, "10.200");
                final List<NetlinkEvent> events = new ArrayList<>();
                final int delivered = subscription.poll(events::add);
                assertThat(delivered).isEqualTo(events.size());
                final long added = events.stream().filter(e -> e instanceof NetlinkEvent.RouteAdded).count();
                final boolean resync = events.stream().anyMatch(e -> e instanceof NetlinkEvent.Resync);
                assertThat(resync || added == routes).as("a Resync, or all %d routes (%d added events)", routes, added)
                    .isTrue();
                if (resync)
                {
                    assertThat(added).as("events were lost").isLessThan(routes);
                }
                // Either way the tables are whole: a dump after the Resync has every route.
                assertThat(netlink.routes(Sockets.AF_INET).stream()
                    .filter(r -> r.destination().getHostAddress().startsWith("10.200.")).count()).isEqualTo(routes);
            }
            return null;
        });
    }

    @Test
    void shouldResyncAfterAnOverflowOfASmallQueueAndThenFollowAgain()
    {
        TestNetwork.callIn(a, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            // 64 KiB of queue holds a few dozen notifications: 2000 overflow it for certain.
            try (NetlinkSubscription subscription = NetlinkSubscription.open(syscalls, 64 * 1024))
            {
                addRoutesInOneBatch(2_000, "10.201");
                final List<NetlinkEvent> events = new ArrayList<>();
                subscription.poll(events::add);
                assertThat(events).filteredOn(e -> e instanceof NetlinkEvent.Resync).hasSize(1)
                    .first().extracting(e -> ((NetlinkEvent.Resync)e).reason()).asString().contains("ENOBUFS");
                final List<NetlinkEvent> after = new ArrayList<>();
                subscription.poll(after::add);
                // Only what happened since (the namespace's IPv6 link-local addresses finishing DAD, say).
                assertThat(after).as("the queued notifications were discarded with the overflow").noneMatch(e ->
                    e instanceof NetlinkEvent.Resync || e instanceof NetlinkEvent.RouteAdded added &&
                        added.route().destination().getHostAddress().startsWith("10.201."));

                ip(a, "route add 10.202.0.0/16 via 10.1.0.2");
                awaitEvent(subscription, NetlinkEvent.RouteAdded.class,
                    e -> e.route().destination().equals(address("10.202.0.0")));
            }
            return null;
        });
    }

    private void addRoutesInOneBatch(final int count, final String prefix)
    {
        final StringBuilder batch = new StringBuilder();
        for (int i = 0; i < count; i++)
        {
            batch.append("route add ").append(prefix).append('.').append(i / 256).append('.').append(i % 256)
                .append("/32 via 10.1.0.2\n");
        }
        final java.nio.file.Path file;
        try
        {
            file = java.nio.file.Files.createTempFile("jvs-netlink-routes", ".batch");
            java.nio.file.Files.writeString(file, batch);
        }
        catch (final java.io.IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        try
        {
            network.inNamespace(a, "ip", "-batch", file.toString());
        }
        finally
        {
            file.toFile().delete();
        }
    }

    private static <E extends NetlinkEvent> E awaitEvent(final NetlinkSubscription subscription,
        final Class<E> type, final Predicate<E> match)
    {
        return awaitEvent(subscription, type, match, new ArrayList<>(), 1);
    }

    private static <E extends NetlinkEvent> E awaitEvent(final NetlinkSubscription subscription,
        final Class<E> type, final Predicate<E> match, final List<NetlinkEvent> seen)
    {
        return awaitEvent(subscription, type, match, seen, 1);
    }

    /**
     * Polls until an event of the type that matches is among {@code seen}, within {@code seconds}; every event
     * polled is added to {@code seen}.
     */
    private static <E extends NetlinkEvent> E awaitEvent(final NetlinkSubscription subscription,
        final Class<E> type, final Predicate<E> match, final List<NetlinkEvent> seen, final int seconds)
    {
        final long deadline = System.nanoTime() + seconds * SECOND_NS;
        while (true)
        {
            subscription.poll(seen::add);
            for (int i = 0; i < seen.size(); i++)
            {
                final NetlinkEvent event = seen.get(i);
                if (type.isInstance(event) && match.test(type.cast(event)))
                {
                    return type.cast(event);
                }
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("no matching " + type.getSimpleName() + " within " + seconds + " s; saw " +
                    seen);
            }
            Thread.onSpinWait();
        }
    }

    private static Neighbour awaitNeighbour(final RouteNetlink netlink, final int index, final String address,
        final int state, final int seconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + seconds * SECOND_NS;
        Neighbour neighbour = null;
        while (System.nanoTime() < deadline)
        {
            neighbour = netlink.neighbour(index, address(address));
            if (neighbour != null && neighbour.state() == state)
            {
                return neighbour;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(address + " did not become " + Rtnetlink.nudName(state) + " within " + seconds +
            " s: " + neighbour);
    }

    private void awaitNoTentativeAddress(final String namespace) throws InterruptedException
    {
        final long deadline = System.nanoTime() + 5 * SECOND_NS;
        while (!ip(namespace, "-6 addr show tentative").isBlank())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("IPv6 addresses still tentative after 5 s in " + namespace);
            }
            Thread.sleep(50);
        }
    }

    private static Route find(final List<Route> routes, final String destination, final int length, final int table)
    {
        return routes.stream()
            .filter(r -> r.destination().equals(address(destination)) && r.prefixLength() == length &&
                r.table() == table)
            .findFirst().orElseThrow(() -> new AssertionError("no route " + destination + "/" + length + " table " +
                table + " in " + routes));
    }

    private static Neighbour find(final List<Neighbour> neighbours, final String address)
    {
        return neighbours.stream().filter(n -> n.address().equals(address(address))).findFirst()
            .orElseThrow(() -> new AssertionError("no neighbour " + address + " in " + neighbours));
    }

    /**
     * @return what {@code ip route get} printed after "via", "dev", "src" and "table".
     */
    private Map<String, String> ipRouteGet(final String destination, final String... more)
    {
        final List<String> command = new ArrayList<>(List.of("ip", "route", "get", destination));
        command.addAll(Arrays.asList(more));
        final String[] words = network.inNamespace(a, command.toArray(String[]::new)).trim().split("\\s+");
        final Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < words.length; i++)
        {
            if (List.of("via", "dev", "src", "table").contains(words[i]))
            {
                fields.putIfAbsent(words[i], words[i + 1]);
            }
        }
        return fields;
    }

    private String ip(final String namespace, final String arguments)
    {
        final List<String> command = new ArrayList<>(List.of("ip"));
        command.addAll(Arrays.asList(arguments.split(" ")));
        return network.inNamespace(namespace, command.toArray(String[]::new));
    }

    private static InetAddress address(final String text)
    {
        try
        {
            return InetAddress.getByName(text);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException(text, ex);
        }
    }
}
