package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.Topology;
import io.jvs.forwarder.config.JvsConfig;
import io.jvs.nativebindings.netlink.Link;
import io.jvs.nativebindings.netlink.NetlinkEvent;
import io.jvs.nativebindings.netlink.Route;
import io.jvs.nativebindings.netlink.Rtnetlink;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Of two routes of one prefix the kernel takes the one of least metric, whichever came first: `ip route add
 * 10.0.0.0/25 dev lc metric 10 mtu 1000`, then `... metric 5 mtu 1100`, and `ip route get 10.0.0.2` says mtu 1100.
 * The topology the daemon builds from the announcements must take the same route (its MTU holds the NAT replies to
 * the client, its port and gateway carry them).
 */
class KernelTopologyRoutePreferenceTest
{
    private static final int INDEX = 7;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;

    private static Route route(final int family, final String prefix, final int length, final int metric,
        final int mtu) throws Exception
    {
        return new Route(family, Rtnetlink.RT_TABLE_MAIN, Rtnetlink.RTN_UNICAST, 4, 253, 0,
            InetAddress.getByName(prefix), length, null, INDEX, metric, null, mtu, List.of());
    }

    private static KernelTopology announced(final Route... routes) throws Exception
    {
        final JvsConfig config = JvsConfig.parse("box.conf", List.of("interface lc port afpacket"), Path.of(""));
        final KernelTopology kernel = new KernelTopology(config, null, null);
        kernel.apply(new NetlinkEvent.LinkChanged(new Link(INDEX, "lc", 1,
            Rtnetlink.IFF_UP | Rtnetlink.IFF_RUNNING | Rtnetlink.IFF_LOWER_UP, 0x020000000001L, 1500, "veth")));
        for (final Route route : routes)
        {
            kernel.apply(new NetlinkEvent.RouteAdded(route, false));
        }
        return kernel;
    }

    @Test
    void shouldTakeTheRouteOfLeastMetricAddedAfterAnother() throws Exception
    {
        final Topology topology = announced(route(AF_INET, "10.0.0.0", 25, 10, 1000),
            route(AF_INET, "10.0.0.0", 25, 5, 1100)).topology(List.of());

        assertThat(topology.route(IpAddress.parse("10.0.0.2")).mtu()).isEqualTo(1100);
    }

    @Test
    void shouldTakeTheIpv6RouteOfLeastMetricAddedAfterAnother() throws Exception
    {
        final Topology topology = announced(route(AF_INET6, "fd00:10::", 64, 1024, 1300),
            route(AF_INET6, "fd00:10::", 64, 256, 0)).topology(List.of());

        assertThat(topology.route(IpAddress.parse("fd00:10::2")).mtu()).isZero();
    }

    @Test
    void shouldKeepTheRouteOfLeastMetricAddedBeforeAnother() throws Exception
    {
        final Topology topology = announced(route(AF_INET, "10.0.0.0", 25, 5, 1100),
            route(AF_INET, "10.0.0.0", 25, 10, 1000)).topology(List.of());

        assertThat(topology.route(IpAddress.parse("10.0.0.2")).mtu()).isEqualTo(1100);
    }
}
