package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A worker reads the configuration only through its snapshot: changes made to the live service table
 * take effect when the conductor publishes the next one, never half-way.
 */
class PipelineSnapshotTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final long MAC_A = 0x02_00_00_00_01_01L;
    private static final long MAC_B = 0x02_00_00_00_01_02L;

    private static PipelineFixture fixture()
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m",
                "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B)
            .start();
    }

    private static long serverMac(final PipelineFixture fixture, final int clientPort)
    {
        return mac(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(clientPort, 80, SYN, 0))).frame(), 0);
    }

    @Test
    void shouldApplyAnEditedServiceOnlyFromTheNextSnapshot()
    {
        final PipelineFixture fixture = fixture();
        fixture.rules("-E -t 10.0.0.100:80 -s rr -p 360");
        // Still the published snapshot's settings: no persistence, rr alternates.
        assertThat(serverMac(fixture, 1000)).isEqualTo(MAC_A);
        assertThat(serverMac(fixture, 1001)).isEqualTo(MAC_B);
        assertThat(fixture.publisher.current().serviceSettings(0).persistent()).isFalse();

        fixture.republish();
        assertThat(fixture.publisher.current().serviceSettings(0).persistent()).isTrue();
        final long first = serverMac(fixture, 1002);
        assertThat(serverMac(fixture, 1003)).as("persistent now").isEqualTo(first);
    }

    @Test
    void shouldKeepAConnectionsMethodWhenItsServerIsEdited()
    {
        // As the kernel: ip_vs_bind_dest copies the server's method into the connection, so `ipvsadm -e ... -g`
        // (or a reload that changes -m to -g) applies to new connections; a NAT connection stays NAT both ways.
        final PipelineFixture fixture = fixture();
        final IpAddress serverA = IpAddress.parse("192.168.1.1");
        assertThat(serverMac(fixture, 1000)).isEqualTo(MAC_A);
        fixture.rules("-e -t 10.0.0.100:80 -r 192.168.1.1:80 -g");
        fixture.republish();

        final PipelineFixture.Result[] inbound = fixture.send(
            frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(1000, 80, ACK, 1)),
            frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(1000, 80, ACK, 2)),
            frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64, Segment.tcp(1000, 80, ACK, 3)));
        for (final PipelineFixture.Result result : inbound)
        {
            assertThat(Verdict.kind(result.verdict())).isEqualTo(Verdict.TRANSMIT);
            assertThat(mac(result.frame(), 0)).isEqualTo(MAC_A);
            assertThat(i32(result.frame(), 14 + 16)).as("still NAT: the server's address").isEqualTo(serverA.v4());
        }
        final PipelineFixture.Result reply = fixture.sendOne(frame(JVS_MAC, MAC_A, serverA, CLIENT, 64,
            Segment.tcp(80, 1000, ACK, 1)));
        assertThat(Verdict.kind(reply.verdict())).as("the server's reply is still taken back").isEqualTo(
            Verdict.TRANSMIT);
        assertThat(i32(reply.frame(), 14 + 12)).as("from the VIP").isEqualTo(VIP.v4());

        // rr goes on to B, then A again: a new connection to A is routed directly.
        assertThat(serverMac(fixture, 1001)).isEqualTo(MAC_B);
        final PipelineFixture.Result direct = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(1002, 80, SYN, 0)));
        assertThat(mac(direct.frame(), 0)).isEqualTo(MAC_A);
        assertThat(i32(direct.frame(), 14 + 16)).as("DR keeps the VIP").isEqualTo(VIP.v4());
    }

    @Test
    void shouldForwardByTheSnapshotsMethodUntilTheNextIsPublished()
    {
        final PipelineFixture fixture = fixture();
        fixture.rules("-e -t 10.0.0.100:80 -r 192.168.1.1:80 -g");
        final PipelineFixture.Result nat = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(1000, 80, SYN, 0)));
        assertThat(Verdict.kind(nat.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(i32(nat.frame(), 14 + 16)).as("NAT rewrote the destination").isEqualTo(
            IpAddress.parse("192.168.1.1").v4());
        final int slot = fixture.pipeline.connectionsV4().lookupForward(TCP, 0, CLIENT.low(), 1000, 0, VIP.low(), 80);
        assertThat(fixture.pipeline.connectionsV4().isNoOutput(slot)).as("a NAT connection expects replies")
            .isFalse();

        fixture.republish();
        // rr goes on to B (NAT), then back to A, now direct routing.
        assertThat(mac(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(1001, 80, SYN, 0))).frame(), 0)).isEqualTo(MAC_B);
        final PipelineFixture.Result direct = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, VIP, 64,
            Segment.tcp(1002, 80, SYN, 0)));
        assertThat(mac(direct.frame(), 0)).isEqualTo(MAC_A);
        assertThat(i32(direct.frame(), 14 + 16)).as("DR keeps the VIP").isEqualTo(VIP.v4());
        final int next = fixture.pipeline.connectionsV4().lookupForward(TCP, 0, CLIENT.low(), 1002, 0, VIP.low(), 80);
        assertThat(fixture.pipeline.connectionsV4().isNoOutput(next)).isTrue();
    }
}
