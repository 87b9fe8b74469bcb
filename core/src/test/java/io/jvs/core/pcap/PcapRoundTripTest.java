package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What {@link PcapWriter} writes, {@link PcapReader} reads back unchanged: seeded random frames, lengths,
 * timestamps, link types and snapshot lengths, in both timestamp resolutions.
 */
class PcapRoundTripTest
{
    private static final int MAX_FRAME = 9_000;

    @TempDir
    Path dir;

    static Stream<Arguments> seeds()
    {
        return LongStream.rangeClosed(1, 12).boxed().flatMap(seed -> Stream.of(
            Arguments.of(seed, TimestampPrecision.NANOSECONDS), Arguments.of(seed, TimestampPrecision.MICROSECONDS)));
    }

    @ParameterizedTest(name = "seed {0}, {1}")
    @MethodSource("seeds")
    void shouldReadBackEveryFrameWhenPcapWriterWroteIt(final long seed, final TimestampPrecision precision)
        throws IOException
    {
        final SplittableRandom random = new SplittableRandom(seed);
        // Up to 3000 frames: past the 1 MiB buffer more often than not.
        final int count = random.nextInt(1, 3_000);
        final int linkType = random.nextBoolean() ? LinkType.ETHERNET : random.nextInt(0, 0x10000);
        final int snapLength = random.nextInt(4) == 0 ? random.nextInt(1, 200) : PcapWriter.DEFAULT_SNAP_LENGTH;
        final long[] timestamps = new long[count];
        final int[] lengths = new int[count];
        final byte[][] frames = new byte[count][];
        long now = random.nextLong(0, 0xFFFF_0000L * 1_000_000_000L);
        for (int i = 0; i < count; i++)
        {
            // Mostly forwards; now and then backwards, as real captures do.
            now = Math.max(0, now + random.nextLong(-1_000_000L, 50_000_000L));
            timestamps[i] = now;
            lengths[i] = random.nextInt(8) == 0 ? random.nextInt(0, MAX_FRAME) : random.nextInt(0, 1_515);
            frames[i] = new byte[lengths[i]];
            random.nextBytes(frames[i]);
        }
        final Path path = dir.resolve("round-trip.pcap");

        try (Arena arena = Arena.ofConfined();
            PcapWriter writer = PcapWriter.open(path, precision, linkType, snapLength))
        {
            final MemorySegment frame = arena.allocate(MAX_FRAME);
            for (int i = 0; i < count; i++)
            {
                Frames.write(frames[i], frame.address());
                writer.write(timestamps[i], frame.address(), lengths[i]);
            }
            assertThat(writer.records()).isEqualTo(count);
        }

        try (PcapReader reader = PcapReader.open(path))
        {
            assertThat(reader.format()).isEqualTo(precision == TimestampPrecision.NANOSECONDS
                ? CaptureFormat.PCAP_NANOSECONDS : CaptureFormat.PCAP_MICROSECONDS);
            assertThat(reader.snapLength()).isEqualTo(snapLength);
            for (int i = 0; i < count; i++)
            {
                assertThat(reader.next()).as("record %d", i).isTrue();
                final int captured = Math.min(lengths[i], snapLength);
                assertThat(reader.capturedLength()).as("record %d", i).isEqualTo(captured);
                assertThat(reader.originalLength()).as("record %d", i).isEqualTo(lengths[i]);
                assertThat(reader.linkType()).isEqualTo(linkType);
                assertThat(reader.flags()).isZero();
                final long expected = precision == TimestampPrecision.NANOSECONDS
                    ? timestamps[i] : timestamps[i] - timestamps[i] % 1_000;
                assertThat(reader.timestampNs()).as("record %d", i).isEqualTo(expected);
                assertThat(Frames.read(reader.address(), captured)).as("record %d", i)
                    .isEqualTo(Arrays.copyOf(frames[i], captured));
            }
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
            assertThat(reader.records()).isEqualTo(count);
        }
    }

    @Test
    void shouldWriteTheLittleEndianVersion24HeaderWhenOpenedWithDefaults() throws IOException
    {
        final Path nanos = dir.resolve("ns.pcap");
        PcapWriter.open(nanos).close();
        final Path micros = dir.resolve("us.pcap");
        PcapWriter.open(micros, TimestampPrecision.MICROSECONDS, LinkType.RAW, 65535).close();

        assertThat(HexFormat.of().formatHex(Files.readAllBytes(nanos)))
            .isEqualTo("4d3cb2a1" + "02000400" + "00000000" + "00000000" + "00000400" + "01000000");
        assertThat(HexFormat.of().formatHex(Files.readAllBytes(micros)))
            .isEqualTo("d4c3b2a1" + "02000400" + "00000000" + "00000000" + "ffff0000" + "65000000");
    }

    @Test
    void shouldWriteAFrameLargerThanTheBufferWhenTheSnapLengthAllowsIt() throws IOException
    {
        final int length = PcapWriter.BUFFER_SIZE * 3 + 17;
        final byte[] bytes = new byte[length];
        new SplittableRandom(7).nextBytes(bytes);
        final Path path = dir.resolve("big.pcap");
        try (Arena arena = Arena.ofConfined();
            PcapWriter writer = PcapWriter.open(path, TimestampPrecision.NANOSECONDS, LinkType.ETHERNET, length))
        {
            final MemorySegment frame = arena.allocate(length);
            Frames.write(bytes, frame.address());
            writer.write(1, frame.address(), 60);
            writer.write(2, frame.address(), length);
            writer.write(3, frame.address(), 60);
        }

        try (PcapReader reader = PcapReader.open(path, length, false))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(length);
            assertThat(reader.timestampNs()).isEqualTo(2);
            assertThat(Frames.read(reader.address(), length)).isEqualTo(bytes);
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
        }
    }

    @Test
    void shouldRefuseATimestampWhenAClassicPcapCannotHoldIt() throws IOException
    {
        try (Arena arena = Arena.ofConfined(); PcapWriter writer = PcapWriter.open(dir.resolve("t.pcap")))
        {
            final long frame = arena.allocate(64).address();
            assertThatThrownBy(() -> writer.write(-1, frame, 64)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> writer.write(0x1_0000_0000L * 1_000_000_000L, frame, 64))
                .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> writer.write(0, frame, 64, 63)).isInstanceOf(IllegalArgumentException.class);
            writer.write(0xFFFF_FFFFL * 1_000_000_000L + 999_999_999L, frame, 64);
            assertThat(writer.records()).isEqualTo(1);
        }
    }

    @Test
    void shouldRefuseToWriteWhenClosed() throws IOException
    {
        final PcapWriter writer = PcapWriter.open(dir.resolve("closed.pcap"));
        writer.close();
        writer.close();

        assertThatThrownBy(() -> writer.write(0, 0, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(Files.size(dir.resolve("closed.pcap"))).isEqualTo(24);
    }
}
