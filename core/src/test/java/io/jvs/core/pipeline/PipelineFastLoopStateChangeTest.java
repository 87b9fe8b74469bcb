package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.conn.TcpStates;
import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Verdict;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.ACK;
import static io.jvs.core.pipeline.TestFrames.FIN;
import static io.jvs.core.pipeline.TestFrames.JVS_MAC;
import static io.jvs.core.pipeline.TestFrames.ROUTER_MAC;
import static io.jvs.core.pipeline.TestFrames.SYN;
import static io.jvs.core.pipeline.TestFrames.Segment;
import static io.jvs.core.pipeline.TestFrames.frame;
import static io.jvs.core.pipeline.TestFrames.mac;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client's segment that changes its connection's state is the fast loop's, with the state, the entry's activity and
 * the server's counts the general path would give it, and a timer it moves sooner still bounds its block for a sweep
 * that skips idle blocks (replay's); the loop leaves to the general path the change that would assure a persistence
 * template.
 * Direct routing, so that the client's ACK establishes and its FIN moves to FIN_WAIT (the input-only table).
 */
class PipelineFastLoopStateChangeTest
{
    private static final IpAddress VIP = IpAddress.parse("10.0.0.50");
    private static final IpAddress CLIENT = IpAddress.parse("203.0.113.7");
    private static final long SERVER_MAC = 0x02_00_00_00_01_01L;
    private static final long SECOND_NS = 1_000_000_000L;

    @Test
    void shouldEstablishAndFinishAConnectionInTheFastLoop()
    {
        final PipelineFixture fixture = fixture("");
        final RealServer server = server(fixture);
        send(fixture, SYN);
        final long fastBefore = fixture.pipeline.counters().fastPath();

        send(fixture, ACK);
        assertThat(fixture.pipeline.counters().fastPath() - fastBefore).as("the ACK that establishes").isEqualTo(1);
        assertThat(state(fixture)).isEqualTo(TcpStates.ESTABLISHED);
        assertThat(flags(fixture) & ConnectionTable.FLAG_INACTIVE).isZero();
        assertThat(counts(server)).isEqualTo("1/0");

        send(fixture, FIN | ACK);
        assertThat(fixture.pipeline.counters().fastPath() - fastBefore).as("and the FIN").isEqualTo(2);
        assertThat(state(fixture)).isEqualTo(TcpStates.FIN_WAIT);
        assertThat(flags(fixture) & ConnectionTable.FLAG_INACTIVE).isNotZero();
        assertThat(counts(server)).isEqualTo("0/1");
    }

    @Test
    void shouldLeaveTheAckThatAssuresAPersistenceTemplateToTheGeneralPath()
    {
        final PipelineFixture fixture = fixture(" -p 300");
        send(fixture, SYN);
        final long fastBefore = fixture.pipeline.counters().fastPath();

        send(fixture, ACK);
        assertThat(fixture.pipeline.counters().fastPath()).as("the ACK: the general path's").isEqualTo(fastBefore);
        assertThat(state(fixture)).isEqualTo(TcpStates.ESTABLISHED);
        assertThat(flags(fixture) & ConnectionTable.FLAG_ASSURED).as("its template assured").isNotZero();
        assertThat(counts(server(fixture))).isEqualTo("1/0");

        send(fixture, FIN | ACK);
        assertThat(fixture.pipeline.counters().fastPath() - fastBefore).as("the FIN, once assured").isEqualTo(1);
        assertThat(counts(server(fixture))).isEqualTo("0/1");
    }

    @Test
    void shouldLowerTheSweepsBoundForATimerMovedSoonerInATableThatSkipsIdleBlocks()
    {
        final PipelineFixture fixture = fixture("");
        fixture.pipeline.connectionsV4().skipIdleBlocks();
        fixture.pipeline.connectionsV6().skipIdleBlocks();
        final RealServer server = server(fixture);
        send(fixture, SYN);
        send(fixture, ACK);
        // Past SYN_RECV's 60 s the sweep reads the block again and bounds it by ESTABLISHED's 900 s timer.
        fixture.nowNs += 61 * SECOND_NS;
        fixture.pipeline.sweep(fixture.nowNs, fixture.pipeline.connectionsV4().slots());
        final long fastBefore = fixture.pipeline.counters().fastPath();

        send(fixture, FIN | ACK);
        assertThat(fixture.pipeline.counters().fastPath() - fastBefore).as("FIN_WAIT's timer, sooner").isEqualTo(1);
        assertThat(state(fixture)).isEqualTo(TcpStates.FIN_WAIT);
        assertThat(counts(server)).isEqualTo("0/1");

        fixture.nowNs += 121 * SECOND_NS;
        fixture.pipeline.sweep(fixture.nowNs, fixture.pipeline.connectionsV4().slots());
        assertThat(fixture.pipeline.connectionsV4().size()).as("expired at FIN_WAIT's 120 s").isZero();
        assertThat(counts(server)).isEqualTo("0/0");
    }

    private static PipelineFixture fixture(final String serviceOptions)
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.50:80 -s rr" + serviceOptions, "-a -t 10.0.0.50:80 -r 192.168.1.1:80 -g")
            .neighbour("192.168.1.1", SERVER_MAC)
            .start();
    }

    private static void send(final PipelineFixture fixture, final int flags)
    {
        final PipelineFixture.Result result =
            fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, flags, 0)));
        assertThat(Verdict.kind(result.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(mac(result.frame(), 0)).isEqualTo(SERVER_MAC);
    }

    private static int slot(final PipelineFixture fixture)
    {
        final int slot = fixture.pipeline.connectionsV4().lookupForward(Ipv4Header.PROTOCOL_TCP, 0,
            CLIENT.v4() & 0xFFFF_FFFFL, 40000, 0, VIP.v4() & 0xFFFF_FFFFL, 80);
        assertThat(slot).as("the connection's entry").isNotNegative();
        return slot;
    }

    private static int state(final PipelineFixture fixture)
    {
        return fixture.pipeline.connectionsV4().state(slot(fixture));
    }

    private static int flags(final PipelineFixture fixture)
    {
        return fixture.pipeline.connectionsV4().flags(slot(fixture));
    }

    private static RealServer server(final PipelineFixture fixture)
    {
        return fixture.table.allServers().iterator().next();
    }

    private static String counts(final RealServer server)
    {
        return server.activeConnections() + "/" + server.inactiveConnections();
    }
}
