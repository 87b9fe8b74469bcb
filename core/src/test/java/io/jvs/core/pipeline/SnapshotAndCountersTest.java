package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a data-plane snapshot answers about its servers and settings, and a worker's counters taking back a
 * frame it held (it waits for its next hop's MAC and will be counted again with its final verdict).
 */
class SnapshotAndCountersTest
{
    @Test
    void shouldNameItsServersBySlotAndTheirSlotsByServer()
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m",
                "-a -t 10.0.0.100:80 -r 192.168.1.3:80 -g", "-A -u 10.0.0.100:53 -s rr");
        final DataPlane plane = fixture.plane();
        // Slots for as many services and servers as the builder was made for.
        assertThat(plane.serviceCount()).isEqualTo(fixture.builder.maxServices()).isEqualTo(64);
        assertThat(plane.serverSlots()).isEqualTo(fixture.builder.maxServers()).isEqualTo(256);
        assertThat(plane.settings()).isEqualTo(fixture.settings);
        assertThat(plane.timeouts()).isSameAs(fixture.timeouts);
        assertThat(plane.topology()).isNotNull();
        int found = 0;
        for (int slot = 1; slot < plane.serverSlots(); slot++)
        {
            final RealServer server = plane.server(slot);
            if (server != null)
            {
                found++;
                assertThat(plane.slotOf(server)).isEqualTo(slot);
                assertThat(plane.forwardMethod(slot)).isEqualTo(
                    server.address().equals(IpAddress.parse("192.168.1.2")) ? ForwardMethod.NAT : ForwardMethod.DR);
            }
        }
        assertThat(found).isEqualTo(2);
        assertThat(plane.server(0)).isNull();
        assertThat(plane.server(-1)).isNull();
        assertThat(plane.server(plane.serverSlots())).isNull();
        assertThat(plane.slotOf(new RealServer(IpAddress.parse("192.168.1.2"), 8080, ForwardMethod.NAT, 1))).isZero();
    }

    @Test
    void shouldTakeBackTheCountOfAHeldFrame()
    {
        final PipelineFixture fixture = new PipelineFixture().rules("-A -t 10.0.0.100:80 -s rr").start();
        final WorkerCounters counters = fixture.pipeline.counters();
        // A frame passed to the host, and one dropped as truncated.
        fixture.sendOne(TestFrames.frame(TestFrames.JVS_MAC, TestFrames.ROUTER_MAC, IpAddress.parse("198.51.100.7"),
            IpAddress.parse("10.0.0.200"), 64, TestFrames.Segment.tcp(40000, 80, TestFrames.SYN, 0)));
        fixture.sendOne(new byte[13]);
        assertThat(counters.frames()).isEqualTo(2);
        assertThat(counters.passed()).isEqualTo(1);
        assertThat(counters.dropped(DropReason.TRUNCATED)).isEqualTo(1);

        counters.retract(Verdict.pass());
        assertThat(counters.frames()).isEqualTo(1);
        assertThat(counters.passed()).isZero();
        assertThat(counters.dropped()).isEqualTo(1);
        counters.retract(Verdict.drop(DropReason.TRUNCATED));
        assertThat(counters.frames()).isZero();
        assertThat(counters.dropped()).isZero();
        assertThat(counters.dropped(DropReason.TRUNCATED)).isZero();
    }
}
