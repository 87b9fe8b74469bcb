package io.jvs.forwarder.port.packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data path allocates nothing: on this thread a transmit-only port in gen sends bursts into fA and a
 * {@link MacRewriteLoop} over an {@link AfPacketForwardingPair} forwards them to fB, while the thread's
 * allocated bytes are counted. Needs root, as CI has.
 */
class AfPacketAllocationTest
{
    private static final int ROUNDS = 2_500;
    private static final int BURST = 32;

    @Test
    void shouldAllocateNothingPerBurst()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        try (ForwardingNetwork net = new ForwardingNetwork("afpalloc");
            AfPacketForwardingPair pair = TestNetwork.callIn(net.fwd,
                () -> AfPacketForwardingPair.open(Syscalls.create(), "fA", "fB", AfPacketForwardingTest.SMALL));
            AfPacketPort generator = TestNetwork.callIn(net.gen, () -> AfPacketPort.open(
                Syscalls.create(), 9, "g0", AfPacketForwardingTest.SMALL, AfPacketPort.Direction.TRANSMIT));
            Arena arena = Arena.ofConfined())
        {
            final byte[] frame = TestPackets.udpV4(4000, 5000, 18);
            final MemorySegment memory = arena.allocate(frame.length);
            MemorySegment.copy(frame, 0, memory, JAVA_BYTE, 0, frame.length);
            final FrameBurst burst = new FrameBurst();
            final int[] all = new int[BURST];
            for (int i = 0; i < BURST; i++)
            {
                burst.add(memory.address(), frame.length, frame.length, 0, 0);
                all[i] = i;
            }
            final MacRewriteLoop loop = new MacRewriteLoop(
                pair.receivePort(), pair.transmitPort(), TestPackets.NEW_DESTINATION, TestPackets.NEW_SOURCE);

            forward(generator, burst, all, loop, 4 * ROUNDS);
            // Compilation in a window (an OSR, a deoptimisation, a downcall not yet compiled) can allocate for a
            // while; an allocation per burst would show in every window, so the quietest of five counts.
            long fewestBytes = Long.MAX_VALUE;
            for (int window = 0; window < 5; window++)
            {
                final long forwardedBefore = loop.forwarded();
                final long before = threads.getCurrentThreadAllocatedBytes();
                forward(generator, burst, all, loop, ROUNDS);
                fewestBytes = Math.min(fewestBytes, threads.getCurrentThreadAllocatedBytes() - before);
                assertThat(loop.forwarded() - forwardedBefore).as("forwarded in window %d", window)
                    .isGreaterThan(ROUNDS);
            }
            // 2,500 bursts: even 8 bytes per burst would come to 20 KB.
            assertThat(fewestBytes).isLessThan(8 * 1024);
        }
    }

    private static void forward(
        final AfPacketPort generator, final FrameBurst burst, final int[] all, final MacRewriteLoop loop,
        final int rounds)
    {
        for (int round = 0; round < rounds; round++)
        {
            generator.transmit(burst, all, all.length);
            generator.flush();
            loop.poll(round);
        }
    }
}
