package io.jvs.forwarder.port.memory;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.FramePool;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryPortTest
{
    private static final byte[] A = frame(60, 0xA0);
    private static final byte[] B = frame(61, 0xB0);
    private static final byte[] C = frame(1500, 0xC0);
    private static final int[] ALL = indices(FrameBurst.MAX_FRAMES);

    @Test
    void shouldReceiveTemplatesRoundRobinIntoPoolBuffersWithHeadroom()
    {
        try (FramePool pool = new FramePool(16, 2048, 256);
            MemoryPort port = new MemoryPort(3, FrameTemplates.repeating(A, B, C), pool, 5, 8, TransmitObserver.NONE))
        {
            final FrameBurst burst = new FrameBurst();

            assertThat(port.receive(burst, 777)).isEqualTo(5);

            assertThat(burst.count).isEqualTo(5);
            final byte[][] expected = {A, B, C, A, B};
            for (int i = 0; i < 5; i++)
            {
                assertThat(Frames.read(burst.address(i), burst.length(i))).isEqualTo(expected[i]);
                assertThat(burst.address(i)).isEqualTo(pool.frameAddress((int)burst.handle(i)));
                assertThat(burst.headroom(i)).isEqualTo(256);
                assertThat(burst.capacity(i)).isEqualTo(2048 - 256);
                assertThat(burst.receiveTimeNs(i)).isEqualTo(777);
            }
            assertThat(port.counters().rxFrames()).isEqualTo(5);
            assertThat(port.counters().rxBytes()).isEqualTo(60 + 61 + 1500 + 60 + 61);
            assertThat(pool.freeCount()).isEqualTo(11);

            port.release(burst);
            assertThat(pool.freeCount()).isEqualTo(16);
        }
    }

    @Test
    void shouldStopAtTheEndOfAFiniteSourceAndWhenThePoolRunsDry()
    {
        try (FramePool pool = new FramePool(4, 2048, 256);
            MemoryPort finite = new MemoryPort(0, new FrameTemplates(3, A), pool, 256, 8, TransmitObserver.NONE);
            MemoryPort endless = new MemoryPort(1, FrameTemplates.repeating(A), pool, 256, 8, TransmitObserver.NONE))
        {
            final FrameBurst first = new FrameBurst();
            assertThat(finite.receive(first, 0)).isEqualTo(3);
            assertThat(finite.receive(first, 0)).isZero();
            assertThat(pool.freeCount()).as("the buffer offered to the dry source is back").isEqualTo(1);

            final FrameBurst second = new FrameBurst();
            assertThat(endless.receive(second, 0)).as("one buffer left").isEqualTo(1);
            assertThat(endless.receive(second, 0)).isZero();

            finite.release(first);
            endless.release(second);
            assertThat(pool.freeCount()).isEqualTo(4);
            assertThat(pool.refusedFrees()).isZero();
        }
    }

    @Test
    void shouldNotOverfillABurst()
    {
        try (MemoryPort port = new MemoryPort(0, FrameTemplates.repeating(A)))
        {
            final FrameBurst burst = new FrameBurst();
            assertThat(port.receive(burst, 0)).isEqualTo(FrameBurst.MAX_FRAMES);
            assertThat(port.receive(burst, 0)).isZero();
            port.release(burst);
            assertThat(port.pool().freeCount()).isEqualTo(MemoryPort.DEFAULT_BUFFERS);
        }
    }

    @Test
    void shouldTakeItsOwnFramesWithoutCopyingAndRecycleThemAtFlush()
    {
        final FrameRecorder recorder = new FrameRecorder();
        try (FramePool pool = new FramePool(8, 2048, 256);
            MemoryPort port = new MemoryPort(0, FrameTemplates.repeating(A, B), pool, 4, 8, recorder))
        {
            final FrameBurst burst = new FrameBurst();
            port.receive(burst, 0);

            assertThat(port.transmit(burst, new int[] {0, 2, 3}, 3)).isEqualTo(3);

            assertThat(takenFlags(burst)).startsWith(true, false, true, true);
            assertThat(port.counters().txCopied()).isZero();
            assertThat(port.counters().txFrames()).isEqualTo(3);
            assertThat(port.counters().txBytes()).isEqualTo(60 + 60 + 61);
            assertThat(recorder.frames()).containsExactly(A, A, B);
            port.release(burst);
            assertThat(pool.freeCount()).as("only the untaken frame came back").isEqualTo(5);
            port.flush();
            assertThat(pool.freeCount()).isEqualTo(8);
            assertThat(port.queued()).isZero();
        }
    }

    @Test
    void shouldShareAPoolWithTheReceivingPortWithoutCopying()
    {
        try (FramePool shared = new FramePool(8, 2048, 256);
            MemoryPort ingress = new MemoryPort(0, FrameTemplates.repeating(A), shared, 4, 8, TransmitObserver.NONE);
            MemoryPort egress = new MemoryPort(1, null, shared, 4, 8, TransmitObserver.NONE))
        {
            final FrameBurst burst = new FrameBurst();
            ingress.receive(burst, 0);

            egress.transmit(burst, ALL, 4);
            ingress.release(burst);

            assertThat(egress.counters().txCopied()).isZero();
            assertThat(shared.freeCount()).isEqualTo(4);
            egress.flush();
            assertThat(shared.freeCount()).isEqualTo(8);
            assertThat(shared.refusedFrees()).isZero();
        }
    }

    @Test
    void shouldCopyFramesFromOtherMemoryAndLeaveTheirBuffersToTheirPort()
    {
        final FrameRecorder recorder = new FrameRecorder();
        try (FramePool ingressPool = new FramePool(8, 2048, 256);
            FramePool egressPool = new FramePool(8, 2048, 256);
            MemoryPort ingress = new MemoryPort(0, FrameTemplates.repeating(A, C), ingressPool, 4, 8,
                TransmitObserver.NONE);
            MemoryPort egress = new MemoryPort(1, null, egressPool, 4, 8, recorder))
        {
            final FrameBurst burst = new FrameBurst();
            ingress.receive(burst, 0);

            assertThat(egress.transmit(burst, ALL, 4)).isEqualTo(4);

            assertThat(takenFlags(burst)).startsWith(false, false, false, false);
            assertThat(egress.counters().txCopied()).isEqualTo(4);
            assertThat(recorder.frames()).containsExactly(A, C, A, C);
            assertThat(egressPool.freeCount()).isEqualTo(4);
            ingress.release(burst);
            egress.flush();
            assertThat(ingressPool.freeCount()).isEqualTo(8);
            assertThat(egressPool.freeCount()).isEqualTo(8);
        }
    }

    @Test
    void shouldDropAndCountWhatTheTransmitQueueCannotHold()
    {
        try (FramePool pool = new FramePool(8, 2048, 256);
            MemoryPort port = new MemoryPort(0, FrameTemplates.repeating(A), pool, 4, 2, TransmitObserver.NONE))
        {
            final FrameBurst burst = new FrameBurst();
            port.receive(burst, 0);

            assertThat(port.transmit(burst, ALL, 4)).isEqualTo(2);

            assertThat(port.counters().txRingFull()).isEqualTo(2);
            assertThat(takenFlags(burst)).startsWith(true, true, false, false);
            port.release(burst);
            port.flush();
            assertThat(pool.freeCount()).isEqualTo(8);
        }
    }

    @Test
    void shouldCopyAFrameSentTwiceRatherThanTakeItsBufferTwice()
    {
        try (FramePool pool = new FramePool(8, 2048, 256);
            MemoryPort port = new MemoryPort(0, FrameTemplates.repeating(A), pool, 1, 8, TransmitObserver.NONE))
        {
            final FrameBurst burst = new FrameBurst();
            port.receive(burst, 0);

            assertThat(port.transmit(burst, new int[] {0, 0}, 2)).isEqualTo(2);

            assertThat(port.counters().txCopied()).isEqualTo(1);
            port.release(burst);
            port.flush();
            assertThat(pool.freeCount()).isEqualTo(8);
            assertThat(pool.refusedFrees()).isZero();
        }
    }

    @Test
    void shouldRefuseATemplateLargerThanItsBuffers()
    {
        try (FramePool pool = new FramePool(2, 1024, 256))
        {
            assertThatThrownBy(() -> new MemoryPort(0, FrameTemplates.repeating(C), pool, 1, 1, TransmitObserver.NONE))
                .hasMessageContaining("1500").hasMessageContaining("768");
        }
    }

    @Test
    void shouldVaryFlowsFromAGeneratorWithoutAllocating()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled())
            .as("this JVM measures allocation per thread").isTrue();
        final FlowGenerator generator = new FlowGenerator();
        try (FramePool pool = new FramePool(64, 2048, 256);
            MemoryPort ingress = new MemoryPort(0, generator, pool, 32, 32, TransmitObserver.NONE);
            MemoryPort egress = new MemoryPort(1, null))
        {
            final FrameBurst burst = new FrameBurst();
            long sum = cycle(ingress, egress, burst, 10_000);

            final long before = threads.getCurrentThreadAllocatedBytes();
            sum += cycle(ingress, egress, burst, 100_000);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

            assertThat(sum).isEqualTo(110_000L * 32 * 60);
            assertThat(generator.flows).isEqualTo(110_000L * 32);
            // 3.2 M frames: a single allocation per frame, or per burst, would pass 100 KiB.
            assertThat(allocated).isLessThan(100 * 1024);
            assertThat(egress.counters().txCopied()).isEqualTo(110_000L * 32);
        }
    }

    private static long cycle(final MemoryPort ingress, final MemoryPort egress, final FrameBurst burst,
        final int bursts)
    {
        long bytes = 0;
        for (int i = 0; i < bursts; i++)
        {
            burst.clear();
            final int received = ingress.receive(burst, i);
            egress.transmit(burst, ALL, Math.min(received, 32));
            for (int f = 0; f < burst.count; f++)
            {
                bytes += burst.length(f);
            }
            ingress.release(burst);
            egress.flush();
        }
        return bytes;
    }

    /** Writes 60-byte frames whose source port counts up: a new flow per frame. */
    private static final class FlowGenerator implements FrameSource
    {
        private long flows;

        @Override
        public int next(final long address, final int capacity)
        {
            Frames.putI64(address, 0x0200_0000_0001L);
            Frames.putU16(address + 34, (int)(1024 + (flows & 0x7FFF)));
            flows++;
            return 60;
        }
    }

    static byte[] frame(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed + i);
        }
        return bytes;
    }

    static int[] indices(final int count)
    {
        final int[] indices = new int[count];
        for (int i = 0; i < count; i++)
        {
            indices[i] = i;
        }
        return indices;
    }

    /** Every record's {@link FrameBurst#taken} flag, in the order of the burst. */
    static boolean[] takenFlags(final FrameBurst burst)
    {
        final boolean[] taken = new boolean[FrameBurst.MAX_FRAMES];
        for (int i = 0; i < taken.length; i++)
        {
            taken[i] = burst.taken(i);
        }
        return taken;
    }
}
