package io.jvs.core.pipeline;

import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With expire_nodest_conn on, the kernel flushes the connections of a deleted server at once
 * (ip_vs_expire_nodest_conn_flush, queued by __ip_vs_del_dest for ipvsadm -d and for each server of a deleted
 * service) and deletes the persistence templates that placed them once they place nothing else; with it off the
 * connections stay until their timeout, their packets dropped.
 */
class PipelineExpireNodestFlushTest
{
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final long MAC_A = 0x02_00_00_00_01_01L;
    private static final long MAC_B = 0x02_00_00_00_01_02L;
    private static final int CLIENTS = 40;

    @ParameterizedTest(name = "expire_nodest_conn {0}")
    @ValueSource(booleans = {true, false})
    void shouldFlushADeletedServersConnectionsAndTheirTemplatesOnlyWithExpireNodestConn(final boolean expireNodest)
    {
        final TemplateTable templates = new TemplateTable(64);
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:443 -s rr -p 360 -M 255.255.255.255", "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m",
                "-a -t 10.0.0.100:443 -r 192.168.1.2:443 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B);
        fixture.settings = expireNodestConn(expireNodest);
        fixture.start();
        // Small tables, so a flush step covers many of their slots, and a table large enough that the flush takes
        // several steps: both tables are gone through whole.
        fixture.pipeline = new Pipeline(fixture.publisher, 0, Pipeline.FLUSH_SLOTS_PER_STEP * 4, 1024, 64, 256, 100,
            OffHeapAllocator.DIRECT, templates);
        final RealServer a = server(fixture, "192.168.1.1");
        final RealServer b = server(fixture, "192.168.1.2");
        final List<Integer> onA = new ArrayList<>();
        for (int client = 0; client < CLIENTS; client++)
        {
            final byte[] out = fixture.sendOne(syn(client)).frame();
            if (mac(out, 0) == MAC_A)
            {
                onA.add(client);
            }
        }
        assertThat(onA).hasSize(CLIENTS / 2);
        assertThat(a.totalConnections()).isEqualTo(CLIENTS / 2);
        assertThat(listed(templates, fixture)).isEqualTo(CLIENTS);

        fixture.rules("-d -t 10.0.0.100:443 -r 192.168.1.1:443");
        fixture.republish();
        // Bursts of other traffic and idle sweeps carry the flush on, a step at a time.
        for (int step = 0; step < 8; step++)
        {
            fixture.nowNs += 1_000_000;
            fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("203.0.113.9"), IpAddress.parse("10.9.9.9"), 64,
                Segment.tcp(1, 1, ACK, 0)));
            fixture.pipeline.sweep(fixture.nowNs, 0);
        }

        assertThat(a.totalConnections()).as("the deleted server's connections")
            .isEqualTo(expireNodest ? 0 : CLIENTS / 2);
        assertThat(b.totalConnections()).as("the other server's").isEqualTo(CLIENTS / 2);
        assertThat(listed(templates, fixture)).as("templates: the deleted server's go with their connections")
            .isEqualTo(expireNodest ? CLIENTS / 2 : CLIENTS);
        // A client of the deleted server starts afresh on the other one (a template or connection left behind
        // would have kept it on A, or dropped its packet).
        final PipelineFixture.Result again = fixture.sendOne(syn(onA.get(0)));
        if (expireNodest)
        {
            assertThat(mac(again.frame(), 0)).isEqualTo(MAC_B);
        }
        else
        {
            assertThat(Verdict.toString(again.verdict())).as("dropped while its connection lives")
                .isEqualTo(Verdict.toString(Verdict.drop(DropReason.SERVER_REMOVED)));
        }
    }

    @Test
    void shouldExpireADeletedServersTemplatesThatAlreadyPlaceNothing()
    {
        // ip_vs_expire_nodest_conn_flush goes through every entry of the connection table, templates included: a
        // template of the deleted server that controls no connection (n_control 0) is deleted too, not only those
        // its flushed connections leave placing nothing. Here the connections have ended before the -d.
        final TemplateTable templates = new TemplateTable(64);
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:443 -s rr -p 3600 -M 255.255.255.255",
                "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m", "-a -t 10.0.0.100:443 -r 192.168.1.2:443 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B);
        fixture.settings = expireNodestConn(true);
        fixture.start();
        fixture.pipeline = new Pipeline(fixture.publisher, 0, 1024, 1024, 64, 256, 100, OffHeapAllocator.DIRECT,
            templates);
        final RealServer a = server(fixture, "192.168.1.1");
        for (int client = 0; client < CLIENTS; client++)
        {
            fixture.sendOne(syn(client));
        }
        // The half-open connections time out (SYN_RECV, 60 s); their templates (3600 s) stay, placing nothing.
        for (int step = 0; step < 200; step++)
        {
            fixture.nowNs += 1_000_000_000L;
            fixture.pipeline.sweep(fixture.nowNs, 1024);
        }
        assertThat(fixture.pipeline.connectionsV4().size()).isZero();
        assertThat(listed(templates, fixture)).isEqualTo(CLIENTS);

        fixture.rules("-d -t 10.0.0.100:443 -r 192.168.1.1:443");
        fixture.republish();
        for (int step = 0; step < 8; step++)
        {
            fixture.nowNs += 1_000_000;
            fixture.pipeline.sweep(fixture.nowNs, 0);
        }
        assertThat(listed(templates, fixture)).as("the deleted server's idle templates are flushed too")
            .isEqualTo(CLIENTS / 2);
        for (int step = 0; step < 200; step++)
        {
            fixture.nowNs += 10_000_000;
            fixture.pipeline.sweep(fixture.nowNs, 0);
        }
        assertThat(a.totalConnections()).isZero();
        assertThat(templates.size()).as("and retired, no longer counting on the server's slot").isEqualTo(CLIENTS / 2);
    }

    @Test
    void shouldFlushALargeTableWithinTheIdleSweepsOfASecond()
    {
        // An idle worker sweeps about every 100 ms (it sleeps between polls), each sweep's budget its share of a
        // second of the table; the flush must keep up with that, not take 1024 slots a sweep: a table of a million
        // slots (the daemon's default) took some 100 s to flush, the deleted server's entries listed all along.
        final TemplateTable templates = new TemplateTable(1024);
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:443 -s rr -p 360 -M 255.255.255.255",
                "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m", "-a -t 10.0.0.100:443 -r 192.168.1.2:443 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B);
        fixture.settings = expireNodestConn(true);
        fixture.start();
        final int slots = Pipeline.FLUSH_SLOTS_PER_STEP * 64;
        fixture.pipeline = new Pipeline(fixture.publisher, 0, slots, 1024, 64, 256, 100, OffHeapAllocator.DIRECT,
            templates);
        final RealServer a = server(fixture, "192.168.1.1");
        for (int client = 0; client < CLIENTS; client++)
        {
            fixture.sendOne(syn(client));
        }
        assertThat(a.totalConnections()).isEqualTo(CLIENTS / 2);

        fixture.rules("-d -t 10.0.0.100:443 -r 192.168.1.1:443");
        fixture.republish();
        final int tableSlots = fixture.pipeline.connectionsV4().slots();
        for (int sweep = 0; sweep < 10; sweep++)
        {
            fixture.nowNs += 100_000_000L;
            fixture.pipeline.sweep(fixture.nowNs, tableSlots / 10);
        }

        assertThat(a.totalConnections()).as("flushed within a second of idle sweeps").isZero();
        assertThat(listed(templates, fixture)).as("and the templates they leave").isEqualTo(CLIENTS / 2);
    }

    @Test
    void shouldFlushEveryConnectionOfADeletedServiceWithExpireNodestConn()
    {
        // ipvsadm -D deletes the service's destinations one by one (__ip_vs_del_service), each queueing the flush.
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:443 -s rr", "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m",
                "-a -t 10.0.0.100:443 -r 192.168.1.2:443 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B);
        fixture.settings = expireNodestConn(true);
        fixture.start();
        final RealServer a = server(fixture, "192.168.1.1");
        final RealServer b = server(fixture, "192.168.1.2");
        for (int client = 0; client < 10; client++)
        {
            fixture.sendOne(syn(client));
        }
        assertThat(a.totalConnections() + b.totalConnections()).isEqualTo(10);

        fixture.rules("-D -t 10.0.0.100:443");
        fixture.republish();
        for (int step = 0; step < 8; step++)
        {
            fixture.nowNs += 1_000_000;
            fixture.pipeline.sweep(fixture.nowNs, 0);
        }

        assertThat(a.totalConnections()).isZero();
        assertThat(b.totalConnections()).isZero();
        assertThat(fixture.pipeline.connectionsV4().size()).isZero();
    }

    /** The kernel's defaults but expire_nodest_conn. */
    private static DataPlaneSettings expireNodestConn(final boolean on)
    {
        final DataPlaneSettings d = DataPlaneSettings.defaults();
        return new DataPlaneSettings(d.passUnmatched(), d.allowIpOptions(), d.allowFragments(), on,
            d.expireQuiescentTemplate(), d.sloppyTcp(), d.connReuse(), d.activeEstablishedOnly(),
            d.icmpRepliesPerSecond(), d.clampMss(), d.sweepSlotsPerBurst(), d.answerVipEcho());
    }

    private static byte[] syn(final int client)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("198.51.100." + (client + 1)), VIP, 64,
            Segment.tcp(1000, 443, SYN, 0));
    }

    private static RealServer server(final PipelineFixture fixture, final String address)
    {
        return fixture.table.allServers().stream().filter(server -> server.address().equals(IpAddress.parse(address)))
            .findFirst().orElseThrow();
    }

    private static int listed(final TemplateTable templates, final PipelineFixture fixture)
    {
        final int[] count = new int[1];
        templates.list(fixture.publisher.current(), fixture.nowNs,
            (service, high, low, serverSlot, deadline, controlled, assured) -> count[0]++);
        return count[0];
    }
}
