package io.jvs.core.pipeline;

import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With epochs each worker retires the expired templates of its own share of the table, from its idle
 * loop as well as after bursts, so a worker without traffic still does its part.
 */
class PipelineTemplateSweepTest
{
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final long SECOND_NS = 1_000_000_000L;

    @Test
    void shouldRetireEachSharesTemplatesByItsOwnWorker()
    {
        final PipelineFixture fixture = new PipelineFixture(2)
            .rules("-A -t 10.0.0.100:443 -s rr -p 60", "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m")
            .neighbour("192.168.1.1", 0x02_00_00_00_01_01L)
            .start();
        final WorkerEpochs epochs = new WorkerEpochs(2);
        final TemplateTable shared = new TemplateTable(64);
        final Pipeline busy = new Pipeline(fixture.publisher, 0, 1024, 1024, 64, 256, 0, OffHeapAllocator.DIRECT,
            shared, epochs);
        final Pipeline idle = new Pipeline(fixture.publisher, 1, 1024, 1024, 64, 256, 0, OffHeapAllocator.DIRECT,
            shared, epochs);
        fixture.pipeline = busy;
        final int clients = 200;
        for (int client = 0; client < clients; client++)
        {
            final IpAddress address = IpAddress.ofV4(0x0B00_0000 + client);
            fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, address, VIP, 64, Segment.tcp(1000, 443, SYN, 0)));
            fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, address, VIP, 64, Segment.tcp(1000, 443, RST | ACK, 0)));
        }
        final RealServer server = fixture.table.allServers().getFirst();
        assertThat(shared.size()).isEqualTo(clients);
        assertThat(server.persistentConnections()).isEqualTo(clients);

        // Long after: the busy worker's idle sweeps end its connections, then retire its share only.
        fixture.nowNs += 120 * SECOND_NS;
        for (int pass = 0; pass < 3; pass++)
        {
            busy.sweep(fixture.nowNs, busy.connectionsV4().slots());
        }
        assertThat(server.totalConnections()).isZero();
        fixture.nowNs += Pipeline.SWEEP_PERIOD_NS;
        busy.sweep(fixture.nowNs, 1);
        final int left = shared.size();
        assertThat(left).as("the other worker's share is not this one's to sweep").isPositive().isLessThan(clients);

        idle.sweep(fixture.nowNs, idle.connectionsV4().slots());
        assertThat(shared.size()).isZero();
        assertThat(server.persistentConnections()).isZero();
    }
}
