package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.forwarder.port.Port;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data path allocates nothing: a generator (an AF_XDP port on g0 transmitting a burst of copies) and the
 * forwarding pair run in this thread, and the quietest of five windows of bursts allocates no byte. The
 * quietest, because a window may catch a one-off (a class load, a deoptimisation).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AfXdpAllocationTest
{
    private static final int BURST = 32;
    private static final int WARM_UP_ROUNDS = 20_000;
    private static final int WINDOW_ROUNDS = 5_000;

    @Test
    void shouldAllocateNothingPerBurstOnceWarm()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final AfXdpSettings small = AfXdpSettings.defaults(XdpMode.SKB).withChunks(4096)
            .withRings(1024, 1024, 1024, 1024);
        try (ForwardingNetwork network = new ForwardingNetwork("afxa");
             AfXdpForwardingPair generatorPair = TestNetwork.callIn(network.generator, () ->
                 AfXdpForwardingPair.open(Syscalls.create(), ForwardingNetwork.GENERATOR_DEVICE,
                     ForwardingNetwork.GENERATOR_DEVICE, small));
             AfXdpForwardingPair pair = AfXdpForwardingTest.openIn(network.forwarder, small);
             Arena arena = Arena.ofConfined())
        {
            final Port generator = generatorPair.transmitPort();
            final FrameBurst burst = new FrameBurst();
            final int[] indices = new int[BURST];
            for (int i = 0; i < BURST; i++)
            {
                final byte[] frame = AfXdpForwardingTest.testFrame(i);
                final MemorySegment memory = arena.allocate(frame.length);
                MemorySegment.copy(frame, 0, memory, ValueLayout.JAVA_BYTE, 0, frame.length);
                indices[i] = burst.add(memory.address(), frame.length, frame.length, 0, 0);
            }
            final MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(),
                ForwardingNetwork.SINK_MAC, ForwardingNetwork.TRANSMIT_MAC);

            run(generator, burst, indices, loop, WARM_UP_ROUNDS);
            long quietest = Long.MAX_VALUE;
            for (int window = 0; window < 5; window++)
            {
                final long forwardedBefore = loop.forwarded();
                final long before = threads.getCurrentThreadAllocatedBytes();
                run(generator, burst, indices, loop, WINDOW_ROUNDS);
                quietest = Math.min(quietest, threads.getCurrentThreadAllocatedBytes() - before);
                assertThat(loop.forwarded() - forwardedBefore).as("frames forwarded in the window").isPositive();
            }
            assertThat(quietest).as("bytes allocated in the quietest window of %d bursts", WINDOW_ROUNDS).isZero();
        }
    }

    private static void run(final Port generator, final FrameBurst burst, final int[] indices,
        final MacRewriteLoop loop, final int rounds)
    {
        for (int i = 0; i < rounds; i++)
        {
            generator.transmit(burst, indices, BURST);
            generator.flush();
            loop.poll(System.nanoTime());
        }
    }
}
