package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The pcapng writer (draft-ietf-opsawg-pcapng: a section header, one interface description with
 * if_tsresol 9, then enhanced packet blocks with opt_comment and epb_flags): read back by jvs's own reader,
 * and block by block as the format lays them out.
 */
class PcapngWriterTest
{
    @TempDir
    Path directory;

    private final ByteBuffer memory = ByteBuffer.allocateDirect(4096);
    private final long frames = Frames.addressOf(memory);

    private static byte[] bytes(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed + i * 7);
        }
        return bytes;
    }

    @Test
    void shouldWriteFramesTheReaderGivesBackWithTheirTimesAndLengths() throws IOException
    {
        final Path file = directory.resolve("out.pcapng");
        final byte[] one = bytes(61, 1);
        final byte[] two = bytes(64, 2);
        final byte[] three = bytes(100, 3);
        try (PcapngWriter writer = PcapngWriter.open(file, 1, 80))
        {
            Frames.write(one, frames);
            writer.write(1_700_000_000_123_456_789L, frames, one.length, one.length, null,
                PcapngWriter.DIRECTION_UNKNOWN);
            Frames.write(two, frames);
            writer.write(1_700_000_001_000_000_000L, frames, two.length, 1514, "two".getBytes(StandardCharsets.UTF_8),
                PcapngWriter.DIRECTION_INBOUND);
            Frames.write(three, frames);
            writer.write(1_700_000_002_000_000_001L, frames, three.length, three.length, null,
                PcapngWriter.DIRECTION_OUTBOUND);
            assertThat(writer.records()).isEqualTo(3);
            assertThat(writer.path()).isEqualTo(file);
        }
        try (PcapReader reader = PcapReader.open(file))
        {
            assertThat(reader.format()).isEqualTo(CaptureFormat.PCAPNG);
            assertThat(reader.next()).isTrue();
            assertThat(reader.linkType()).isEqualTo(1);
            assertThat(reader.timestampNs()).isEqualTo(1_700_000_000_123_456_789L);
            assertThat(reader.capturedLength()).isEqualTo(61);
            assertThat(reader.originalLength()).isEqualTo(61);
            assertThat(Frames.read(reader.address(), 61)).isEqualTo(one);
            assertThat(reader.next()).isTrue();
            assertThat(reader.timestampNs()).isEqualTo(1_700_000_001_000_000_000L);
            assertThat(reader.capturedLength()).isEqualTo(64);
            assertThat(reader.originalLength()).isEqualTo(1514);
            assertThat(Frames.read(reader.address(), 64)).isEqualTo(two);
            assertThat(reader.next()).isTrue();
            // Cut to the snap length of 80; the original length stays 100.
            assertThat(reader.capturedLength()).isEqualTo(80);
            assertThat(reader.originalLength()).isEqualTo(100);
            assertThat(Frames.read(reader.address(), 80)).isEqualTo(java.util.Arrays.copyOf(three, 80));
            assertThat(reader.timestampNs()).isEqualTo(1_700_000_002_000_000_001L);
            assertThat(reader.next()).isFalse();
        }
    }

    @Test
    void shouldLayTheBlocksOutAsTheFormatSays() throws IOException
    {
        final Path file = directory.resolve("blocks.pcapng");
        final byte[] frame = bytes(5, 9);
        try (PcapngWriter writer = PcapngWriter.open(file, 0x1234, 262144))
        {
            Frames.write(frame, frames);
            writer.write(0x0000_0001_0000_0002L, frames, 5, 5, "hi!".getBytes(StandardCharsets.UTF_8),
                PcapngWriter.DIRECTION_INBOUND);
        }
        final ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        // Section header block: type, length 28, byte-order magic, version 1.0, section length unknown.
        assertThat(in.getInt(0)).isEqualTo(0x0A0D_0D0A);
        assertThat(in.getInt(4)).isEqualTo(28);
        assertThat(in.getInt(8)).isEqualTo(0x1A2B_3C4D);
        assertThat(in.getShort(12)).isEqualTo((short)1);
        assertThat(in.getShort(14)).isZero();
        assertThat(in.getLong(16)).isEqualTo(-1L);
        assertThat(in.getInt(24)).isEqualTo(28);
        // Interface description block: link type, snap length, if_tsresol = 9 (nanoseconds), end of options.
        assertThat(in.getInt(28)).isEqualTo(1);
        assertThat(in.getInt(32)).isEqualTo(32);
        assertThat(in.getShort(36)).isEqualTo((short)0x1234);
        assertThat(in.getInt(40)).isEqualTo(262144);
        assertThat(in.getShort(44)).isEqualTo((short)9);
        assertThat(in.getShort(46)).isEqualTo((short)1);
        assertThat(in.get(48)).isEqualTo((byte)9);
        assertThat(in.getInt(52)).isZero();
        assertThat(in.getInt(56)).isEqualTo(32);
        // Enhanced packet block: 32 + 8 (5 bytes padded) + comment 4 + 4 + flags 8 + end 4 = 60.
        final int epb = 60;
        assertThat(in.getInt(epb)).isEqualTo(6);
        assertThat(in.getInt(epb + 4)).isEqualTo(60);
        assertThat(in.getInt(epb + 8)).as("interface 0").isZero();
        assertThat(in.getInt(epb + 12)).as("timestamp, high word").isEqualTo(1);
        assertThat(in.getInt(epb + 16)).as("timestamp, low word").isEqualTo(2);
        assertThat(in.getInt(epb + 20)).isEqualTo(5);
        assertThat(in.getInt(epb + 24)).isEqualTo(5);
        final byte[] data = new byte[8];
        in.get(epb + 28, data);
        assertThat(data).containsExactly(frame[0], frame[1], frame[2], frame[3], frame[4], 0, 0, 0);
        assertThat(in.getShort(epb + 36)).as("opt_comment").isEqualTo((short)1);
        assertThat(in.getShort(epb + 38)).isEqualTo((short)3);
        assertThat(in.get(epb + 40)).isEqualTo((byte)'h');
        assertThat(in.get(epb + 43)).as("padding").isZero();
        assertThat(in.getShort(epb + 44)).as("epb_flags").isEqualTo((short)2);
        assertThat(in.getShort(epb + 46)).isEqualTo((short)4);
        assertThat(in.getInt(epb + 48)).as("inbound").isEqualTo(1);
        assertThat(in.getInt(epb + 52)).as("end of options").isZero();
        assertThat(in.getInt(epb + 56)).isEqualTo(60);
        assertThat(in.capacity()).isEqualTo(epb + 60);
    }

    @Test
    void shouldRefuseALinkTypeOrSnapLengthOutOfRangeAndAFrameTooBigForItsBuffer() throws IOException
    {
        final Path file = directory.resolve("bad.pcapng");
        for (final int[] bad : new int[][] {{-1, 100}, {0x10000, 100}, {1, 0}})
        {
            assertThatIllegalArgumentException().isThrownBy(() -> PcapngWriter.open(file, bad[0], bad[1]))
                .withMessage("link type " + bad[0] + " / snap length " + bad[1]);
        }
        try (PcapngWriter writer = PcapngWriter.open(file, 1, Integer.MAX_VALUE))
        {
            final ByteBuffer big = ByteBuffer.allocateDirect(PcapWriter.BUFFER_SIZE);
            assertThatIllegalArgumentException()
                .isThrownBy(() -> writer.write(0, Frames.addressOf(big), PcapWriter.BUFFER_SIZE, 0, null, 0))
                .withMessage("a frame of " + PcapWriter.BUFFER_SIZE + " bytes does not fit the buffer");
            assertThat(writer.records()).isZero();
        }
    }
}
