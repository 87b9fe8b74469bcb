package io.jvs.forwarder.l2;

import io.jvs.forwarder.port.FramePool;
import io.jvs.forwarder.port.memory.FrameRecorder;
import io.jvs.forwarder.port.memory.FrameTemplates;
import io.jvs.forwarder.port.memory.MemoryPort;
import io.jvs.forwarder.port.memory.TransmitObserver;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MacRewriteLoopTest
{
    private static final byte[] DESTINATION = {2, 0, 0, 0, 0, (byte)0xD1};
    private static final byte[] SOURCE = {2, 0, 0, 0, 0, (byte)0x51};

    @Test
    void shouldRewriteBothAddressesAndKeepTheRestOfEveryFrame()
    {
        final byte[] a = frame(60, 0x10);
        final byte[] b = frame(1514, 0x20);
        final FrameRecorder recorder = new FrameRecorder();
        try (FramePool pool = new FramePool(64, 2048, 256);
            MemoryPort in = new MemoryPort(0, new FrameTemplates(5, a, b), pool, 32, 64, TransmitObserver.NONE);
            MemoryPort out = new MemoryPort(1, null, pool, 32, 64, recorder))
        {
            final MacRewriteLoop loop = new MacRewriteLoop(in, out, DESTINATION, SOURCE);

            assertThat(loop.poll(1)).isEqualTo(5);
            assertThat(loop.poll(2)).isZero();

            assertThat(recorder.frames()).hasSize(5);
            for (int i = 0; i < 5; i++)
            {
                final byte[] original = i % 2 == 0 ? a : b;
                final byte[] sent = recorder.frames().get(i);
                assertThat(Arrays.copyOfRange(sent, 0, 6)).isEqualTo(DESTINATION);
                assertThat(Arrays.copyOfRange(sent, 6, 12)).isEqualTo(SOURCE);
                assertThat(Arrays.copyOfRange(sent, 12, sent.length))
                    .isEqualTo(Arrays.copyOfRange(original, 12, original.length));
            }
            assertThat(loop.received()).isEqualTo(5);
            assertThat(loop.forwarded()).isEqualTo(5);
            assertThat(loop.dropped()).isZero();
            assertThat(out.counters().txCopied()).as("one pool: zero-copy").isZero();
            assertThat(pool.freeCount()).as("every buffer back after the flush").isEqualTo(64);
        }
    }

    @Test
    void shouldDropAndCountRuntsAndFramesTheTransmitQueueCannotHold()
    {
        final byte[] runt = frame(13, 0x30);
        final byte[] full = frame(60, 0x40);
        try (FramePool pool = new FramePool(64, 2048, 256);
            MemoryPort in = new MemoryPort(0, new FrameTemplates(6, runt, full, full), pool, 32, 64, TransmitObserver.NONE);
            MemoryPort out = new MemoryPort(1, null, pool, 32, 3, TransmitObserver.NONE))
        {
            final MacRewriteLoop loop = new MacRewriteLoop(in, out, DESTINATION, SOURCE);

            loop.poll(1);

            assertThat(loop.received()).isEqualTo(6);
            assertThat(loop.runtFrames()).isEqualTo(2);
            assertThat(loop.forwarded()).isEqualTo(3);
            assertThat(loop.dropped()).isEqualTo(3);
            assertThat(out.counters().txRingFull()).isEqualTo(1);
            assertThat(pool.freeCount()).isEqualTo(64);
        }
    }

    @Test
    void shouldRefuseAddressesThatAreNotSixBytes()
    {
        try (MemoryPort port = new MemoryPort(0, null))
        {
            assertThatThrownBy(() -> new MacRewriteLoop(port, port, new byte[5], SOURCE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("6 bytes");
        }
    }

    private static byte[] frame(final int length, final int fill)
    {
        final byte[] frame = new byte[length];
        for (int i = 0; i < length; i++)
        {
            frame[i] = (byte)(fill + i);
        }
        return frame;
    }
}
