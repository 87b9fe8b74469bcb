package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import io.jvs.core.stats.TrafficStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static io.jvs.core.pipeline.TestFrames.*;
import static io.jvs.core.stats.TrafficStatsDescriptor.CONNECTIONS;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAMES;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAME_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_PACKETS;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_PACKETS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counters {@code ipvsadm --stats} shows, as IPVS keeps them: per service and per real server, connections,
 * packets and bytes from clients (in) and back to them (out), bytes being IP datagram lengths without the
 * Ethernet header; DR servers answer clients directly, so their services count nothing out. A packet is counted
 * once it has found or made its connection, as ip_vs_in_stats and ip_vs_out_stats count it before the transmit:
 * one its transmit drops (no next hop, a client's TTL run out, too big for the tunnel) is in IPVS's counts and not in
 * jvs's frame counts; a reply whose TTL runs out is not (the kernel's ip_forward drops it before IPVS sees it). A
 * frame processed again once its next hop is known ({@link Pipeline#processAgain}) is not counted in IPVS's counts
 * a second time, and in jvs's frame counts once, when it leaves.
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

    /**
     * @param method ipvsadm's option for the server's forwarding method.
     * @return a farm of one server on an on-link route of port 0 whose MAC is not known yet.
     */
    private static PipelineFixture withoutServerNeighbour(final String method)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 " + method);
        fixture.topology.route(IpPrefix.parse("192.168.1.0/24"), 0, Topology.Route.ON_LINK);
        return fixture.start();
    }

    /** A NAT farm whose server is known and whose clients are on an on-link route of port 0, without MACs yet. */
    @Test
    void shouldCountAnIcmpErrorAboutAConnectionInItsInPktsTowardsTheServerAndOutPktsTowardsTheClient()
    {
        final PipelineFixture nat = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        final byte[] syn = fromClient(64, SYN, 0);
        nat.sendOne(syn);
        final TrafficStats stats = nat.pipeline.traffic();
        final int server = nat.publisher.current().slotOf(server(nat));
        final int service = nat.publisher.current().serverService[server];
        // A router near the client could not deliver the reply VIP:80 -> client and tells the VIP
        // (ip_vs_in_icmp: ip_vs_in_stats); the server could not take the request (handle_response_icmp).
        final byte[] aboutReply = icmpErrorV4(JVS_MAC, ROUTER_MAC, IpAddress.parse("203.0.113.1"), VIP, 3, 1,
            frame(ROUTER_MAC, JVS_MAC, VIP, CLIENT, 63, Segment.tcp(80, 40000, SYN | ACK, 0)));
        final byte[] aboutRequest = icmpErrorV4(JVS_MAC, SERVER_MAC, SERVER, CLIENT, 3, 3,
            frame(SERVER_MAC, JVS_MAC, CLIENT, SERVER, 63, Segment.tcp(40000, 8080, SYN, 0)));

        assertThat(Verdict.kind(nat.sendOne(aboutReply).verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(Verdict.kind(nat.sendOne(aboutRequest).verdict())).isEqualTo(Verdict.TRANSMIT);

        assertThat(stats.service(service, IN_PACKETS)).as("the SYN and the error about the reply").isEqualTo(2);
        assertThat(stats.server(server, IN_BYTES)).isEqualTo(syn.length - ETHERNET + aboutReply.length - ETHERNET);
        assertThat(stats.service(service, OUT_PACKETS)).as("the server's error").isEqualTo(1);
        assertThat(stats.server(server, OUT_BYTES)).isEqualTo(aboutRequest.length - ETHERNET);
        assertThat(stats.service(service, FRAMES)).as("errors are not the connection's frames").isEqualTo(1);
        assertThat(stats.server(server, FRAMES)).isEqualTo(1);
    }

    @Test
    void shouldCountAServersIcmpErrorWithoutANextHopOnceThoughProcessedAgain()
    {
        final PipelineFixture nat = withoutClientNeighbour();
        nat.sendOne(fromClient(64, SYN, 0));
        final byte[] error = icmpErrorV4(JVS_MAC, SERVER_MAC, SERVER, CLIENT, 3, 3,
            frame(SERVER_MAC, JVS_MAC, CLIENT, SERVER, 63, Segment.tcp(40000, 8080, SYN, 0)));
        final TrafficStats stats = nat.pipeline.traffic();
        final int server = nat.publisher.current().slotOf(server(nat));
        final int service = nat.publisher.current().serverService[server];

        assertThat(nat.sendOne(error).verdict()).isEqualTo(Verdict.drop(DropReason.NO_NEIGHBOUR));
        assertThat(stats.service(service, OUT_PACKETS)).as("counted before its next hop is looked for").isEqualTo(1);
        nat.neighbour("198.51.100.7", CLIENT_MAC).republish();
        assertThat(Verdict.kind(nat.sendOneAgain(error).verdict())).isEqualTo(Verdict.TRANSMIT);

        assertThat(stats.service(service, OUT_PACKETS)).as("once").isEqualTo(1);
        assertThat(stats.server(server, OUT_BYTES)).isEqualTo(error.length - ETHERNET);
    }

    private static PipelineFixture withoutClientNeighbour()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m")
            .neighbour("192.168.1.2", SERVER_MAC);
        fixture.topology.route(IpPrefix.parse("198.51.100.0/24"), 0, Topology.Route.ON_LINK);
        return fixture.start();
    }

    private static byte[] fromClient(final int ttl, final int flags, final int payload)
    {
        return frame(JVS_MAC, CLIENT_MAC, CLIENT, VIP, ttl, Segment.tcp(40000, 80, flags, payload));
    }

    private static byte[] fromServer(final int ttl, final int flags, final int payload)
    {
        return frame(JVS_MAC, SERVER_MAC, SERVER, CLIENT, ttl, Segment.tcp(8080, 40000, flags, payload));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"-m", "-g", "-i"})
    void shouldCountAPacketToAServerWithoutANextHopInItsInPktsButNotInItsFrames(final String method)
    {
        final PipelineFixture farm = withoutServerNeighbour(method);
        final byte[] syn = fromClient(64, SYN, 0);
        final byte[] ack = fromClient(64, ACK, 100);

        assertThat(farm.sendOne(syn).verdict()).isEqualTo(Verdict.drop(DropReason.NO_NEIGHBOUR));
        assertThat(farm.sendOne(ack).verdict()).as("on its connection").isEqualTo(
            Verdict.drop(DropReason.NO_NEIGHBOUR));

        final TrafficStats stats = farm.pipeline.traffic();
        final int server = farm.publisher.current().slotOf(server(farm));
        final int service = farm.publisher.current().serverService[server];
        final long in = syn.length - ETHERNET + ack.length - ETHERNET;
        assertThat(stats.service(service, CONNECTIONS)).as("service conns").isEqualTo(1);
        assertThat(stats.service(service, IN_PACKETS)).as("service inpkts").isEqualTo(2);
        assertThat(stats.service(service, IN_BYTES)).as("service inbytes").isEqualTo(in);
        assertThat(stats.server(server, IN_PACKETS)).as("server inpkts").isEqualTo(2);
        assertThat(stats.server(server, IN_BYTES)).as("server inbytes").isEqualTo(in);
        assertThat(stats.service(service, FRAMES) + stats.service(service, FRAME_BYTES)).as("service frames")
            .isZero();
        assertThat(stats.server(server, FRAMES) + stats.server(server, FRAME_BYTES)).as("server frames").isZero();
        assertThat(farm.pipeline.counters().dropped(DropReason.NO_NEIGHBOUR)).isEqualTo(2);

        // Once the MAC is known, the next packet leaves and is counted in both.
        farm.neighbour("192.168.1.2", SERVER_MAC).republish();
        assertThat(Verdict.kind(farm.sendOne(ack).verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(stats.service(service, IN_PACKETS)).isEqualTo(3);
        assertThat(stats.server(server, IN_PACKETS)).isEqualTo(3);
        assertThat(stats.service(service, FRAMES)).isEqualTo(1);
        assertThat(stats.server(server, FRAMES)).isEqualTo(1);
        assertThat(stats.service(service, FRAME_BYTES)).isEqualTo(ack.length);
    }

    @Test
    void shouldCountANatReplyToAClientWithoutANextHopInItsOutPkts()
    {
        final PipelineFixture nat = withoutClientNeighbour();
        nat.sendOne(fromClient(64, SYN, 0));
        final byte[] synAck = fromServer(64, SYN | ACK, 0);

        assertThat(nat.sendOne(synAck).verdict()).isEqualTo(Verdict.drop(DropReason.NO_NEIGHBOUR));

        final TrafficStats stats = nat.pipeline.traffic();
        final int server = nat.publisher.current().slotOf(server(nat));
        final int service = nat.publisher.current().serverService[server];
        assertThat(stats.service(service, OUT_PACKETS)).as("service outpkts").isEqualTo(1);
        assertThat(stats.service(service, OUT_BYTES)).as("service outbytes").isEqualTo(synAck.length - ETHERNET);
        assertThat(stats.server(server, OUT_PACKETS)).as("server outpkts").isEqualTo(1);
        assertThat(stats.server(server, OUT_BYTES)).as("server outbytes").isEqualTo(synAck.length - ETHERNET);
        assertThat(stats.server(server, FRAMES)).as("the SYN and the reply, sent on or not").isEqualTo(2);
    }

    @Test
    void shouldCountAClientsPacketWhoseTtlRunsOutOnItsConnectionButNotAReplysNorANewConnectionsFirst()
    {
        final PipelineFixture nat = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        final byte[] syn = fromClient(64, SYN, 0);
        final byte[] lastHop = fromClient(1, ACK, 100);
        nat.sendOne(syn);

        nat.sendOne(lastHop);
        nat.sendOne(fromServer(1, SYN | ACK, 0));
        nat.sendOne(frame(JVS_MAC, CLIENT_MAC, CLIENT, VIP, 1, Segment.tcp(40001, 80, SYN, 0)));

        final TrafficStats stats = nat.pipeline.traffic();
        final int server = nat.publisher.current().slotOf(server(nat));
        final int service = nat.publisher.current().serverService[server];
        assertThat(nat.pipeline.counters().dropped(DropReason.TTL_EXPIRED)).as("three TTLs run out").isEqualTo(3);
        assertThat(stats.service(service, CONNECTIONS)).as("no connection for the last SYN").isEqualTo(1);
        assertThat(stats.service(service, IN_PACKETS)).as("the SYN and the packet whose TTL ran out").isEqualTo(2);
        assertThat(stats.server(server, IN_BYTES)).isEqualTo(syn.length - ETHERNET + lastHop.length - ETHERNET);
        assertThat(stats.service(service, FRAMES)).as("only the SYN left").isEqualTo(1);
        assertThat(stats.service(service, OUT_PACKETS)).as("ip_forward drops the reply before IPVS").isZero();
        assertThat(stats.server(server, OUT_PACKETS)).isZero();
    }

    @Test
    void shouldCountAClientsPacketTooBigForTheTunnelInItsInPkts()
    {
        final PipelineFixture tun = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -i")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        final byte[] syn = fromClient(64, SYN, 0);
        // 20 + 20 + 1441 bytes of IP and the outer header: one byte over port 0's 1500, without DF.
        final byte[] tooBig = ipv4(JVS_MAC, CLIENT_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, ACK, 1441), 0, 2);
        tun.sendOne(syn);

        assertThat(Verdict.inFragments(tun.sendOne(tooBig).verdict())).as("sent in fragments").isTrue();
        final byte[] tooBigDf =
            ipv4(JVS_MAC, CLIENT_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, ACK, 1441), 0x4000, 3);
        assertThat(Verdict.kind(tun.sendOne(tooBigDf).verdict())).as("answered: frag-needed")
            .isEqualTo(Verdict.TRANSMIT);

        final TrafficStats stats = tun.pipeline.traffic();
        final int server = tun.publisher.current().slotOf(server(tun));
        final int service = tun.publisher.current().serverService[server];
        assertThat(stats.service(service, IN_PACKETS)).as("all three, the one answered too").isEqualTo(3);
        assertThat(stats.server(server, IN_BYTES))
            .isEqualTo(syn.length - ETHERNET + tooBig.length - ETHERNET + tooBigDf.length - ETHERNET);
        assertThat(stats.service(service, FRAMES)).as("the two that left").isEqualTo(2);
        assertThat(stats.server(server, FRAMES)).isEqualTo(2);
    }

    @Test
    void shouldCountAFrameProcessedAgainInIpvssCountsOnceAndInItsFramesWhenItLeaves()
    {
        final PipelineFixture nat = withoutServerNeighbour("-m");
        final byte[] syn = fromClient(64, SYN, 0);
        final byte[] ack = fromClient(64, ACK, 100);
        nat.sendOne(syn);
        // Dropped on its connection, which it moved to ESTABLISHED: processed again, it is one the fast loop takes.
        nat.sendOne(ack);
        final TrafficStats stats = nat.pipeline.traffic();
        final int server = nat.publisher.current().slotOf(server(nat));
        final int service = nat.publisher.current().serverService[server];
        assertThat(stats.service(service, IN_PACKETS)).isEqualTo(2);

        assertThat(nat.sendOneAgain(ack).verdict()).as("its next hop still unknown").isEqualTo(
            Verdict.drop(DropReason.NO_NEIGHBOUR));
        nat.neighbour("192.168.1.2", SERVER_MAC).republish();
        final long fastBefore = nat.pipeline.counters().fastPath();
        final PipelineFixture.Result sent = nat.sendOneAgain(ack);

        assertThat(Verdict.kind(sent.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(mac(sent.frame(), 0)).isEqualTo(SERVER_MAC);
        assertThat(stats.service(service, IN_PACKETS)).as("service inpkts").isEqualTo(2);
        assertThat(stats.server(server, IN_PACKETS)).as("server inpkts").isEqualTo(2);
        assertThat(stats.service(service, IN_BYTES)).isEqualTo(syn.length - ETHERNET + ack.length - ETHERNET);
        assertThat(stats.service(service, FRAMES)).as("service frames").isEqualTo(1);
        assertThat(stats.server(server, FRAMES)).as("server frames").isEqualTo(1);
        assertThat(stats.server(server, FRAME_BYTES)).isEqualTo(ack.length);
        assertThat(stats.service(service, CONNECTIONS)).isEqualTo(1);
        assertThat(nat.pipeline.counters().fastPath()).as("not the fast loop").isEqualTo(fastBefore);

        // The SYN again, as a worker that held it would send it: its connection is not made again.
        assertThat(Verdict.kind(nat.sendOneAgain(syn).verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(stats.service(service, IN_PACKETS)).isEqualTo(2);
        assertThat(stats.service(service, FRAMES)).isEqualTo(2);
        assertThat(stats.service(service, CONNECTIONS)).isEqualTo(1);

        // A new packet is counted as ever, by the fast loop.
        nat.sendOne(ack);
        assertThat(nat.pipeline.counters().fastPath()).isEqualTo(fastBefore + 1);
        assertThat(stats.service(service, IN_PACKETS)).isEqualTo(3);
        assertThat(stats.server(server, FRAMES)).isEqualTo(3);
    }

    @Test
    void shouldCountAReplyProcessedAgainInItsOutPktsAndItsServersFramesOnce()
    {
        final PipelineFixture nat = withoutClientNeighbour();
        nat.sendOne(fromClient(64, SYN, 0));
        nat.sendOne(fromServer(64, SYN | ACK, 0));
        nat.sendOne(fromClient(64, ACK, 0));
        // On an ESTABLISHED connection, a reply the fast loop would take once its client has a next hop.
        final byte[] reply = fromServer(64, ACK, 200);
        assertThat(nat.sendOne(reply).verdict()).isEqualTo(Verdict.drop(DropReason.NO_NEIGHBOUR));
        final TrafficStats stats = nat.pipeline.traffic();
        final int server = nat.publisher.current().slotOf(server(nat));
        final int service = nat.publisher.current().serverService[server];
        assertThat(stats.service(service, OUT_PACKETS)).isEqualTo(2);
        assertThat(stats.server(server, FRAMES)).isEqualTo(4);

        nat.neighbour("198.51.100.7", CLIENT_MAC).republish();
        final PipelineFixture.Result sent = nat.sendOneAgain(reply);

        assertThat(Verdict.kind(sent.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(mac(sent.frame(), 0)).isEqualTo(CLIENT_MAC);
        assertThat(stats.service(service, OUT_PACKETS)).as("service outpkts").isEqualTo(2);
        assertThat(stats.server(server, OUT_PACKETS)).as("server outpkts").isEqualTo(2);
        assertThat(stats.server(server, OUT_BYTES)).isEqualTo(2L * (reply.length - ETHERNET) - 200);
        assertThat(stats.server(server, FRAMES)).as("server frames").isEqualTo(4);

        nat.sendOne(reply);
        assertThat(stats.service(service, OUT_PACKETS)).isEqualTo(3);
        assertThat(stats.server(server, FRAMES)).isEqualTo(5);
    }

    @Test
    void shouldLookEveryFrameProcessedAgainUpItselfNotTakeTheSlotTheLastBurstsFastLoopFound()
    {
        final PipelineFixture nat = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        nat.sendOne(fromClient(64, SYN, 0));
        nat.sendOne(fromClient(64, ACK, 0));
        // The fast loop looks this one up, the first of its burst, and forwards it.
        final long fastBefore = nat.pipeline.counters().fastPath();
        nat.sendOne(fromClient(64, ACK, 10));
        assertThat(nat.pipeline.counters().fastPath()).isEqualTo(fastBefore + 1);

        // The first of the next burst, another client's: its own connection.
        final byte[] other = frame(JVS_MAC, CLIENT_MAC, IpAddress.parse("198.51.100.8"), VIP, 64,
            Segment.tcp(40000, 80, SYN, 0));
        assertThat(Verdict.kind(nat.sendOneAgain(other).verdict())).isEqualTo(Verdict.TRANSMIT);

        assertThat(nat.pipeline.connectionsV4().size()).as("connections").isEqualTo(2);
    }

    private static RealServer server(final PipelineFixture fixture)
    {
        return fixture.table.allServers().stream()
            .filter(candidate -> candidate.address().equals(SERVER))
            .findFirst().orElseThrow();
    }
}
