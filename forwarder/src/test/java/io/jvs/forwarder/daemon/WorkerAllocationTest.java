package io.jvs.forwarder.daemon;

import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.packet.L4Headers;
import io.jvs.forwarder.port.memory.FrameSource;
import io.jvs.forwarder.port.memory.FrameTemplates;
import io.jvs.forwarder.port.memory.MemoryPort;
import io.jvs.forwarder.port.memory.TransmitObserver;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The duty cycle allocates nothing: two workers on this thread, worker 0 receiving bursts of established
 * flows' segments from clients of both, processing its own and handing the rest to worker 1 through its ring,
 * worker 1 processing those, both transmitting NAT-rewritten frames by port 1, a third worker idle (its
 * sweeps); the thread's allocated bytes are counted over 100,000 bursts of each busy worker after warm-up
 * (the quietest of three such windows), the pipeline's sweeps during bursts included.
 */
class WorkerAllocationTest
{
    private static final int CLIENTS = 64;
    private static final int BURSTS = 100_000;

    @Test
    void shouldAllocateNothingPerBurstWithHandOff() throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (WorkerFarm farm = new WorkerFarm(3, 1024, DataPlaneSettings.defaults()))
        {
            final byte[][] syns = new byte[CLIENTS][];
            final byte[][] acks = new byte[CLIENTS][];
            for (int n = 0; n < CLIENTS; n++)
            {
                syns[n] = farm.toVip(n, L4Headers.TCP_SYN);
                acks[n] = farm.toVip(n, L4Headers.TCP_ACK);
            }
            // The clients' connections first, then their segments for ever.
            final FrameSource[] feed = {new FrameTemplates(CLIENTS, syns)};
            final FrameSource clients = (address, capacity) -> feed[0].next(address, capacity);
            final MemoryPort[] first = farm.ports(clients, null, TransmitObserver.NONE, TransmitObserver.NONE);
            final MemoryPort[] second = farm.ports(null, null, TransmitObserver.NONE, TransmitObserver.NONE);
            final MemoryPort[] third = farm.ports(null, null, TransmitObserver.NONE, TransmitObserver.NONE);
            final boolean[] handsOff = {true, false};
            final Worker zero = farm.worker(0, first, handsOff, WorkerFarm::ownerByParity);
            final Worker one = farm.worker(1, second, handsOff, WorkerFarm::ownerByParity);
            final Worker idle = farm.worker(2, third, handsOff, WorkerFarm::ownerByParity);
            run(zero, one, idle, 4);
            assertThat(zero.pipeline().connectionsV4().size() + one.pipeline().connectionsV4().size())
                .isEqualTo(CLIENTS);
            feed[0] = FrameTemplates.repeating(acks);

            run(zero, one, idle, BURSTS);
            // Compilation in a window (an OSR, a deoptimisation) can allocate for a while; an allocation per burst
            // would show in every window, so the quietest of three counts.
            long fewestBytes = Long.MAX_VALUE;
            for (int window = 0; window < 3; window++)
            {
                final long transmittedBefore = first[1].counters().txFrames() + second[1].counters().txFrames();
                final long before = threads.getCurrentThreadAllocatedBytes();
                run(zero, one, idle, BURSTS);
                final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
                final long transmitted = first[1].counters().txFrames() + second[1].counters().txFrames() -
                    transmittedBefore;
                System.out.printf("worker duty cycle, window %d: %d B allocated over %d bursts (%d frames sent)%n",
                    window, allocated, 2L * BURSTS, transmitted);
                assertThat(transmitted).as("frames transmitted").isEqualTo(32L * BURSTS);
                fewestBytes = Math.min(fewestBytes, allocated);
            }
            assertThat(farm.counters.get(0, DaemonCounters.HANDED_OFF)).isGreaterThanOrEqualTo(16L * 4 * BURSTS);
            assertThat(farm.counters.get(1, DaemonCounters.HANDOFF_RECEIVED))
                .isEqualTo(farm.counters.get(0, DaemonCounters.HANDED_OFF));
            assertThat(farm.counters.get(0, DaemonCounters.HANDOFF_DROPPED)).isZero();
            // 200,000 bursts: even one 16-byte object per thousand bursts would come to 3 KB.
            assertThat(fewestBytes).as("bytes allocated in the quietest window").isLessThan(2 * 1024);
        }
    }

    private static void run(final Worker zero, final Worker one, final Worker idle, final int bursts)
    {
        for (int i = 0; i < bursts; i++)
        {
            zero.doWork();
            one.doWork();
            idle.doWork();
        }
    }
}
