package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sweep that rides on bursts: each connection table is covered once per second of traffic, however the
 * bursts are spaced, so connections that expired leave without a sweep call of their own; and a burst that
 * follows another at once sweeps nothing.
 */
class PipelineSweepPacingTest
{
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final long MILLISECOND_NS = 1_000_000L;

    private static PipelineFixture fixture()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -m")
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L);
        // UDP connections live 1 s.
        fixture.timeouts.set(900, 120, 1);
        return fixture.start();
    }

    private static byte[] query(final int client)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.ofV4(0xC633_6400 + client), VIP, 64, Segment.udp(5353, 53, 8));
    }

    /** A frame that touches no connection: an ARP-like frame of another EtherType, passed to the host. */
    private static byte[] idle()
    {
        return new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, (byte)0x88, (byte)0xB5, 0, 0};
    }

    private static RealServer server(final PipelineFixture fixture)
    {
        return fixture.publisher.current().servers[1];
    }

    /** Opens 200 UDP connections, one a client, and returns their server. */
    private static RealServer openConnections(final PipelineFixture fixture)
    {
        for (int client = 0; client < 200; client++)
        {
            fixture.sendOne(query(client));
        }
        return server(fixture);
    }

    @Test
    void shouldSweepTheWholeTableOverASecondOfBursts()
    {
        final PipelineFixture fixture = fixture();
        final RealServer server = openConnections(fixture);
        assertThat(server.activeConnections() + server.inactiveConnections()).isEqualTo(200);
        // Two seconds later every one has expired; bursts every 10 ms for a second sweep them all.
        fixture.nowNs += 2_000 * MILLISECOND_NS;
        fixture.sendOne(idle());
        for (int burst = 0; burst < 100; burst++)
        {
            fixture.nowNs += 10 * MILLISECOND_NS;
            fixture.sendOne(idle());
        }
        assertThat(server.activeConnections() + server.inactiveConnections()).isZero();
    }

    @Test
    void shouldSweepWithTheFirstBurstAfterAPauseAndNotWithBurstsThatFollowAtOnce()
    {
        final PipelineFixture fixture = fixture();
        final RealServer server = openConnections(fixture);
        // Every connection expired during the pause: the first burst after it sweeps (about) the whole table.
        fixture.nowNs += 5_000 * MILLISECOND_NS;
        fixture.sendOne(idle());
        final int left = server.activeConnections() + server.inactiveConnections();
        assertThat(left).isLessThan(20);
        // Bursts with no time between them earn no sweep, nor does 1 ms, below the 64 slots a sweep is worth.
        for (int burst = 0; burst < 5; burst++)
        {
            fixture.sendOne(idle());
        }
        fixture.nowNs += MILLISECOND_NS;
        fixture.sendOne(idle());
        assertThat(server.activeConnections() + server.inactiveConnections()).isEqualTo(left);
        // Two more seconds of bursts and none is left.
        for (int burst = 0; burst < 200; burst++)
        {
            fixture.nowNs += 10 * MILLISECOND_NS;
            fixture.sendOne(idle());
        }
        assertThat(server.activeConnections() + server.inactiveConnections()).isZero();
    }

    @Test
    void shouldSweepNoMoreThanItsLimitWithTheFirstBurstAfterAPause()
    {
        final PipelineFixture fixture = fixture();
        final RealServer server = openConnections(fixture);
        // The fixture's tables hold 4096 connections; 64 slots a burst are about 1/128 of one.
        fixture.pipeline.limitBurstSweep(64);
        final int slots = fixture.pipeline.connectionsV4().slots();
        fixture.nowNs += 5_000 * MILLISECOND_NS;
        fixture.sendOne(idle());
        final int left = server.activeConnections() + server.inactiveConnections();
        assertThat(200 - left).as("expired entries one burst removed").isLessThanOrEqualTo(200 * 64 * 2 / slots + 8)
            .isLessThan(100);
        // The rest of what was due stays due: the bursts that follow carry on with it, 64 slots each.
        for (int burst = 0; burst < 2 * slots / 64; burst++)
        {
            fixture.nowNs += MILLISECOND_NS;
            fixture.sendOne(idle());
        }
        assertThat(server.activeConnections() + server.inactiveConnections()).isZero();
    }

    @Test
    void shouldLeaveNothingDueForTheNextBurstAfterASweepFromTheIdleLoop()
    {
        final PipelineFixture fixture = fixture();
        final RealServer server = openConnections(fixture);
        fixture.nowNs += 5_000 * MILLISECOND_NS;
        // The idle loop sweeps a little; the next burst owes nothing for the pause the idle loop accounted for.
        fixture.pipeline.sweep(fixture.nowNs, 1);
        fixture.sendOne(idle());
        assertThat(server.activeConnections() + server.inactiveConnections()).isGreaterThan(190);
    }
}
