package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The addresses a worker wanted a next hop for: recorded once per repeat interval, drained in order,
 * recorded by the pipeline for clients and for servers.
 */
class NeighbourMissesTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress SERVER = IpAddress.parse("192.168.1.2");
    private static final long SERVER_MAC = 0x02_00_00_00_01_02L;

    private static List<String> drain(final NeighbourMisses misses)
    {
        final List<String> drained = new ArrayList<>();
        misses.drain((v6, high, low) -> drained.add(
            (v6 ? IpAddress.ofV6(high, low) : IpAddress.ofV4((int)low)).toString()));
        return drained;
    }

    @Test
    void shouldRecordAnAddressOncePerRepeatInterval()
    {
        final NeighbourMisses misses = new NeighbourMisses(8, 1000);
        assertThat(misses.record(false, 0, 0xC633_6407L, 0)).isTrue();
        assertThat(misses.record(false, 0, 0xC633_6407L, 999)).as("a repeat").isFalse();
        assertThat(misses.record(true, 0x2001_0DB8_0000_0000L, 1, 10)).isTrue();
        // An IPv6 address whose low bits are an IPv4 one already recorded is another address.
        assertThat(misses.record(true, 0, 0xC633_6407L, 20)).isTrue();
        assertThat(misses.pending()).isEqualTo(3);
        assertThat(drain(misses)).containsExactly("198.51.100.7", "2001:db8::1", "::c633:6407");
        assertThat(misses.pending()).isZero();
        assertThat(drain(misses)).isEmpty();

        assertThat(misses.record(false, 0, 0xC633_6407L, 500)).as("drained, but still recent").isFalse();
        assertThat(misses.record(false, 0, 0xC633_6407L, 1000)).as("asked again after the interval").isTrue();
        assertThat(drain(misses)).containsExactly("198.51.100.7");
    }

    @Test
    void shouldCountWhatDoesNotFitAndRecordItLater()
    {
        final NeighbourMisses misses = new NeighbourMisses(2, 1_000_000);
        assertThat(misses.record(false, 0, 1, 0)).isTrue();
        assertThat(misses.record(false, 0, 2, 0)).isTrue();
        assertThat(misses.record(false, 0, 3, 0)).isFalse();
        assertThat(misses.overflows()).isEqualTo(1);
        assertThat(misses.drain((v6, high, low) -> { })).isEqualTo(2);
        assertThat(misses.record(false, 0, 3, 1)).as("a dropped miss is not a repeat").isTrue();
        assertThat(drain(misses)).containsExactly("0.0.0.3");
    }

    @Test
    void shouldRefuseACapacityThatIsNotAPowerOfTwo()
    {
        assertThatThrownBy(() -> new NeighbourMisses(3, 0)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("power of two");
    }

    @Test
    void shouldRecordAClientOnAnOnLinkRouteThatIsNotYetANeighbour()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.2", SERVER_MAC);
        fixture.topology.route(IpPrefix.parse("198.51.100.0/24"), 0, Topology.Route.ON_LINK);
        fixture.start();
        assertThat(Verdict.kind(fixture.sendOne(frame(JVS_MAC, CLIENT_MAC, CLIENT, VIP, 64,
            Segment.tcp(40000, 80, SYN, 0))).verdict())).isEqualTo(Verdict.TRANSMIT);

        final byte[] reply = frame(JVS_MAC, SERVER_MAC, SERVER, CLIENT, 64, Segment.tcp(80, 40000, SYN | ACK, 0));
        final PipelineFixture.Result dropped = fixture.sendOne(reply);
        assertThat(dropped.verdict()).isEqualTo(Verdict.drop(DropReason.NO_NEIGHBOUR));
        assertThat(drain(fixture.pipeline.neighbourMisses())).containsExactly("198.51.100.7");

        // The conductor learns the client's MAC and publishes it.
        fixture.neighbour("198.51.100.7", CLIENT_MAC).republish();
        final PipelineFixture.Result sent = fixture.sendOne(reply);
        assertThat(Verdict.kind(sent.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(mac(sent.frame(), 0)).isEqualTo(CLIENT_MAC);
        assertThat(fixture.pipeline.neighbourMisses().pending()).isZero();
    }

    @Test
    void shouldRecordAServerWithoutANextHop()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -g",
                "-A -t [2001:db8::100]:80 -s rr", "-a -t [2001:db8::100]:80 -r [2001:db8:1::2]:80 -i");
        fixture.topology.route(IpPrefix.parse("192.168.1.0/24"), 0, Topology.Route.ON_LINK)
            .route(IpPrefix.parse("2001:db8:1::/64"), 0, Topology.Route.ON_LINK);
        fixture.start();
        final PipelineFixture.Result result = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(40000, 80, SYN, 0)));
        assertThat(result.verdict()).isEqualTo(Verdict.drop(DropReason.NO_NEIGHBOUR));
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("2001:db8:5::7"),
            IpAddress.parse("2001:db8::100"), 64, Segment.tcp(40000, 80, SYN, 0)));
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40001, 80, SYN, 0)));
        assertThat(drain(fixture.pipeline.neighbourMisses())).as("each server once")
            .containsExactly("192.168.1.2", "2001:db8:1::2");
        assertThat(fixture.publisher.current().unresolvedServers()).as("known when the snapshot is built")
            .containsExactlyInAnyOrder(SERVER, IpAddress.parse("2001:db8:1::2"));
    }
}
