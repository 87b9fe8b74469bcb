package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A small valid file cut at every byte offset, and the same file with random bytes overwritten: the
 * reader never throws past {@link PcapReader#open}, delivers only records that are wholly in the file,
 * and says why it stopped.
 */
class PcapTruncationTest
{
    @TempDir
    Path dir;

    private static CaptureBytes classic(final ByteOrder order)
    {
        return new CaptureBytes(order).pcapHeader(0xA1B2C3D4, 2, 4, 65535, LinkType.ETHERNET)
            .pcapRecord(1, 10, 60, 60, CaptureBytes.data(60, 1))
            .pcapRecord(2, 20, 0, 0, new byte[0])
            .pcapRecord(3, 30, 7, 1500, CaptureBytes.data(7, 2))
            .pcapRecord(4, 40, 33, 33, CaptureBytes.data(33, 3));
    }

    private static CaptureBytes pcapng(final ByteOrder order)
    {
        final CaptureBytes b = new CaptureBytes(order);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0, b.tsresol(9))
            .epb(0, 1_000, 13, 13, CaptureBytes.data(13, 1))
            .block(0x0BAD_F00D, n -> n.u32(1).u32(2))
            .spb(20, CaptureBytes.data(20, 2))
            .idb(LinkType.RAW, 0)
            .pb(1, 2_000, 0, 0, new byte[0])
            .epb(1, 3_000, 40, 40, CaptureBytes.data(40, 3));
        return b;
    }

    private static CaptureBytes build(final String kind)
    {
        return switch (kind)
        {
            case "pcap-le" -> classic(ByteOrder.LITTLE_ENDIAN);
            case "pcap-be" -> classic(ByteOrder.BIG_ENDIAN);
            case "pcapng-le" -> pcapng(ByteOrder.LITTLE_ENDIAN);
            case "pcapng-be" -> pcapng(ByteOrder.BIG_ENDIAN);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    /**
     * @return the records of the whole file, as read: captured bytes, in order.
     */
    private static List<byte[]> readAll(final Path path) throws IOException
    {
        final List<byte[]> records = new ArrayList<>();
        try (PcapReader reader = PcapReader.open(path))
        {
            while (reader.next())
            {
                records.add(Frames.read(reader.address(), reader.capturedLength()));
            }
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
        }
        return records;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pcap-le", "pcap-be", "pcapng-le", "pcapng-be"})
    void shouldDeliverOnlyTheCompleteRecordsWhenTheFileIsCutAtAnyByte(final String kind) throws IOException
    {
        final CaptureBytes built = build(kind);
        final byte[] whole = built.toBytes();
        final List<byte[]> expected = readAll(Files.write(dir.resolve("whole"), whole));
        assertThat(expected).hasSize(4);
        final int headerLength = kind.startsWith("pcapng") ? 28 : 24;

        for (int length = 0; length <= whole.length; length++)
        {
            final Path cut = Files.write(dir.resolve("cut-" + length), Arrays.copyOf(whole, length));
            final PcapReader reader;
            try
            {
                reader = PcapReader.open(cut);
            }
            catch (final PcapFormatException e)
            {
                assertThat(length).as("refused at open: %s", e.getMessage()).isLessThan(headerLength);
                assertThat(e.reason()).isEqualTo(EndReason.TRUNCATED_HEADER);
                continue;
            }
            try (reader)
            {
                assertThat(length).isGreaterThanOrEqualTo(headerLength);
                int delivered = 0;
                while (reader.next())
                {
                    assertThat(reader.address() + reader.capturedLength())
                        .isLessThanOrEqualTo(reader.fileAddress() + length);
                    assertThat(Frames.read(reader.address(), reader.capturedLength()))
                        .as("cut at %d, record %d", length, delivered).isEqualTo(expected.get(delivered));
                    delivered++;
                }
                // Records (and blocks) wholly before the cut are all delivered; none after it.
                int complete = 0;
                boolean atBoundary = length == headerLength;
                for (int i = 0; i < built.ends.size(); i++)
                {
                    if (built.ends.get(i) <= length && built.packets.get(i))
                    {
                        complete++;
                    }
                    atBoundary |= built.ends.get(i) == length;
                }
                assertThat(delivered).as("cut at %d", length).isEqualTo(complete);
                assertThat(reader.records()).isEqualTo(delivered);
                assertThat(reader.endReason()).as("cut at %d: %s", length, reader.endDetail())
                    .isEqualTo(atBoundary ? EndReason.END_OF_FILE : EndReason.TRUNCATED_RECORD);
            }
            Files.delete(cut);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"pcap-le", "pcap-be", "pcapng-le", "pcapng-be"})
    void shouldNeverThrowNorReadOutsideTheFileWhenRandomBytesAreOverwritten(final String kind) throws IOException
    {
        final byte[] whole = build(kind).toBytes();
        final SplittableRandom random = new SplittableRandom(kind.hashCode());
        final Path path = dir.resolve("fuzzed");
        final int[] interesting = {0, 1, 0x7F, 0x80, 0xFF, 0x0A, 0x0D, 0x1A, 0x4D};
        int opened = 0;
        int cleanEnds = 0;
        for (int round = 0; round < 2_000; round++)
        {
            final byte[] bytes = whole.clone();
            final int changes = random.nextInt(1, 6);
            for (int i = 0; i < changes; i++)
            {
                bytes[random.nextInt(bytes.length)] = (byte)(random.nextBoolean()
                    ? interesting[random.nextInt(interesting.length)] : random.nextInt(256));
            }
            Files.write(path, bytes);
            final PcapReader reader;
            try
            {
                reader = PcapReader.open(path);
            }
            catch (final PcapFormatException e)
            {
                assertThat(e.getMessage()).contains(path.toString());
                assertThat(e.reason()).isNotEqualTo(EndReason.NONE);
                continue;
            }
            catch (final RuntimeException e)
            {
                fail("round %d threw at open: %s", round, e);
                return;
            }
            opened++;
            try (reader)
            {
                long bytesRead = 0;
                while (reader.next())
                {
                    assertThat(reader.address()).isGreaterThanOrEqualTo(reader.fileAddress());
                    assertThat(reader.address() + reader.capturedLength())
                        .isLessThanOrEqualTo(reader.fileAddress() + bytes.length);
                    assertThat(reader.capturedLength()).isBetween(0, PcapReader.DEFAULT_MAX_CAPTURED_LENGTH);
                    for (int i = 0; i < reader.capturedLength(); i++)
                    {
                        bytesRead += Frames.u8(reader.address() + i);
                    }
                }
                assertThat(reader.endReason()).isNotIn(EndReason.NONE, EndReason.CLOSED);
                assertThat(bytesRead).isNotNegative();
                cleanEnds += reader.endReason() == EndReason.END_OF_FILE ? 1 : 0;
            }
            catch (final RuntimeException e)
            {
                fail("round %d threw from next(): %s", round, e);
            }
        }
        // Most single-byte changes hit packet data or timestamps, which the reader does not judge.
        assertThat(opened).isGreaterThan(1_000);
        assertThat(cleanEnds).isGreaterThan(100).isLessThan(opened);
    }
}
