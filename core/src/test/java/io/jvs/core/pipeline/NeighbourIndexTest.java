package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Next hops towards clients: neighbour entry, then the longest matching route, then the family's gateway.
 */
class NeighbourIndexTest
{
    private static final long GW_DEFAULT = 0x02_00_00_00_0A_00L;
    private static final long GW_8 = 0x02_00_00_00_0A_08L;
    private static final long GW_16 = 0x02_00_00_00_0A_10L;
    private static final long GW_80 = 0x02_00_00_00_0A_50L;
    private static final long GW_128 = 0x02_00_00_00_0A_80L;
    private static final long GW_FAMILY = 0x02_00_00_00_0F_FFL;
    private static final long NEIGHBOUR = 0x02_00_00_00_0B_05L;

    private static Topology.Builder ports()
    {
        return new Topology.Builder()
            .port(0, TestFrames.JVS_MAC, 1500, IpAddress.parse("10.9.9.1"), IpAddress.parse("2001:db8:9::1"))
            .port(1, TestFrames.JVS_MAC + 1, 1500, IpAddress.parse("10.1.0.1"), null);
    }

    private static long find(final NeighbourIndex index, final String address)
    {
        final IpAddress ip = IpAddress.parse(address);
        return index.find(ip.isV6(), ip.high(), ip.low());
    }

    private static long hop(final int port, final long mac)
    {
        return (long)port << 48 | mac;
    }

    @Test
    void shouldPreferTheNeighbourThenTheLongestRouteThenTheGateway()
    {
        final Topology topology = ports()
            .route(IpPrefix.parse("0.0.0.0/0"), 0, GW_DEFAULT)
            .route(IpPrefix.parse("10.0.0.0/8"), 0, GW_8)
            .route(IpPrefix.parse("10.1.0.0/16"), 1, GW_16)
            .route(IpPrefix.parse("10.1.2.0/24"), 1, Topology.Route.ON_LINK)
            .neighbour(IpAddress.parse("10.1.2.5"), 1, NEIGHBOUR)
            .gatewayV4(0, GW_FAMILY)
            .build();
        final NeighbourIndex index = new NeighbourIndex(topology);
        assertThat(find(index, "10.1.2.5")).as("neighbour").isEqualTo(hop(1, NEIGHBOUR));
        assertThat(find(index, "10.1.2.6")).as("on-link, not a neighbour").isEqualTo(NeighbourIndex.NONE);
        assertThat(find(index, "10.1.3.1")).as("/16").isEqualTo(hop(1, GW_16));
        assertThat(find(index, "10.200.0.1")).as("/8").isEqualTo(hop(0, GW_8));
        assertThat(find(index, "192.0.2.1")).as("/0 before the gateway").isEqualTo(hop(0, GW_DEFAULT));
        assertThat(NeighbourIndex.port(find(index, "10.1.3.1"))).isEqualTo(1);
        assertThat(NeighbourIndex.mac(find(index, "10.1.3.1"))).isEqualTo(GW_16);

        // Servers are resolved the same way when a snapshot is built.
        assertThat(topology.resolve(IpAddress.parse("10.1.2.6"))).isNull();
        assertThat(topology.resolve(IpAddress.parse("10.1.3.1"))).isEqualTo(new Topology.Neighbour(1, GW_16));
        assertThat(topology.resolve(IpAddress.parse("10.1.2.5"))).isEqualTo(new Topology.Neighbour(1, NEIGHBOUR));
    }

    @Test
    void shouldFallBackToTheGatewayAndKeepTheFamiliesApart()
    {
        final Topology topology = ports()
            .route(IpPrefix.parse("0.0.0.0/0"), 0, GW_DEFAULT)
            .route(IpPrefix.parse("10.0.0.0/8"), 0, GW_8)
            .gatewayV6(0, GW_FAMILY)
            .build();
        final NeighbourIndex index = new NeighbourIndex(topology);
        assertThat(find(index, "2001:db8::1")).as("an IPv4 /0 does not hold IPv6").isEqualTo(hop(0, GW_FAMILY));
        // ::10.0.0.1 has the low bits of 10.0.0.1 but is IPv6.
        assertThat(find(index, "::a00:1")).isEqualTo(hop(0, GW_FAMILY));

        final NeighbourIndex bare = new NeighbourIndex(ports().route(IpPrefix.parse("10.0.0.0/8"), 0, GW_8).build());
        assertThat(find(bare, "11.0.0.1")).as("no route, no gateway").isEqualTo(NeighbourIndex.NONE);
        assertThat(find(bare, "2001:db8::1")).isEqualTo(NeighbourIndex.NONE);
    }

    @Test
    void shouldMatchIpv6PrefixesOnBothHalves()
    {
        final Topology topology = ports()
            .route(IpPrefix.parse("::/0"), 0, GW_DEFAULT)
            .route(IpPrefix.parse("2001:db8::/32"), 0, GW_8)
            .route(IpPrefix.parse("2001:db8:1::/48"), 1, GW_16)
            .route(IpPrefix.parse("2001:db8:1:2::/64"), 1, Topology.Route.ON_LINK)
            .route(IpPrefix.parse("2001:db8:1:2:3::/80"), 1, GW_80)
            .route(IpPrefix.parse("2001:db8:1:2:3:4:5:6/128"), 1, GW_128)
            .neighbour(IpAddress.parse("2001:db8:1:2::9"), 1, NEIGHBOUR)
            .build();
        final NeighbourIndex index = new NeighbourIndex(topology);
        assertThat(find(index, "2001:db8:1:2:3:4:5:6")).as("/128").isEqualTo(hop(1, GW_128));
        assertThat(find(index, "2001:db8:1:2:3:4:5:7")).as("/80").isEqualTo(hop(1, GW_80));
        assertThat(find(index, "2001:db8:1:2:4::1")).as("/64 on-link").isEqualTo(NeighbourIndex.NONE);
        assertThat(find(index, "2001:db8:1:2::9")).as("neighbour").isEqualTo(hop(1, NEIGHBOUR));
        assertThat(find(index, "2001:db8:1:3::1")).as("/48").isEqualTo(hop(1, GW_16));
        assertThat(find(index, "2001:db8:2::1")).as("/32").isEqualTo(hop(0, GW_8));
        assertThat(find(index, "2001:db9::1")).as("/0").isEqualTo(hop(0, GW_DEFAULT));
        assertThat(find(index, "10.0.0.1")).as("IPv6 routes hold no IPv4").isEqualTo(NeighbourIndex.NONE);
    }

    @Test
    void shouldUseTheFirstOfTwoRoutesForOnePrefix()
    {
        final Topology topology = ports()
            .route(IpPrefix.parse("10.0.0.0/8"), 0, GW_8)
            .route(IpPrefix.parse("10.0.0.0/8"), 1, GW_16)
            .build();
        assertThat(find(new NeighbourIndex(topology), "10.3.3.3")).isEqualTo(hop(0, GW_8));
        assertThat(topology.resolve(IpAddress.parse("10.3.3.3"))).isEqualTo(new Topology.Neighbour(0, GW_8));
    }

    @Test
    void shouldRefuseARouteThroughAPortThatDoesNotExist()
    {
        assertThatThrownBy(() -> ports().route(IpPrefix.parse("10.0.0.0/8"), 2, GW_8).build())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("10.0.0.0/8").hasMessageContaining("port 2");
    }

    /**
     * Random routing tables against the topology's own linear longest-prefix search.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void shouldAgreeWithALinearSearch(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final Topology.Builder builder = ports();
        // A few base networks, so that prefixes nest and addresses fall in them.
        final long baseV4 = 0x0A00_0000L | random.nextInt(1 << 16) << 8;
        final long baseV6 = 0x2001_0DB8_0000_0000L | random.nextInt(1 << 16);
        for (int r = 0; r < 40; r++)
        {
            final boolean v6 = random.nextBoolean();
            final int length = random.nextInt(v6 ? 129 : 33);
            final IpAddress network = v6 ?
                IpAddress.ofV6(baseV6 ^ (random.nextInt(4) == 0 ? random.nextLong() : 0), random.nextLong()) :
                IpAddress.ofV4((int)(baseV4 ^ random.nextInt(1 << 12)));
            builder.route(new IpPrefix(network, length), random.nextInt(2),
                random.nextInt(5) == 0 ? Topology.Route.ON_LINK : 0x0200_0000_0000L | random.nextInt(1 << 20));
        }
        for (int n = 0; n < 10; n++)
        {
            builder.neighbour(IpAddress.ofV4((int)(baseV4 ^ random.nextInt(1 << 12))), 0, 0x0200_0000_1000L + n);
        }
        if (random.nextBoolean())
        {
            builder.gatewayV4(1, GW_FAMILY);
        }
        final Topology topology = builder.build();
        final NeighbourIndex index = new NeighbourIndex(topology);
        for (int probe = 0; probe < 2000; probe++)
        {
            final boolean v6 = random.nextBoolean();
            final IpAddress address = v6 ?
                IpAddress.ofV6(baseV6 ^ (random.nextInt(4) == 0 ? random.nextLong() : 0), random.nextLong()) :
                IpAddress.ofV4((int)(baseV4 ^ random.nextInt(1 << 13)));
            final Topology.Neighbour expected = topology.resolve(address);
            final long found = index.find(v6, address.high(), address.low());
            if (expected == null)
            {
                assertThat(found).as("%s", address).isEqualTo(NeighbourIndex.NONE);
            }
            else
            {
                assertThat(found).as("%s", address).isEqualTo(hop(expected.port(), expected.mac()));
            }
        }
    }
}
