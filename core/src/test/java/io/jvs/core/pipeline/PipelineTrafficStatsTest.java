package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import io.jvs.core.stats.TrafficStats;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static io.jvs.core.stats.TrafficStatsDescriptor.CONNECTIONS;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_PACKETS;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_PACKETS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counters {@code ipvsadm --stats} shows, as IPVS keeps them: per service and per real server, connections,
 * packets and bytes from clients (in) and back to them (out), bytes being IP datagram lengths without the
 * Ethernet header; DR servers answer clients directly, so their services count nothing out.
 */
class PipelineTrafficStatsTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress SERVER = IpAddress.parse("192.168.1.2");
    private static final long SERVER_MAC = 0x02_00_00_00_01_02L;
    private static final int ETHERNET = 14;

    @Test
    void shouldCountNatRequestsInAndRepliesOutWithTheirIpLengths()
    {
        final PipelineFixture nat = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        final byte[] syn = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, SYN, 0));
        final byte[] data = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, ACK, 100));
        final byte[] synAck = frame(JVS_MAC, SERVER_MAC, SERVER, CLIENT, 64, Segment.tcp(8080, 40000, SYN | ACK, 10));

        nat.sendOne(syn);
        nat.sendOne(synAck);
        nat.sendOne(data);

        final TrafficStats stats = nat.pipeline.traffic();
        final DataPlane plane = nat.publisher.current();
        final int server = plane.slotOf(server(nat));
        final int service = plane.serverService[server];
        final long in = syn.length - ETHERNET + data.length - ETHERNET;
        final long out = synAck.length - ETHERNET;
        assertThat(stats.service(service, CONNECTIONS)).as("service conns").isEqualTo(1);
        assertThat(stats.service(service, IN_PACKETS)).as("service inpkts").isEqualTo(2);
        assertThat(stats.service(service, OUT_PACKETS)).as("service outpkts").isEqualTo(1);
        assertThat(stats.service(service, IN_BYTES)).as("service inbytes").isEqualTo(in);
        assertThat(stats.service(service, OUT_BYTES)).as("service outbytes").isEqualTo(out);
        assertThat(stats.server(server, CONNECTIONS)).as("server conns").isEqualTo(1);
        assertThat(stats.server(server, IN_PACKETS)).as("server inpkts").isEqualTo(2);
        assertThat(stats.server(server, OUT_PACKETS)).as("server outpkts").isEqualTo(1);
        assertThat(stats.server(server, IN_BYTES)).as("server inbytes").isEqualTo(in);
        assertThat(stats.server(server, OUT_BYTES)).as("server outbytes").isEqualTo(out);
    }

    @Test
    void shouldCountOnlyInForDirectRouting()
    {
        final PipelineFixture dr = new PipelineFixture()
            .rules("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -g")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        final byte[] query = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(5353, 53, 30));

        dr.sendOne(query);
        dr.sendOne(query);

        final TrafficStats stats = dr.pipeline.traffic();
        final DataPlane plane = dr.publisher.current();
        final int server = plane.slotOf(server(dr));
        final int service = plane.serverService[server];
        assertThat(stats.service(service, CONNECTIONS)).as("conns").isEqualTo(1);
        assertThat(stats.service(service, IN_PACKETS)).as("inpkts").isEqualTo(2);
        assertThat(stats.service(service, IN_BYTES)).as("inbytes").isEqualTo(2L * (query.length - ETHERNET));
        assertThat(stats.service(service, OUT_PACKETS)).as("outpkts").isZero();
        assertThat(stats.server(server, OUT_BYTES)).as("server outbytes").isZero();
    }

    @Test
    void shouldCountNothingForAFrameNoServiceTakes()
    {
        final PipelineFixture nat = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();

        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, IpAddress.parse("10.0.0.200"), 64,
            Segment.tcp(40000, 80, SYN, 0)));

        final TrafficStats stats = nat.pipeline.traffic();
        final int server = nat.publisher.current().slotOf(server(nat));
        assertThat(stats.server(server, CONNECTIONS)).isZero();
        assertThat(stats.server(server, IN_PACKETS)).isZero();
    }

    private static RealServer server(final PipelineFixture fixture)
    {
        return fixture.table.allServers().stream()
            .filter(candidate -> candidate.address().equals(SERVER))
            .findFirst().orElseThrow();
    }
}
