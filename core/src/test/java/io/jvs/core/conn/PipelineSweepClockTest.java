package io.jvs.core.conn;

import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlanePublisher;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pipeline's first burst starts the sweep's clock: its tables hold nothing yet, so it owes no sweep for the time
 * before it (a replay's first burst comes at its capture's clock, years after zero, and used to sweep both tables end
 * to end before the code was compiled). From then on each table is swept once a period, as before.
 */
class PipelineSweepClockTest
{
    private static final long START_NS = 1_767_225_600L * 1_000_000_000L;

    @Test
    void shouldOweNoSweepForTheTimeBeforeTheFirstBurst()
    {
        final ServiceTable services = new ServiceTable(new SchedulerSettings(SchedulerFlags.NONE, 1,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS));
        final DataPlane plane = new DataPlaneBuilder(64, 256).build(services, new Topology.Builder()
            .port(0, 0x02_00_00_00_00_01L, 1500, IpAddress.parse("10.0.0.1"), IpAddress.parse("2001:db8::1"))
            .build(), new ConnectionTimeouts(), DataPlaneSettings.defaults(), List.of());
        final Pipeline pipeline = new Pipeline(new DataPlanePublisher(plane), 0, 4096, 4096, 64, 256, 1000);
        final int slotsPerBurst = 64;
        pipeline.limitBurstSweep(slotsPerBurst);
        final FrameBurst burst = new FrameBurst();

        pipeline.process(burst, START_NS);
        pipeline.process(burst, START_NS);
        assertThat(pipeline.connectionsV4().sweepCursor()).as("slots swept by the first bursts").isZero();
        assertThat(pipeline.connectionsV6().sweepCursor()).isZero();

        // A period later the whole table is due, of which a burst sweeps its limit.
        pipeline.process(burst, START_NS + Pipeline.SWEEP_PERIOD_NS);
        assertThat(pipeline.connectionsV4().sweepCursor()).isEqualTo(slotsPerBurst);
    }
}
