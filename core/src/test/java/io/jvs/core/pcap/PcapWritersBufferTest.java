package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The two writers' limits and buffering: link types and snapshot lengths at both ends of their ranges, lengths and
 * timestamps at the ends of what a record holds, records kept in the buffer until it fills or is flushed, and more
 * than one buffer's worth read back whole.
 */
class PcapWritersBufferTest
{
    @TempDir
    Path dir;

    private static int linkTypeField(final Path path) throws IOException
    {
        return ByteBuffer.wrap(Files.readAllBytes(path)).order(ByteOrder.LITTLE_ENDIAN).getInt(20);
    }

    @Test
    void shouldTakeEveryLinkTypeFrom0To65535AndASnapLengthOf1() throws IOException
    {
        final Path path = dir.resolve("edges.pcap");
        for (final int linkType : new int[] {0, 0xFFFF})
        {
            PcapWriter.open(path, TimestampPrecision.NANOSECONDS, linkType, 1).close();
            assertThat(linkTypeField(path)).isEqualTo(linkType);
        }
        for (final int linkType : new int[] {-1, 0x10000})
        {
            assertThatIllegalArgumentException()
                .isThrownBy(() -> PcapWriter.open(path, TimestampPrecision.NANOSECONDS, linkType, 1))
                .withMessage("link type " + linkType + " not in 0..65535");
        }
        assertThatIllegalArgumentException()
            .isThrownBy(() -> PcapWriter.open(path, TimestampPrecision.NANOSECONDS, LinkType.ETHERNET, 0))
            .withMessage("snapshot length 0 not positive");
    }

    @Test
    void shouldTakeLengthsAndTimesAtTheEndsOfWhatARecordHolds() throws IOException
    {
        final Path path = dir.resolve("lengths.pcap");
        try (Arena arena = Arena.ofConfined(); PcapWriter writer = PcapWriter.open(path))
        {
            final long frame = arena.allocate(64).address();
            writer.write(0, frame, 0, 0);
            writer.write(1, frame, 64, 0xFFFF_FFFFL);
            assertThatIllegalArgumentException().isThrownBy(() -> writer.write(2, frame, -1, 64))
                .withMessage("captured length -1, original length 64");
            assertThatIllegalArgumentException().isThrownBy(() -> writer.write(2, frame, 64, 0x1_0000_0000L))
                .withMessage("captured length 64, original length 4294967296");
            assertThat(writer.records()).isEqualTo(2);
            assertThat(writer.path()).isEqualTo(path);
        }
        try (PcapReader reader = PcapReader.open(path))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.timestampNs()).isZero();
            assertThat(reader.capturedLength()).isZero();
            assertThat(reader.next()).isTrue();
            assertThat(reader.originalLength()).isEqualTo(0xFFFF_FFFFL);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
        }
    }

    @Test
    void shouldKeepRecordsInItsBufferUntilFlushedWhenThePcapBufferIsNotFull() throws IOException
    {
        final Path path = dir.resolve("buffered.pcap");
        final PcapWriter writer = PcapWriter.open(path);
        try (Arena arena = Arena.ofConfined())
        {
            final long frame = arena.allocate(60).address();
            writer.write(1, frame, 60);
            assertThat(Files.size(path)).as("the header and the record are buffered").isZero();
            writer.flush();
            assertThat(Files.size(path)).isEqualTo(24 + 16 + 60);
            writer.write(2, frame, 60);
            writer.close();
            assertThat(Files.size(path)).isEqualTo(24 + 2 * (16 + 60));
            writer.flush();
            assertThat(Files.size(path)).as("a flush after close writes nothing").isEqualTo(24 + 2 * (16 + 60));
        }
    }

    @Test
    void shouldTakeEveryLinkTypeFrom0To65535AndASnapLengthOf1ForPcapng() throws IOException
    {
        final Path path = dir.resolve("edges.pcapng");
        for (final int linkType : new int[] {0, 0xFFFF})
        {
            try (PcapngWriter writer = PcapngWriter.open(path, linkType, 1))
            {
                writer.write(1, 0, 0, 0, null, PcapngWriter.DIRECTION_UNKNOWN);
            }
            try (PcapReader reader = PcapReader.open(path))
            {
                assertThat(reader.next()).isTrue();
                assertThat(reader.linkType()).isEqualTo(linkType);
                assertThat(reader.snapLength()).isEqualTo(1);
            }
        }
    }

    @Test
    void shouldKeepRecordsInItsBufferUntilFlushedWhenThePcapngBufferIsNotFull() throws IOException
    {
        final Path path = dir.resolve("buffered.pcapng");
        try (Arena arena = Arena.ofConfined(); PcapngWriter writer = PcapngWriter.open(path, LinkType.ETHERNET, 1500))
        {
            final long frame = arena.allocate(60).address();
            writer.write(1, frame, 60, 60, null, PcapngWriter.DIRECTION_UNKNOWN);
            assertThat(Files.size(path)).as("the headers and the record are buffered").isZero();
            writer.flush();
            // Section header 28, interface description 32, packet block 32 + 60 + end of options 4.
            assertThat(Files.size(path)).isEqualTo(28 + 32 + 32 + 60 + 4);
        }
    }

    @Test
    void shouldWriteAFrameThatFillsTheWholePcapngBufferAndFramesOverSeveralBuffers() throws IOException
    {
        // 32 fixed bytes, the frame, 4 of end of options: a frame of BUFFER_SIZE - 36 bytes fills a whole buffer.
        final int whole = PcapWriter.BUFFER_SIZE - 36;
        final Path path = dir.resolve("full.pcapng");
        final byte[] big = new byte[whole];
        new SplittableRandom(3).nextBytes(big);
        final int count = 600; // 600 frames of 1514 bytes: not quite one buffer, then the large one, then again
        try (Arena arena = Arena.ofConfined();
            PcapngWriter writer = PcapngWriter.open(path, LinkType.ETHERNET, PcapWriter.BUFFER_SIZE))
        {
            final MemorySegment frame = arena.allocate(whole);
            Frames.write(big, frame.address());
            for (int i = 0; i < count; i++)
            {
                writer.write(i, frame.address(), 1514, 1514, null, PcapngWriter.DIRECTION_INBOUND);
            }
            writer.write(count, frame.address(), whole, whole, null, PcapngWriter.DIRECTION_UNKNOWN);
            for (int i = 0; i < count; i++)
            {
                writer.write(count + 1 + i, frame.address(), 1514, 1514, null, PcapngWriter.DIRECTION_OUTBOUND);
            }
            assertThat(writer.records()).isEqualTo(2 * count + 1);
        }
        try (PcapReader reader = PcapReader.open(path, PcapWriter.BUFFER_SIZE, false))
        {
            for (int i = 0; i < 2 * count + 1; i++)
            {
                assertThat(reader.next()).as("record %d", i).isTrue();
                assertThat(reader.timestampNs()).isEqualTo(i);
                assertThat(reader.capturedLength()).isEqualTo(i == count ? whole : 1514);
            }
            reader.rewind();
            for (int i = 0; i <= count; i++)
            {
                assertThat(reader.next()).isTrue();
            }
            assertThat(Frames.read(reader.address(), whole)).isEqualTo(big);
            while (reader.next())
            {
                assertThat(reader.capturedLength()).isEqualTo(1514);
            }
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
            assertThat(reader.records()).isEqualTo(2 * count + 1);
        }
    }
}
