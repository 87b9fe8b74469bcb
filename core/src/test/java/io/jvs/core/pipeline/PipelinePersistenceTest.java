package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.PipelineFixture.Result;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Persistence templates in the pipeline, as the kernel's {@code ip_vs_sched_persist} keeps them: a client
 * network stays on one server until its template expires, workers share the templates, and a removed server's
 * template gives way to a new server.
 */
class PipelinePersistenceTest
{
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final long MAC_A = 0x02_00_00_00_01_01L;
    private static final long MAC_B = 0x02_00_00_00_01_02L;
    private static final long SECOND_NS = 1_000_000_000L;
    /** Where an untagged IPv4 frame's TCP destination port is. */
    private static final int DESTINATION_PORT = 14 + 20 + 2;

    private static PipelineFixture persistent()
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.100:443 -s rr -p 360 -M 255.255.255.0",
                "-a -t 10.0.0.100:443 -r 192.168.1.2:443 -m", "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B)
            .start();
    }

    private static byte[] syn(final String client, final int port)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.parse(client), VIP, 64, Segment.tcp(port, 443, SYN, 0));
    }

    private static byte[] rst(final String client, final int port)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.parse(client), VIP, 64, Segment.tcp(port, 443, RST | ACK, 0));
    }

    @Test
    void shouldSendAClientNetworkToOneServerUntilItsTemplateExpires()
    {
        final PipelineFixture fixture = persistent();
        assertThat(mac(fixture.sendOne(syn("10.0.0.2", 1000)).frame(), 0)).isEqualTo(MAC_A);
        assertThat(mac(fixture.sendOne(syn("10.0.0.3", 1000)).frame(), 0)).as("same /24").isEqualTo(MAC_A);
        assertThat(mac(fixture.sendOne(syn("10.0.1.2", 1000)).frame(), 0)).as("another /24").isEqualTo(MAC_B);
        assertThat(mac(fixture.sendOne(syn("10.0.2.2", 1000)).frame(), 0)).as("rr moves on").isEqualTo(MAC_A);
        final RealServer a = fixture.table.allServers().stream()
            .filter(server -> server.address().equals(IpAddress.parse("192.168.1.1"))).findFirst().orElseThrow();
        assertThat(a.persistentConnections()).as("templates of 10.0.0.0/24 and 10.0.2.0/24").isEqualTo(2);
        assertThat(a.activeConnections()).isEqualTo(3);

        // While its connections live the template stays, even past its timeout.
        fixture.nowNs += 400 * SECOND_NS;
        fixture.sendOne(syn("10.0.0.2", 1000));
        assertThat(mac(fixture.sendOne(syn("10.0.0.9", 1000)).frame(), 0)).isEqualTo(MAC_A);

        // Close them; 360 s later the template is gone and the network is scheduled afresh: rr, after A, gives B.
        for (final String client : new String[] {"10.0.0.2", "10.0.0.3", "10.0.0.9"})
        {
            fixture.sendOne(rst(client, 1000));
        }
        fixture.nowNs += 370 * SECOND_NS;
        fixture.pipeline.sweep(fixture.nowNs, fixture.pipeline.connectionsV4().slots());
        assertThat(a.activeConnections() + a.inactiveConnections()).isZero();
        assertThat(mac(fixture.sendOne(syn("10.0.0.77", 1000)).frame(), 0)).isEqualTo(MAC_B);
    }

    @Test
    void shouldShareTemplatesBetweenWorkers()
    {
        final PipelineFixture fixture = new PipelineFixture(2)
            .rules("-A -t 10.0.0.100:443 -s rr -p 360 -M 255.255.255.0",
                "-a -t 10.0.0.100:443 -r 192.168.1.2:443 -m", "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B)
            .start();
        final TemplateTable shared = new TemplateTable(64);
        final Pipeline first = new Pipeline(fixture.publisher, 0, 1024, 1024, 64, 256, 100,
            io.jvs.core.memory.OffHeapAllocator.DIRECT, shared);
        final Pipeline second = new Pipeline(fixture.publisher, 1, 1024, 1024, 64, 256, 100,
            io.jvs.core.memory.OffHeapAllocator.DIRECT, shared);
        fixture.pipeline = first;
        assertThat(mac(fixture.sendOne(syn("10.0.0.2", 1000)).frame(), 0)).isEqualTo(MAC_A);
        fixture.pipeline = second;
        // The second worker's own rr cursor starts at A: move it on, so only the template explains A.
        assertThat(mac(fixture.sendOne(syn("10.9.9.9", 1000)).frame(), 0)).isEqualTo(MAC_A);
        assertThat(mac(fixture.sendOne(syn("10.0.0.3", 2000)).frame(), 0)).as("template from worker 0")
            .isEqualTo(MAC_A);
        assertThat(shared.size()).isEqualTo(2);
    }

    @Test
    void shouldGiveATemplateANewServerWhenItsServerIsRemoved()
    {
        final PipelineFixture fixture = persistent();
        assertThat(mac(fixture.sendOne(syn("10.0.0.2", 1000)).frame(), 0)).isEqualTo(MAC_A);
        io.jvs.core.rules.RuleParser.parse("-d -t 10.0.0.100:443 -r 192.168.1.1:443").applyTo(fixture.table);
        fixture.republish();
        final PipelineFixture.Result next = fixture.sendOne(syn("10.0.0.3", 1000));
        assertThat(Verdict.kind(next.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(mac(next.frame(), 0)).isEqualTo(MAC_B);
        assertThat(mac(fixture.sendOne(syn("10.0.0.4", 1000)).frame(), 0)).isEqualTo(MAC_B);
    }

    @Test
    void shouldFollowATemplateThroughItsServiceDeletedAndCreatedAgain()
    {
        final PipelineFixture fixture = persistent();
        assertThat(mac(fixture.sendOne(syn("10.0.0.2", 1000)).frame(), 0)).isEqualTo(MAC_A);
        assertThat(mac(fixture.sendOne(syn("10.0.1.2", 1000)).frame(), 0)).isEqualTo(MAC_B);

        // A keepalived restart: the service deleted, then made again with the same servers, which take back their
        // slots (their connections and templates count on them).
        fixture.rules("-D -t 10.0.0.100:443");
        fixture.republish();
        fixture.rules("-A -t 10.0.0.100:443 -s rr -p 360 -M 255.255.255.0",
            "-a -t 10.0.0.100:443 -r 192.168.1.2:443 -m", "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m");
        fixture.republish();

        // The new service's rr starts at A; the network's template, keyed by address and port as the kernel's is,
        // still gives B.
        assertThat(mac(fixture.sendOne(syn("10.0.1.3", 1000)).frame(), 0)).as("10.0.1.0/24's template")
            .isEqualTo(MAC_B);
        assertThat(mac(fixture.sendOne(syn("10.0.2.2", 1000)).frame(), 0)).as("a new network: the new rr")
            .isEqualTo(MAC_A);
    }

    @Test
    void shouldSendAnFtpClientsOtherConnectionsToItsControlConnectionsServerThroughAPortZeroService()
    {
        // ip_vs_sched_persist keys an FTP service's templates with port 0, as a port-0 service's: the data
        // connections (other ports, the port-0 service) find the server of the control connection (port 21).
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:21 -s rr -p 360", "-a -t 10.0.0.100:21 -r 192.168.1.2 -g",
                "-a -t 10.0.0.100:21 -r 192.168.1.1 -g",
                "-A -t 10.0.0.100:0 -s rr -p 360", "-a -t 10.0.0.100:0 -r 192.168.1.1 -g",
                "-a -t 10.0.0.100:0 -r 192.168.1.2 -g",
                "-A -t 10.0.0.100:443 -s rr -p 360", "-a -t 10.0.0.100:443 -r 192.168.1.1 -g",
                "-a -t 10.0.0.100:443 -r 192.168.1.2 -g")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B)
            .start();
        final IpAddress client = IpAddress.parse("10.0.0.2");
        assertThat(mac(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
            Segment.tcp(1000, 21, SYN, 0))).frame(), 0)).as("the control connection").isEqualTo(MAC_A);
        assertThat(mac(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
            Segment.tcp(1001, 30000, SYN, 0))).frame(), 0))
            .as("a data connection: the port-0 service's rr would give B").isEqualTo(MAC_A);
        assertThat(mac(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
            Segment.tcp(1002, 443, SYN, 0))).frame(), 0)).as("another port's service keeps templates of its own")
            .isEqualTo(MAC_B);
    }

    @Test
    void shouldKeepThePacketsPortForAPersistentServiceOfPortZeroOrOfAMarkWhateverItsServersPort()
    {
        // ip_vs_sched_persist gives a connection its server's port only when the packet came to the service's port
        // (dport == svc->port && dest->port): never for a port-0 or firewall-mark service, whose port is 0.
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:0 -s rr -p 60", "-a -t 10.0.0.100:0 -r 192.168.1.1:8080 -m",
                "-A -f 7 -s rr -p 60", "-a -f 7 -r 192.168.1.2:8080 -m",
                "-A -f 8 -s rr", "-a -f 8 -r 192.168.1.3:8080 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B)
            .neighbour("192.168.1.3", 0x02_00_00_00_01_03L)
            .start();
        final IpAddress client = IpAddress.parse("198.51.100.7");
        final byte[] portZero = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
            Segment.tcp(1000, 5000, SYN, 0))).frame();
        assertThat(mac(portZero, 0)).isEqualTo(MAC_A);
        assertThat(u16(portZero, DESTINATION_PORT)).as("port 0, persistent").isEqualTo(5000);
        fixture.firewallMark = 7;
        final byte[] marked = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, IpAddress.parse("10.0.0.200"), 64,
            Segment.tcp(1001, 5001, SYN, 0))).frame();
        assertThat(mac(marked, 0)).isEqualTo(MAC_B);
        assertThat(u16(marked, DESTINATION_PORT)).as("a mark, persistent").isEqualTo(5001);
        fixture.firewallMark = 8;
        final byte[] scheduled = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, IpAddress.parse("10.0.0.200"),
            64, Segment.tcp(1002, 5002, SYN, 0))).frame();
        assertThat(u16(scheduled, DESTINATION_PORT)).as("a mark without persistence: ip_vs_schedule's dest->port")
            .isEqualTo(8080);
    }

    @Test
    void shouldSendAnFtpDataConnectionUnderNatToItsOwnPortOnTheControlConnectionsServer()
    {
        // The port-0 service's data connection follows the FTP service's template to that service's server, whose
        // port is 21; ip_vs_sched_persist still gives the connection the packet's port, since the packet did not
        // come to the port-0 service's port: the data goes to 192.168.1.1:30000, not to port 21.
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:21 -s rr -p 360", "-a -t 10.0.0.100:21 -r 192.168.1.2:21 -m",
                "-a -t 10.0.0.100:21 -r 192.168.1.1:21 -m",
                "-A -t 10.0.0.100:0 -s rr -p 360", "-a -t 10.0.0.100:0 -r 192.168.1.1 -m",
                "-a -t 10.0.0.100:0 -r 192.168.1.2 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B)
            .start();
        final IpAddress client = IpAddress.parse("10.0.0.2");
        final byte[] control = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
            Segment.tcp(1000, 21, SYN, 0))).frame();
        assertThat(mac(control, 0)).isEqualTo(MAC_A);
        assertThat(u16(control, DESTINATION_PORT)).as("the control connection: its server's port").isEqualTo(21);
        final byte[] data = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
            Segment.tcp(1001, 30000, SYN, 0))).frame();
        assertThat(mac(data, 0)).as("the control connection's server").isEqualTo(MAC_A);
        assertThat(u16(data, DESTINATION_PORT)).as("the data connection: the packet's port").isEqualTo(30000);
        // The first ACK establishes the connection (the general path), the second one stays in its state (the
        // established fast loop, which must not take the port of the server's own service's rule).
        for (int ack = 0; ack < 2; ack++)
        {
            final byte[] more = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
                Segment.tcp(1001, 30000, ACK, 0))).frame();
            assertThat(u16(more, DESTINATION_PORT)).as("the connection's later packets").isEqualTo(30000);
        }
        // The server answers from the port the connection went to, and the answer is NAT's reply.
        final Result reply = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("192.168.1.1"), client, 64,
            Segment.tcp(30000, 1001, SYN | ACK, 0)));
        assertThat(Verdict.kind(reply.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(u16(reply.frame(), DESTINATION_PORT - 2)).as("from the virtual port").isEqualTo(30000);
        assertThat(i32(reply.frame(), 14 + 12)).as("from the VIP").isEqualTo(VIP.v4());
    }

    @Test
    void shouldKeepAnOpenConnectionsPortWhenAnEditChangesItsServicesPersistence()
    {
        // The kernel fixes cp->dport when it makes the connection: ipvsadm -E taking -p off a firewall-mark service
        // (whose new connections then go to the server's port) does not move the ones already open, nor putting it
        // back.
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -f 7 -s rr -p 60", "-a -f 7 -r 192.168.1.1:8080 -m")
            .neighbour("192.168.1.1", MAC_A)
            .start();
        fixture.firewallMark = 7;
        final IpAddress client = IpAddress.parse("198.51.100.7");
        assertThat(u16(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
            Segment.tcp(1000, 5000, SYN, 0))).frame(), DESTINATION_PORT)).isEqualTo(5000);
        fixture.rules("-E -f 7 -s rr");
        fixture.republish();
        for (int ack = 0; ack < 2; ack++)
        {
            // The first ACK by the general path, the second by the established fast loop.
            assertThat(u16(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
                Segment.tcp(1000, 5000, ACK, 0))).frame(), DESTINATION_PORT)).as("opened while persistent")
                .isEqualTo(5000);
        }
        assertThat(u16(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
            Segment.tcp(1001, 5001, SYN, 0))).frame(), DESTINATION_PORT)).as("a new one: the server's port")
            .isEqualTo(8080);
        fixture.firewallMark = 0;
        final Result reply = fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("192.168.1.1"), client, 64,
            Segment.tcp(5000, 1000, ACK, 0)));
        assertThat(Verdict.kind(reply.verdict())).as("the open connection's server answers from 5000")
            .isEqualTo(Verdict.TRANSMIT);
        fixture.firewallMark = 7;
        fixture.rules("-E -f 7 -s rr -p 60");
        fixture.republish();
        for (int ack = 0; ack < 2; ack++)
        {
            assertThat(u16(fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64,
                Segment.tcp(1001, 5001, ACK, 0))).frame(), DESTINATION_PORT)).as("opened while not persistent")
                .isEqualTo(8080);
        }
    }
}
