package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import io.jvs.core.stats.TrafficStats;
import io.jvs.core.stats.TrafficStatsDescriptor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;

import static io.jvs.core.pipeline.TestFrames.*;
import static io.jvs.core.stats.TrafficStatsDescriptor.CONNECTIONS;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAMES;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAME_BYTES;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a worker counts for one mixed burst: verdicts, drop reasons, each service's and each real
 * server's packets, bytes and connections, and the latency of every frame.
 */
class PipelineCountersTest
{
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");

    @Test
    void shouldCountEveryFrameUnderItsVerdictServiceAndServer()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr",
                "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m",
                "-a -t 10.0.0.100:80 -r 192.168.1.3:80 -m",
                "-A -u 10.0.0.100:53 -s rr",
                "-a -u 10.0.0.100:53 -r 192.168.1.4:53 -m")
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L)
            .neighbour("192.168.1.3", 0x02_00_00_00_01_03L)
            .neighbour("192.168.1.4", 0x02_00_00_00_01_04L)
            .start();
        final IpAddress first = IpAddress.parse("198.51.100.7");
        final IpAddress second = IpAddress.parse("198.51.100.8");
        final byte[][] frames = {
            frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.tcp(40000, 80, SYN, 0)),
            frame(JVS_MAC, ROUTER_MAC, second, VIP, 64, Segment.tcp(40001, 80, SYN, 0)),
            frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.tcp(40000, 80, ACK, 100)),
            frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.udp(5353, 53, 30)),
            frame(JVS_MAC, ROUTER_MAC, first, IpAddress.parse("10.0.0.200"), 64, Segment.tcp(40000, 80, SYN, 0)),
            Arrays.copyOf(frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.tcp(40000, 80, ACK, 0)), 30),
        };

        fixture.send(frames);

        final WorkerCounters counters = fixture.pipeline.counters();
        final TrafficStats traffic = fixture.pipeline.traffic();
        assertThat(counters.frames()).isEqualTo(6);
        assertThat(counters.transmitted()).isEqualTo(4);
        assertThat(counters.passed()).isEqualTo(1);
        assertThat(counters.dropped()).isEqualTo(1);
        assertThat(counters.dropped(DropReason.TRUNCATED)).isEqualTo(1);
        assertThat(counters.connections()).isEqualTo(3);

        final DataPlane plane = fixture.publisher.current();
        final RealServer web2 = server(fixture, "192.168.1.2");
        final RealServer web3 = server(fixture, "192.168.1.3");
        final RealServer dns = server(fixture, "192.168.1.4");
        final int web = plane.serverService[plane.slotOf(web2)];
        final int udp = plane.serverService[plane.slotOf(dns)];
        assertThat(plane.serverService[plane.slotOf(web3)]).isEqualTo(web);
        assertThat(udp).isNotEqualTo(web);

        assertThat(traffic.service(web, FRAMES)).isEqualTo(3);
        assertThat(traffic.service(web, FRAME_BYTES)).isEqualTo(frames[0].length + frames[1].length + frames[2].length);
        assertThat(traffic.service(web, CONNECTIONS)).isEqualTo(2);
        assertThat(traffic.service(udp, FRAMES)).isEqualTo(1);
        assertThat(traffic.service(udp, FRAME_BYTES)).isEqualTo(frames[3].length);
        assertThat(traffic.service(udp, CONNECTIONS)).isEqualTo(1);

        // rr gives each client its own server; the client with two packets decides which has more.
        final int slot2 = plane.slotOf(web2);
        final int slot3 = plane.slotOf(web3);
        assertThat(traffic.server(slot2, CONNECTIONS)).isEqualTo(1);
        assertThat(traffic.server(slot3, CONNECTIONS)).isEqualTo(1);
        assertThat(traffic.server(slot2, FRAMES) + traffic.server(slot3, FRAMES)).isEqualTo(3);
        assertThat(traffic.server(slot2, FRAME_BYTES) + traffic.server(slot3, FRAME_BYTES))
            .isEqualTo(traffic.service(web, FRAME_BYTES));
        assertThat(traffic.server(plane.slotOf(dns), FRAMES)).isEqualTo(1);

        assertThat(fixture.pipeline.latency().getTotalCount()).as("one latency per frame").isEqualTo(6);
        assertThat(fixture.pipeline.latency().getMinValue()).isBetween(495L, 505L);
        assertThat(fixture.pipeline.latency().getMaxValue()).isBetween(495L, 505L);
    }

    /**
     * Only the caller knows when a burst's frames left (the daemon's worker once they are handed to its transmit
     * rings): the pipeline records no latency while it processes them, and then each frame's time from its own
     * receive time to that moment.
     */
    @Test
    void shouldRecordEachFramesLatencyOnlyWhenTheCallerSaysTheFramesLeft()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L)
            .start();
        final FrameBurst burst = new FrameBurst();
        final long[] receivedAgo = {3_000, 1_000, 1_000};
        final long processedNs = fixture.nowNs;
        // Held for the whole test: the frames live in it.
        final java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocateDirect(3 * 2048);
        final long memory = io.jvs.core.packet.Frames.addressOf(buffer);
        for (int i = 0; i < receivedAgo.length; i++)
        {
            final byte[] frame = frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("198.51.100." + (7 + i)), VIP, 64,
                Segment.tcp(40000 + i, 80, SYN, 0));
            io.jvs.core.packet.Frames.write(frame, memory + i * 2048L);
            burst.add(memory + i * 2048L, frame.length, 2048, 0, processedNs - receivedAgo[i]);
        }

        fixture.pipeline.process(burst, processedNs);
        assertThat(fixture.pipeline.latency().getTotalCount()).as("nothing while processing").isZero();

        fixture.pipeline.recordLatency(burst, processedNs + 500);
        assertThat(fixture.pipeline.latency().getTotalCount()).isEqualTo(3);
        assertThat(fixture.pipeline.latency().getMinValue()).isBetween(1_495L, 1_505L);
        assertThat(fixture.pipeline.latency().getMaxValue()).isBetween(3_495L, 3_505L);
        assertThat(fixture.pipeline.latency().getCountAtValue(1_500)).isEqualTo(2);
        java.lang.ref.Reference.reachabilityFence(buffer);
    }

    /**
     * A burst whose frames share one receive time (as one poll finds them) is recorded as one value for all of them:
     * the same histogram, minimum and maximum as the frame-by-frame pass gives the same frames, clamps included.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x6A76_7300L})
    void shouldRecordTheLatencyOfFramesOfOneReceiveTimeAsFrameByFrame(final long seed)
    {
        final Pipeline together = latencyFixture().pipeline;
        final Pipeline oneByOne = latencyFixture().pipeline;
        final java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        final FrameBurst shared = new FrameBurst();
        final FrameBurst mixed = new FrameBurst();
        final long leftNs = 1L << 40;
        for (int round = 0; round < 300; round++)
        {
            // Two frames at least: a lone frame's time is known to be the burst's whatever it is set to.
            final int count = 2 + random.nextInt(FrameBurst.MAX_FRAMES - 1);
            final long receivedNs = switch (random.nextInt(4))
            {
                case 0 -> leftNs - random.nextLong(100_000);
                case 1 -> leftNs - random.nextLong(Pipeline.MAX_LATENCY_NS);
                // Received after leftNs: recorded as 0.
                case 2 -> leftNs + 1 + random.nextLong(1_000);
                // Beyond the histogram's range: recorded as its largest value.
                default -> leftNs - Pipeline.MAX_LATENCY_NS - 1 - random.nextLong(10 * Pipeline.MAX_LATENCY_NS);
            };
            shared.clear();
            mixed.clear();
            for (int i = 0; i < count; i++)
            {
                shared.add(i * 64L, 60, 64, 0, receivedNs);
                mixed.add(i * 64L, 60, 64, 0, receivedNs);
            }
            // The same times, but no longer known to be shared: the frame-by-frame pass records them.
            mixed.receiveTimeNs(count - 1, receivedNs + 1);
            mixed.receiveTimeNs(count - 1, receivedNs);
            assertThat(shared.commonReceiveTimeNs()).isEqualTo(receivedNs);
            assertThat(mixed.commonReceiveTimeNs()).isEqualTo(FrameBurst.MIXED_RECEIVE_TIMES);
            together.recordLatency(shared, leftNs);
            oneByOne.recordLatency(mixed, leftNs);
        }
        assertThat(together.latency().getTotalCount()).isGreaterThan(300);
        assertThat(together.latency()).isEqualTo(oneByOne.latency());
        assertThat(together.latency().getMinValue()).isEqualTo(oneByOne.latency().getMinValue());
        assertThat(together.latency().getMaxValue()).isEqualTo(oneByOne.latency().getMaxValue());
    }

    private static PipelineFixture latencyFixture()
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L)
            .start();
    }

    @Test
    void shouldCountEstablishedTrafficAsTheGeneralPathDoesWhenTheFastLoopTakesIt()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr",
                "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m",
                "-a -t 10.0.0.100:80 -r 192.168.1.3:80 -g")
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L)
            .neighbour("192.168.1.3", 0x02_00_00_00_01_03L)
            .start();
        final IpAddress first = IpAddress.parse("198.51.100.7");
        final IpAddress second = IpAddress.parse("198.51.100.8");
        establish(fixture, first, second);
        final WorkerCounters counters = fixture.pipeline.counters();
        final TrafficStats traffic = fixture.pipeline.traffic();
        assertThat(counters.fastPath()).as("the SYNs the general path's, the ACKs that establish the fast loop's")
            .isEqualTo(2);

        // Established now, so each ACK leaves its state as it is: the fast loop's, the truncated frame with them.
        final byte[][] established = {
            frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.tcp(40000, 80, ACK, 100)),
            Arrays.copyOf(frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.tcp(40000, 80, ACK, 0)), 30),
            frame(JVS_MAC, ROUTER_MAC, second, VIP, 64, Segment.tcp(40001, 80, ACK, 7)),
        };
        final DataPlane plane = fixture.publisher.current();
        final int nat = plane.slotOf(server(fixture, "192.168.1.2"));
        final int dr = plane.slotOf(server(fixture, "192.168.1.3"));
        final int web = plane.serverService[nat];
        final long[] packetsBefore = {traffic.service(web, FRAMES), traffic.server(nat, FRAMES),
            traffic.server(dr, FRAMES)};
        final long[] bytesBefore = {traffic.service(web, FRAME_BYTES),
            traffic.server(nat, FRAME_BYTES) + traffic.server(dr, FRAME_BYTES)};
        final long inBefore = fixture.pipeline.traffic().service(web, TrafficStatsDescriptor.IN_PACKETS);
        final long inBytesBefore = fixture.pipeline.traffic().service(web, TrafficStatsDescriptor.IN_BYTES);

        fixture.send(established);

        assertThat(counters.fastPath()).isEqualTo(5);
        assertThat(counters.frames()).isEqualTo(7);
        assertThat(counters.transmitted()).isEqualTo(6);
        assertThat(counters.dropped(DropReason.TRUNCATED)).isEqualTo(1);
        assertThat(traffic.service(web, FRAMES) - packetsBefore[0]).isEqualTo(2);
        assertThat(traffic.server(nat, FRAMES) - packetsBefore[1]).isEqualTo(1);
        assertThat(traffic.server(dr, FRAMES) - packetsBefore[2]).isEqualTo(1);
        final int bytes = established[0].length + established[2].length;
        assertThat(traffic.service(web, FRAME_BYTES) - bytesBefore[0]).isEqualTo(bytes);
        assertThat(traffic.server(nat, FRAME_BYTES) + traffic.server(dr, FRAME_BYTES) - bytesBefore[1])
            .isEqualTo(bytes);
        assertThat(fixture.pipeline.traffic().service(web, TrafficStatsDescriptor.IN_PACKETS) - inBefore)
            .isEqualTo(2);
        assertThat(fixture.pipeline.traffic().service(web, TrafficStatsDescriptor.IN_BYTES) - inBytesBefore)
            .as("IP datagrams, without their Ethernet headers").isEqualTo(bytes - 2 * 14);
    }

    /**
     * SYNs in a burst of established traffic: with connection reuse on, each SYN goes to the general path (the one to
     * a new client opens its connection, the one on an established connection right after it is tracked there) and
     * the frames after them return to the fast loop, the burst's last frame a SYN too; with reuse off, the SYN that
     * leaves an established connection's state as it is is the fast loop's, though the frame before it was not.
     */
    @ParameterizedTest(name = "connection reuse {0}")
    @ValueSource(booleans = {true, false})
    void shouldGiveSynsToTheGeneralPathAndTheFramesAfterThemToTheFastLoop(final boolean connReuse)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L);
        final DataPlaneSettings d = DataPlaneSettings.defaults();
        fixture.settings = new DataPlaneSettings(d.passUnmatched(), d.allowIpOptions(), d.allowFragments(),
            d.expireNodestConn(), d.expireQuiescentTemplate(), d.sloppyTcp(), connReuse, d.activeEstablishedOnly(),
            d.icmpRepliesPerSecond(), d.clampMss(), d.sweepSlotsPerBurst(), d.answerVipEcho());
        fixture.start();
        final IpAddress first = IpAddress.parse("198.51.100.7");
        final IpAddress second = IpAddress.parse("198.51.100.8");
        establish(fixture, first, second);
        final WorkerCounters counters = fixture.pipeline.counters();
        final long fastBefore = counters.fastPath();
        final long connectionsBefore = counters.connections();

        final PipelineFixture.Result[] results = fixture.send(
            frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.tcp(40000, 80, ACK, 10)),
            frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("198.51.100.9"), VIP, 64, Segment.tcp(40002, 80, SYN, 0)),
            frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.tcp(40000, 80, SYN, 0)),
            frame(JVS_MAC, ROUTER_MAC, second, VIP, 64, Segment.tcp(40001, 80, ACK, 10)),
            frame(JVS_MAC, ROUTER_MAC, second, VIP, 64, Segment.tcp(40001, 80, ACK, 20)),
            frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("198.51.100.10"), VIP, 64, Segment.tcp(40003, 80, SYN, 0)));

        assertThat(results).allSatisfy(result -> {
            assertThat(Verdict.kind(result.verdict())).isEqualTo(Verdict.TRANSMIT);
            assertThat(i32(result.frame(), 30)).as("to the server").isEqualTo(IpAddress.parse("192.168.1.2").v4());
            assertThat(checksumsValidV4(result.frame())).isTrue();
        });
        assertThat(counters.connections() - connectionsBefore).as("the two new clients'").isEqualTo(2);
        assertThat(fixture.pipeline.connectionsV4().size()).isEqualTo(4);
        assertThat(counters.fastPath() - fastBefore).as("the ACKs, and with reuse off the SYN that keeps its state")
            .isEqualTo(connReuse ? 3 : 4);
    }

    /**
     * A NAT server's reply on an established connection is the fast loop's, with the general path's counts and
     * rewrite; a reply that would change the state, one whose TTL runs out and one to a client with no next hop leave
     * it, and the general path answers them as before.
     */
    @Test
    void shouldFollowANatServersRepliesInTheFastLoopUntilOneNeedsTheGeneralPath()
    {
        final IpAddress client = IpAddress.parse("198.51.100.7");
        final IpAddress server = IpAddress.parse("192.168.1.2");
        final long serverMac = 0x02_00_00_00_01_02L;
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m")
            .neighbour("192.168.1.2", serverMac)
            .start();
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64, Segment.tcp(40000, 80, SYN, 0)));
        fixture.sendOne(frame(JVS_MAC, serverMac, server, client, 64, Segment.tcp(8080, 40000, SYN | ACK, 0)));
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64, Segment.tcp(40000, 80, ACK, 0)));
        final WorkerCounters counters = fixture.pipeline.counters();
        final TrafficStats traffic = fixture.pipeline.traffic();
        final DataPlane plane = fixture.publisher.current();
        final int slot = plane.slotOf(server(fixture, "192.168.1.2"));
        final int web = plane.serverService[slot];
        final long fastBefore = counters.fastPath();
        final long outBefore = traffic.service(web, TrafficStatsDescriptor.OUT_PACKETS);
        final long outBytesBefore = traffic.server(slot, TrafficStatsDescriptor.OUT_BYTES);
        final long serverFramesBefore = traffic.server(slot, FRAMES);

        final byte[] reply = frame(JVS_MAC, serverMac, server, client, 64, Segment.tcp(8080, 40000, ACK, 100));
        final PipelineFixture.Result answered = fixture.sendOne(reply);

        assertThat(Verdict.kind(answered.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(counters.fastPath() - fastBefore).as("the reply: the fast loop's").isEqualTo(1);
        final byte[] out = answered.frame();
        assertThat(mac(out, 0)).as("to the client's next hop").isEqualTo(ROUTER_MAC);
        assertThat(i32(out, 26)).as("from the virtual address").isEqualTo(VIP.v4());
        assertThat(u16(out, 34)).as("and port").isEqualTo(80);
        assertThat(i32(out, 30)).isEqualTo(client.v4());
        assertThat(checksumsValidV4(out)).isTrue();
        assertThat(traffic.service(web, TrafficStatsDescriptor.OUT_PACKETS) - outBefore).isEqualTo(1);
        assertThat(traffic.server(slot, TrafficStatsDescriptor.OUT_BYTES) - outBytesBefore)
            .isEqualTo(reply.length - 14);
        assertThat(traffic.server(slot, FRAMES) - serverFramesBefore).as("jvs's frame count of the server").isEqualTo(1);

        final long fastAfterReply = counters.fastPath();
        final long expiredBefore = counters.dropped(DropReason.TTL_EXPIRED);
        fixture.sendOne(frame(JVS_MAC, serverMac, server, client, 1, Segment.tcp(8080, 40000, ACK, 10)));
        assertThat(counters.dropped(DropReason.TTL_EXPIRED) - expiredBefore).as("TTL 1: the general path's")
            .isEqualTo(1);
        final PipelineFixture.Result closing =
            fixture.sendOne(frame(JVS_MAC, serverMac, server, client, 64, Segment.tcp(8080, 40000, FIN | ACK, 0)));
        assertThat(Verdict.kind(closing.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(counters.fastPath()).as("neither in the fast loop").isEqualTo(fastAfterReply);
    }

    /** Opens a connection from each client, port 40000 on, to the VIP's port 80: the SYNs in a burst, then the ACKs. */
    private static void establish(final PipelineFixture fixture, final IpAddress first, final IpAddress second)
    {
        fixture.send(frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.tcp(40000, 80, SYN, 0)),
            frame(JVS_MAC, ROUTER_MAC, second, VIP, 64, Segment.tcp(40001, 80, SYN, 0)));
        fixture.send(frame(JVS_MAC, ROUTER_MAC, first, VIP, 64, Segment.tcp(40000, 80, ACK, 0)),
            frame(JVS_MAC, ROUTER_MAC, second, VIP, 64, Segment.tcp(40001, 80, ACK, 0)));
    }

    private static RealServer server(final PipelineFixture fixture, final String address)
    {
        return fixture.table.allServers().stream()
            .filter(server -> server.address().equals(IpAddress.parse(address)))
            .findFirst().orElseThrow();
    }
}
