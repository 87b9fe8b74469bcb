package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.stats.TrafficStatsDescriptor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Established connections offered to a {@link ConnectionOffload} and withdrawn from it: a NAT connection once
 * established and seen by the fast loop, once, described as the loop rewrites its frames; withdrawn at its FIN, when
 * it expires, when its server goes; described again after a new snapshot; refused offers tried again; what the
 * offload forwarded counted and keeping the connection alive; nothing of persistent services, IPv6 or TUN.
 */
class PipelineOffloadTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress SERVER = IpAddress.parse("192.168.1.2");
    private static final long SERVER_MAC = 0x02_00_00_00_01_02L;
    private static final long SECOND_NS = 1_000_000_000L;

    /** Records what it is told; accepts offers while {@link #accept}. */
    private static final class Recording implements ConnectionOffload
    {
        final List<String> events = new ArrayList<>();
        final List<Integer> slots = new ArrayList<>();
        boolean accept = true;

        @Override
        public boolean offer(final ConnectionTable table, final int slot, final OffloadedConnection c)
        {
            slots.add(slot);
            events.add("offer " + (c.nat() ? "nat " : "dr ") + c.protocol() + " " + IpAddress.ofV4(c.client()) +
                ":" + c.clientPort() + " " + IpAddress.ofV4(c.virtual()) + ":" + c.virtualPort() + " -> " +
                IpAddress.ofV4(c.server()) + ":" + c.serverPort() + " port " + c.serverEgress() + " mac " +
                Long.toHexString(c.serverMac()) + " from " + Long.toHexString(c.serverSourceMac()) + " mtu " +
                c.serverMtu() + (c.nat() ? "; back port " + c.clientEgress() + " mac " +
                Long.toHexString(c.clientMac()) + " from " + Long.toHexString(c.clientSourceMac()) + " mtu " +
                c.clientMtu() : ""));
            return accept;
        }

        @Override
        public void withdraw(final ConnectionTable table, final int slot)
        {
            events.add("withdraw " + slot);
        }
    }

    private final Recording offload = new Recording();

    private PipelineFixture fixture(final String service, final String server)
    {
        final PipelineFixture fixture = new PipelineFixture().rules(service, server)
            .neighbour("192.168.1.2", SERVER_MAC).start();
        fixture.pipeline.offloadTo(offload);
        return fixture;
    }

    private PipelineFixture nat()
    {
        return fixture("-A -t 10.0.0.100:80 -s wlc", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m");
    }

    private static byte[] in(final int flags)
    {
        return frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, flags, 0));
    }

    private static byte[] out(final int flags)
    {
        return frame(JVS_MAC, SERVER_MAC, SERVER, CLIENT, 64, Segment.tcp(8080, 40000, flags, 0));
    }

    private static void establish(final PipelineFixture fixture)
    {
        fixture.sendOne(in(SYN));
        fixture.sendOne(out(SYN | ACK));
        fixture.sendOne(in(ACK));
    }

    @Test
    void shouldOfferAnEstablishedNatConnectionOnceAsTheFastLoopRewritesItAndWithdrawItAtItsFin()
    {
        final PipelineFixture nat = nat();
        establish(nat);
        assertThat(offload.events).as("the handshake's frames move its state: the general path's").isEmpty();

        nat.send(in(ACK), in(ACK), out(ACK));

        assertThat(offload.events).containsExactly("offer nat 6 198.51.100.7:40000 10.0.0.100:80 -> " +
            "192.168.1.2:8080 port 0 mac 20000000102 from " + Long.toHexString(JVS_MAC) + " mtu 1500; " +
            "back port 0 mac " +
            Long.toHexString(ROUTER_MAC) + " from " + Long.toHexString(JVS_MAC) + " mtu 1500");
        assertThat(nat.pipeline.offloadedConnections()).isOne();
        nat.sendOne(out(ACK));
        assertThat(offload.events).as("once").hasSize(1);

        nat.sendOne(in(FIN | ACK));
        assertThat(offload.events).last().isEqualTo("withdraw " + offload.slots.get(0));
        assertThat(nat.pipeline.offloadedConnections()).isZero();
        nat.sendOne(in(ACK));
        assertThat(offload.events).as("CLOSE_WAIT is not offered").hasSize(2);
    }

    @Test
    void shouldOfferARefusedConnectionAgainAtItsNextFrame()
    {
        final PipelineFixture nat = nat();
        establish(nat);
        offload.accept = false;
        nat.sendOne(in(ACK));
        offload.accept = true;
        nat.sendOne(in(ACK));
        nat.sendOne(in(ACK));
        assertThat(offload.events).hasSize(2).allMatch(event -> event.startsWith("offer nat"));
        assertThat(nat.pipeline.offloadedConnections()).isOne();
    }

    @Test
    void shouldCountWhatTheOffloadForwardedAndKeepTheConnectionAliveByIt()
    {
        final PipelineFixture nat = nat();
        establish(nat);
        nat.sendOne(in(ACK));
        final int slot = offload.slots.get(0);
        final ConnectionTable table = nat.pipeline.connectionsV4();
        final DataPlane plane = nat.publisher.current();
        final int service = plane.serverService[table.server(slot)];
        final long inBefore = nat.pipeline.traffic().service(service, TrafficStatsDescriptor.IN_PACKETS);
        final long outBefore = nat.pipeline.traffic().service(service, TrafficStatsDescriptor.OUT_PACKETS);

        // ESTABLISHED lasts 900 s: frames forwarded outside until 800 s keep it until 1 700 s.
        nat.pipeline.offloadedTraffic(table, slot, true, 10, 1000, 1140, nat.nowNs + 800 * SECOND_NS);
        nat.pipeline.offloadedTraffic(table, slot, false, 3, 120, 162, nat.nowNs + 700 * SECOND_NS);

        assertThat(nat.pipeline.traffic().service(service, TrafficStatsDescriptor.IN_PACKETS) - inBefore)
            .isEqualTo(10);
        assertThat(nat.pipeline.traffic().service(service, TrafficStatsDescriptor.OUT_PACKETS) - outBefore)
            .isEqualTo(3);
        nat.nowNs += 1600 * SECOND_NS;
        nat.pipeline.sweep(nat.nowNs, table.slots());
        assertThat(table.size()).as("alive at 1 600 s").isOne();
        assertThat(offload.events).hasSize(1);
        nat.nowNs += 101 * SECOND_NS;
        nat.pipeline.sweep(nat.nowNs, table.slots());
        assertThat(table.size()).as("gone at 1 701 s").isZero();
        assertThat(offload.events).last().as("withdrawn as it left").isEqualTo("withdraw " + slot);
        assertThat(nat.pipeline.offloadedConnections()).isZero();
    }

    @Test
    void shouldDescribeOffloadedConnectionsAgainUnderANewSnapshotAndWithdrawThoseItNoLongerForwards()
    {
        final PipelineFixture nat = nat();
        establish(nat);
        nat.sendOne(in(ACK));
        nat.topology.neighbour(IpAddress.parse("192.168.1.2"), 0, 0x02_00_00_00_0A_0BL);
        nat.republish();
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(5000, 53, 1)));
        assertThat(offload.events).hasSize(2);
        assertThat(offload.events.get(1)).contains("mac 20000000a0b from");

        nat.rules("-d -t 10.0.0.100:80 -r 192.168.1.2:8080");
        nat.republish();
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(5000, 53, 1)));
        assertThat(offload.events).last().isEqualTo("withdraw " + offload.slots.get(0));
    }

    @Test
    void shouldTakeBackAnOffloadedConnectionOfARemovedServerWithoutAFrameOfItReachingThePipeline()
    {
        // The offload forwards every frame of the connection: only the sweep of an idle worker sees the snapshot.
        final PipelineFixture nat = nat();
        establish(nat);
        nat.sendOne(in(ACK));
        nat.rules("-d -t 10.0.0.100:80 -r 192.168.1.2:8080");
        nat.republish();
        assertThat(offload.events).hasSize(1);

        nat.nowNs += SECOND_NS;
        nat.pipeline.sweep(nat.nowNs, 16);

        assertThat(offload.events).last().isEqualTo("withdraw " + offload.slots.get(0));
        assertThat(nat.pipeline.offloadedConnections()).isZero();
    }

    @Test
    void shouldOfferUdpAndDirectRoutingButNeitherPersistentServicesNorTunnels()
    {
        final PipelineFixture dr = fixture("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -g");
        final byte[] query = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(5000, 53, 10));
        dr.sendOne(query);
        dr.sendOne(query);
        assertThat(offload.events).containsExactly("offer dr 17 198.51.100.7:5000 10.0.0.100:53 -> " +
            "10.0.0.100:53 port 0 mac 20000000102 from " + Long.toHexString(JVS_MAC) + " mtu 1500");

        offload.events.clear();
        final PipelineFixture persistent = fixture("-A -u 10.0.0.100:53 -s rr -p 300",
            "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -m");
        persistent.sendOne(query);
        persistent.sendOne(query);
        final PipelineFixture tunnel = fixture("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -i");
        tunnel.sendOne(query);
        tunnel.sendOne(query);
        assertThat(offload.events).isEmpty();
    }
}
