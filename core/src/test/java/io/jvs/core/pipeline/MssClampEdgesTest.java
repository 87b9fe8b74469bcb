package io.jvs.core.pipeline;

import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The MSS clamp's walk over the TCP options (RFC 9293: kind 0 ends the list, kind 1 is one byte, every
 * other option gives its length, at least 2, within the header the data offset gives): where the MSS
 * option may sit, and the malformed lists it must leave alone.
 */
class MssClampEdgesTest
{
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(128);
    private final long tcp = Frames.addressOf(buffer);

    /** A SYN's TCP header with the given option bytes, padded with END to whole words, and 8 payload bytes. */
    private int segment(final int... options)
    {
        final int optionBytes = (options.length + 3) / 4 * 4;
        final int header = 20 + optionBytes;
        final byte[] bytes = new byte[header + 8];
        final byte[] fixed = {(byte)0x9c, 0x40, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, (byte)(header / 4 << 4), 0x02,
            (byte)0xff, (byte)0xff, 0x12, 0x34, 0, 0};
        System.arraycopy(fixed, 0, bytes, 0, 20);
        for (int i = 0; i < options.length; i++)
        {
            bytes[20 + i] = (byte)options[i];
        }
        // A payload that looks like an MSS option: never to be read as one.
        bytes[header] = 2;
        bytes[header + 1] = 4;
        bytes[header + 2] = 0x05;
        bytes[header + 3] = (byte)0xB4;
        Frames.write(bytes, tcp);
        return bytes.length;
    }

    private int sum(final int length)
    {
        return TestFrames.checksum(Frames.read(tcp, length), 0, length, 0);
    }

    @Test
    void shouldClampAnMssOptionThatEndsTheHeader()
    {
        // Window scale (3 bytes), NOP, then MSS 1460 in the last four bytes of a 28-byte header.
        final int length = segment(3, 3, 7, 1, 2, 4, 0x05, 0xB4);
        final int before = sum(length);
        Rewriter.clampMss(tcp, length, 1400);
        assertThat(Frames.u16(tcp + 26)).isEqualTo(1400);
        assertThat(sum(length)).isEqualTo(before);
    }

    @Test
    void shouldStepOverOptionsOfEveryLength()
    {
        // SACK permitted (2), timestamps (10), then MSS.
        final int length = segment(4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 2, 4, 0x05, 0xB4);
        Rewriter.clampMss(tcp, length, 1200);
        assertThat(Frames.u16(tcp + 34)).isEqualTo(1200);
    }

    @Test
    void shouldNotReadPastTheHeaderIntoThePayload()
    {
        // No options at all: the MSS-like payload stays.
        final int plain = segment();
        final byte[] before = Frames.read(tcp, plain);
        Rewriter.clampMss(tcp, plain, 1000);
        assertThat(Frames.read(tcp, plain)).isEqualTo(before);

        // An MSS option whose value would lie beyond the header: left alone, and nothing after it is read.
        final int cut = segment(1, 1, 2, 4);
        final byte[] untouched = Frames.read(tcp, cut);
        Rewriter.clampMss(tcp, cut, 1000);
        assertThat(Frames.read(tcp, cut)).isEqualTo(untouched);
    }

    @Test
    void shouldStopAtTheEndOptionAndAtMalformedLengths()
    {
        for (final int[] options : new int[][] {
            {0, 0, 2, 4, 0x05, 0xB4},          // END before the MSS
            {3, 1, 2, 4, 0x05, 0xB4},          // a length of 1
            {3, 0, 2, 4, 0x05, 0xB4},          // a length of 0
            {1, 1, 1, 3},                      // a kind in the last byte, with no room for its length
            {3, 9, 7, 2, 4, 0x05, 0xB4, 1},    // a length running past the header
        })
        {
            final int length = segment(options);
            final byte[] before = Frames.read(tcp, length);
            Rewriter.clampMss(tcp, length, 1000);
            assertThat(Frames.read(tcp, length)).isEqualTo(before);
        }
    }

    @Test
    void shouldReadOnlyTheBytesThereWhenTheDataOffsetClaimsMore()
    {
        // The data offset says 28 bytes; only 24 arrived: the MSS option is cut, so nothing changes.
        final int length = segment(1, 1, 1, 1, 2, 4, 0x05, 0xB4);
        final byte[] before = Frames.read(tcp, length);
        Rewriter.clampMss(tcp, 24, 1000);
        assertThat(Frames.read(tcp, length)).isEqualTo(before);
    }

    @Test
    void shouldLeaveAnMssOfExactlyTheLargestAndAnUnknownLargestAlone()
    {
        final int length = segment(2, 4, 0x05, 0xB4);
        final byte[] before = Frames.read(tcp, length);
        Rewriter.clampMss(tcp, length, 1460);
        assertThat(Frames.read(tcp, length)).isEqualTo(before);
        Rewriter.clampMss(tcp, length, 0);
        assertThat(Frames.read(tcp, length)).isEqualTo(before);
        Rewriter.clampMss(tcp, length, 1459);
        assertThat(Frames.u16(tcp + 22)).isEqualTo(1459);
    }
}
