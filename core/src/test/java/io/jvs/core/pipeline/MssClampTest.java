package io.jvs.core.pipeline;

import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

class MssClampTest
{
    /** A SYN's TCP header with NOP, NOP, MSS 1460, window scale: 28 bytes. */
    private static long header(final ByteBuffer buffer, final int mss)
    {
        final long tcp = Frames.addressOf(buffer);
        final byte[] bytes = {
            (byte)0x9c, 0x40, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x70, 0x02, (byte)0xff, (byte)0xff, 0x12, 0x34, 0, 0,
            1, 1, 2, 4, (byte)(mss >>> 8), (byte)mss, 3, 3};
        Frames.write(bytes, tcp);
        return tcp;
    }

    @Test
    void shouldLowerTheMssAndKeepTheChecksumConsistent()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        final long tcp = header(buffer, 1460);
        final int sumBefore = TestFrames.checksum(Frames.read(tcp, 28), 0, 28, 0);
        Rewriter.clampMss(tcp, 28, 1420);
        assertThat(Frames.u16(tcp + 24)).isEqualTo(1420);
        // The checksum was updated by exactly the MSS change: the segment's sum is unchanged.
        assertThat(TestFrames.checksum(Frames.read(tcp, 28), 0, 28, 0)).isEqualTo(sumBefore);
    }

    @Test
    void shouldLeaveASmallerMssAlone()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        final long tcp = header(buffer, 1200);
        final byte[] before = Frames.read(tcp, 28);
        Rewriter.clampMss(tcp, 28, 1420);
        assertThat(Frames.read(tcp, 28)).isEqualTo(before);
    }

    @Test
    void shouldStopAtAMalformedOption()
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        final long tcp = header(buffer, 1460);
        Frames.putU8(tcp + 23, 40);
        final byte[] before = Frames.read(tcp, 28);
        Rewriter.clampMss(tcp, 28, 1000);
        assertThat(Frames.read(tcp, 28)).isEqualTo(before);
    }
}
