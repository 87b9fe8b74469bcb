package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Connections through the pipeline: a NAT connection the client closes, a direct-routing connection that
 * closes and one that is reset, with the server counters; idle timeouts, reuse of a closed entry by a new SYN,
 * removed servers, one-packet scheduling and a full table.
 */
class PipelineTrackingTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress SERVER = IpAddress.parse("192.168.1.2");
    private static final long SERVER_MAC = 0x02_00_00_00_01_02L;
    private static final long SECOND_NS = 1_000_000_000L;

    private PipelineFixture fixture(final String method)
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s wlc", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 " + method)
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
    }

    private static byte[] in(final int flags)
    {
        return frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(40000, 80, flags, 0));
    }

    private static byte[] out(final int flags)
    {
        return frame(JVS_MAC, SERVER_MAC, SERVER, CLIENT, 64, Segment.tcp(80, 40000, flags, 0));
    }

    private static RealServer server(final PipelineFixture fixture)
    {
        return fixture.table.allServers().get(0);
    }

    private static String counts(final RealServer server)
    {
        return server.activeConnections() + "/" + server.inactiveConnections();
    }

    @Test
    void ct1ShouldMoveANatConnectionThroughItsStatesAndCounters()
    {
        final PipelineFixture nat = fixture("-m");
        final RealServer server = server(nat);
        nat.sendOne(in(SYN));
        assertThat(counts(server)).as("IN S: SYN_RECV is active").isEqualTo("1/0");
        nat.sendOne(out(SYN | ACK));
        nat.sendOne(in(ACK));
        assertThat(counts(server)).as("ESTABLISHED").isEqualTo("1/0");
        nat.sendOne(in(FIN | ACK));
        assertThat(counts(server)).as("CLOSE_WAIT is inactive").isEqualTo("0/1");
        nat.sendOne(out(ACK));
        nat.sendOne(out(FIN | ACK));
        nat.sendOne(in(ACK));
        assertThat(counts(server)).as("TIME_WAIT").isEqualTo("0/1");
        // TIME_WAIT lasts 120 s: at 121 s the sweep removes it and uncounts it.
        nat.nowNs += 121 * SECOND_NS;
        nat.pipeline.sweep(nat.nowNs, nat.pipeline.connectionsV4().slots());
        assertThat(counts(server)).isEqualTo("0/0");
        assertThat(nat.pipeline.connectionsV4().size()).isZero();
    }

    @Test
    void ct2AndCt3ShouldUseTheInputOnlyTableForDirectRouting()
    {
        final PipelineFixture dr = fixture("-g");
        final RealServer server = server(dr);
        dr.sendOne(in(SYN));
        dr.sendOne(in(ACK));
        assertThat(counts(server)).isEqualTo("1/0");
        dr.sendOne(in(FIN | ACK));
        assertThat(counts(server)).as("INPUT_ONLY fin from ESTABLISHED: FIN_WAIT").isEqualTo("0/1");
        // A direct-routing connection that is reset: the reset closes it.
        final PipelineFixture reset = fixture("-g");
        reset.sendOne(in(SYN));
        reset.sendOne(in(ACK));
        reset.sendOne(in(RST));
        assertThat(counts(server(reset))).isEqualTo("0/1");
        // CLOSE lasts 10 s.
        reset.nowNs += 11 * SECOND_NS;
        reset.pipeline.sweep(reset.nowNs, reset.pipeline.connectionsV4().slots());
        assertThat(counts(server(reset))).isEqualTo("0/0");
    }

    @Test
    void shouldTreatAnIdleConnectionAsGoneWhenItsTimeoutHasPassed()
    {
        final PipelineFixture nat = fixture("-m");
        nat.sendOne(in(SYN));
        nat.sendOne(out(SYN | ACK));
        nat.sendOne(in(ACK));
        // ESTABLISHED lasts 900 s; a reply after 901 s belongs to no connection.
        nat.nowNs += 901 * SECOND_NS;
        assertThat(nat.sendOne(out(ACK)).verdict()).isEqualTo(Verdict.pass());
        assertThat(nat.sendOne(in(ACK)).verdict()).isEqualTo(Verdict.pass());
        assertThat(counts(server(nat))).isEqualTo("0/0");
    }

    @Test
    void shouldStartAfreshWhenASynArrivesForAClosedConnection()
    {
        final PipelineFixture nat = fixture("-m");
        nat.sendOne(in(SYN));
        nat.sendOne(in(ACK));
        // ESTABLISHED + RST: CLOSE.
        nat.sendOne(in(RST));
        assertThat(counts(server(nat))).isEqualTo("0/1");
        assertThat(nat.pipeline.counters().connections()).isEqualTo(1);
        assertThat(Verdict.kind(nat.sendOne(in(SYN)).verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(nat.pipeline.counters().connections()).isEqualTo(2);
        assertThat(counts(server(nat))).isEqualTo("1/0");
    }

    @Test
    void shouldDropPacketsOfAConnectionWhoseServerWasRemoved()
    {
        final PipelineFixture nat = fixture("-m");
        nat.sendOne(in(SYN));
        RuleParser.parse("-d -t 10.0.0.100:80 -r 192.168.1.2:80").applyTo(nat.table);
        nat.republish();
        assertThat(Verdict.toString(nat.sendOne(in(ACK)).verdict())).isEqualTo("drop:server-removed");
        assertThat(nat.pipeline.counters().dropped(DropReason.SERVER_REMOVED)).isEqualTo(1);
    }

    @Test
    void shouldForwardAConnectionAgainWhenItsRemovedServerIsAddedBack()
    {
        final PipelineFixture nat = fixture("-m");
        final RealServer server = server(nat);
        nat.sendOne(in(SYN));
        nat.sendOne(out(SYN | ACK));
        nat.sendOne(in(ACK));
        final int slot = server.forwardingSlot();
        assertThat(counts(server)).isEqualTo("1/0");

        RuleParser.parse("-d -t 10.0.0.100:80 -r 192.168.1.2:80").applyTo(nat.table);
        nat.republish();
        assertThat(Verdict.toString(nat.sendOne(in(ACK)).verdict())).isEqualTo("drop:server-removed");

        RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m -w 3").applyTo(nat.table);
        nat.republish();
        assertThat(server(nat)).as("the departed server itself is back").isSameAs(server);
        assertThat(server.weight()).isEqualTo(3);
        assertThat(server.forwardingSlot()).isEqualTo(slot);
        assertThat(counts(server)).as("its connection counts as ActiveConn again").isEqualTo("1/0");

        final PipelineFixture.Result forwarded = nat.sendOne(in(ACK));
        assertThat(Verdict.kind(forwarded.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(mac(forwarded.frame(), 0)).isEqualTo(SERVER_MAC);
        assertThat(i32(forwarded.frame(), 30)).as("NAT to the server").isEqualTo(SERVER.v4());
        assertThat(Verdict.kind(nat.sendOne(out(ACK)).verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(nat.pipeline.counters().connections()).as("no new connection").isEqualTo(1);
        nat.sendOne(in(FIN | ACK));
        assertThat(counts(server)).as("CLOSE_WAIT, on the same server").isEqualTo("0/1");
    }

    @Test
    void shouldDropNotPassAPacketOfAConnectionWhoseServiceWasDeletedAndForwardItOnceTheServiceIsBack()
    {
        final PipelineFixture nat = fixture("-m");
        final RealServer server = server(nat);
        nat.sendOne(in(SYN));
        nat.sendOne(out(SYN | ACK));
        nat.sendOne(in(ACK));

        RuleParser.parse("-D -t 10.0.0.100:80").applyTo(nat.table);
        nat.republish();
        // IPVS finds the connection before any service (ip_vs_in_hook) and drops the packet; passed to the host, the
        // box's kernel would reset the connection.
        assertThat(Verdict.toString(nat.sendOne(in(ACK)).verdict())).isEqualTo("drop:server-removed");
        assertThat(nat.pipeline.connectionsV4().size()).as("the entry stays until it expires").isEqualTo(1);

        RuleParser.parse("-A -t 10.0.0.100:80 -s wlc").applyTo(nat.table);
        RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m").applyTo(nat.table);
        nat.republish();
        assertThat(server(nat)).as("the server is taken back").isSameAs(server);
        final PipelineFixture.Result forwarded = nat.sendOne(in(ACK));
        assertThat(Verdict.kind(forwarded.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(i32(forwarded.frame(), 30)).as("NAT to the server").isEqualTo(SERVER.v4());
        assertThat(nat.pipeline.counters().connections()).as("no new connection").isEqualTo(1);
    }

    @Test
    void shouldExpireAndPassAPacketOfAConnectionWhoseServiceWasDeletedWithExpireNodestConn()
    {
        final PipelineFixture nat = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s wlc", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.2", SERVER_MAC);
        final DataPlaneSettings d = DataPlaneSettings.defaults();
        nat.settings = new DataPlaneSettings(d.passUnmatched(), d.allowIpOptions(), d.allowFragments(), true,
            d.expireQuiescentTemplate(), d.sloppyTcp(), d.connReuse(), d.activeEstablishedOnly(),
            d.icmpRepliesPerSecond(), d.clampMss(), d.sweepSlotsPerBurst(), d.answerVipEcho());
        nat.start();
        nat.sendOne(in(SYN));
        nat.sendOne(in(ACK));

        RuleParser.parse("-D -t 10.0.0.100:80").applyTo(nat.table);
        nat.republish();
        assertThat(nat.sendOne(in(ACK)).verdict()).as("expired, then no service takes it").isEqualTo(Verdict.pass());
        assertThat(nat.pipeline.connectionsV4().size()).isZero();
    }

    @Test
    void shouldKeepNothingForOnePacketScheduling()
    {
        final PipelineFixture ops = new PipelineFixture()
            .rules("-A -u 10.0.0.100:53 -s rr -o", "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -m")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        final byte[] query = frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(4000, 53, 20));
        assertThat(Verdict.kind(ops.sendOne(query).verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(ops.pipeline.connectionsV4().size()).isZero();
        assertThat(ops.pipeline.counters().connections()).isEqualTo(1);
    }

    @Test
    void shouldKeepTcpConnectionsOfAOnePacketFirewallMarkService()
    {
        final PipelineFixture ops = new PipelineFixture()
            .rules("-A -f 7 -s rr -o", "-a -f 7 -r 192.168.1.2 -m")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        ops.firewallMark = 7;
        assertThat(Verdict.kind(ops.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(4000, 53, 20)))
            .verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(ops.pipeline.connectionsV4().size()).as("a datagram: one packet, no entry").isZero();
        ops.sendOne(in(SYN));
        assertThat(ops.pipeline.connectionsV4().size()).as("a SYN: an entry, as the kernel's, only UDP is one packet")
            .isEqualTo(1);
        ops.firewallMark = 0;
        assertThat(Verdict.kind(ops.sendOne(out(SYN | ACK)).verdict())).as("its reply is NAT'd")
            .isEqualTo(Verdict.TRANSMIT);
        ops.firewallMark = 7;
        assertThat(Verdict.kind(ops.sendOne(in(ACK)).verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(ops.pipeline.counters().connections()).isEqualTo(2);
        assertThat(counts(server(ops))).isEqualTo("1/0");
    }

    @Test
    void shouldCountUdpConnectionsAsInactiveForTheirWholeLife()
    {
        final PipelineFixture nat = new PipelineFixture()
            .rules("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.1.2:53 -m")
            .neighbour("192.168.1.2", SERVER_MAC)
            .start();
        nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.udp(4000, 53, 20)));
        nat.sendOne(frame(JVS_MAC, SERVER_MAC, SERVER, CLIENT, 64, Segment.udp(53, 4000, 20)));
        assertThat(counts(server(nat))).isEqualTo("0/1");
        nat.nowNs += 301 * SECOND_NS;
        nat.pipeline.sweep(nat.nowNs, nat.pipeline.connectionsV4().slots());
        assertThat(counts(server(nat))).isEqualTo("0/0");
    }

    @Test
    void shouldRefuseNewConnectionsWhenTheTableIsFullOfEstablishedOnes()
    {
        final PipelineFixture nat = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m")
            .neighbour("192.168.1.2", SERVER_MAC);
        nat.publisher = new DataPlanePublisher(nat.plane());
        nat.pipeline = new Pipeline(nat.publisher, 0, 16, 16, 64, 256, 1000);
        for (int port = 1; port <= 16; port++)
        {
            nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(port, 80, SYN, 0)));
            nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(port, 80, ACK, 0)));
        }
        assertThat(nat.pipeline.connectionsV4().size()).isEqualTo(16);
        final PipelineFixture.Result refused = nat.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(17, 80, SYN, 0)));
        assertThat(Verdict.toString(refused.verdict())).isEqualTo("drop:conn-table-full");
        assertThat(server(nat).activeConnections()).isEqualTo(16);
    }
}
