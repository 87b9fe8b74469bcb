package io.jvs.core.pcap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Classic pcap at the edges: files too short for a magic number or a header, the magic numbers of the pcap
 * variants jvs does not read, lengths at each limit, and the reader's state after a rewind and a close.
 */
class PcapBoundaryTest
{
    private static final int MICROS = 0xA1B2C3D4;

    @TempDir
    Path dir;

    private Path file(final byte[] bytes) throws IOException
    {
        return Files.write(dir.resolve("edge.pcap"), bytes);
    }

    private Path file(final CaptureBytes bytes) throws IOException
    {
        return bytes.write(dir, "edge.pcap");
    }

    private static CaptureBytes header()
    {
        return new CaptureBytes(ByteOrder.LITTLE_ENDIAN).pcapHeader(MICROS, 2, 4, 65535, LinkType.ETHERNET);
    }

    private PcapFormatException refusal(final byte[] bytes) throws IOException
    {
        final Path path = file(bytes);
        final PcapFormatException e = catchThrowableOfType(PcapFormatException.class, () -> PcapReader.open(path));
        assertThat(e).isNotNull();
        assertThat(e.path()).isEqualTo(path);
        return e;
    }

    @Test
    void shouldSayWhetherAShortFileIsEmptyTooShortForAMagicOrTooShortForAHeader() throws IOException
    {
        final PcapFormatException empty = refusal(new byte[0]);
        assertThat(empty.reason()).isEqualTo(EndReason.TRUNCATED_HEADER);
        assertThat(empty.getMessage()).contains("empty file, not a capture file");

        final PcapFormatException three = refusal(new byte[] {(byte)0xD4, (byte)0xC3, (byte)0xB2});
        assertThat(three.reason()).isEqualTo(EndReason.TRUNCATED_HEADER);
        assertThat(three.getMessage()).contains("only 3 bytes, too short for a capture file's magic number");

        // Four bytes hold a magic number: the file is a classic pcap cut inside its header.
        final PcapFormatException four = refusal(new byte[] {(byte)0xD4, (byte)0xC3, (byte)0xB2, (byte)0xA1});
        assertThat(four.reason()).isEqualTo(EndReason.TRUNCATED_HEADER);
        assertThat(four.getMessage())
            .contains("classic pcap file of only 4 bytes, shorter than its 24-byte file header");
    }

    @Test
    void shouldShowTheMagicsPrintableBytesAndDotsForTheOthers() throws IOException
    {
        // 0x20 and 0x7E are the first and last printable characters; 0x1F and 0x7F are not.
        final PcapFormatException e = refusal(new byte[] {0x20, 0x7E, 0x1F, 0x7F, 0, 0, 0, 0});
        assertThat(e.reason()).isEqualTo(EndReason.UNKNOWN_FORMAT);
        assertThat(e.getMessage()).contains("(\" ~..\")").contains("is none of pcap a1b2c3d4");
    }

    @Test
    void shouldNameTheModifiedPcapVariantsInEitherByteOrder() throws IOException
    {
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
        {
            final byte[] kuznetzov = new CaptureBytes(order).pcapHeader(0xA1B2CD34, 2, 4, 65535, 1).toBytes();
            assertThat(refusal(kuznetzov).getMessage()).as(order.toString())
                .contains("is Alexey Kuznetzov's modified pcap, which jvs does not read");
            final byte[] navtel = new CaptureBytes(order).pcapHeader(0xA12B3C4D, 2, 4, 65535, 1).toBytes();
            final PcapFormatException e = refusal(navtel);
            assertThat(e.reason()).isEqualTo(EndReason.UNKNOWN_FORMAT);
            assertThat(e.getMessage()).as(order.toString())
                .contains("is Navtel's modified pcap, which jvs does not read");
        }
    }

    @Test
    void shouldSayRecordHeaderWhenAClassicFileEndsInsideARecordHeader() throws IOException
    {
        final CaptureBytes b = header().pcapRecord(1, 0, 4, 4, new byte[4]).u32(2).u32(0);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.TRUNCATED_RECORD);
            assertThat(reader.endDetail()).isEqualTo("record header cut short: 8 of 16 bytes left");
            assertThat(reader.endOffset()).isEqualTo(24 + 16 + 4);
        }
    }

    @Test
    void shouldTakeALimitOfZeroAndRefuseANegativeOne() throws IOException
    {
        final Path path = file(header().pcapRecord(1, 0, 0, 60, new byte[0]).pcapRecord(2, 0, 1, 60, new byte[1]));
        assertThatIllegalArgumentException().isThrownBy(() -> PcapReader.open(path, -1, false))
            .withMessage("maxCapturedLength -1 < 0");

        try (PcapReader reader = PcapReader.open(path, 0, false))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isZero();
            assertThat(reader.originalLength()).isEqualTo(60);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.CAPLEN_ABOVE_LIMIT);
            assertThat(reader.endDetail()).isEqualTo("captured length 1 above the limit of 0");
        }
    }

    @Test
    void shouldDeliverARecordAtTheLimitThatIsAboveItsOriginalLengthWhenThatIsAccepted() throws IOException
    {
        final Path path = file(header().pcapRecord(1, 0, 10, 5, new byte[10]).pcapRecord(2, 0, 11, 5, new byte[11]));

        try (PcapReader reader = PcapReader.open(path, 10, true))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(10);
            assertThat(reader.originalLength()).isEqualTo(5);
            assertThat(reader.flags()).isEqualTo(PcapReader.FLAG_CAPTURED_ABOVE_ORIGINAL);
            assertThat(reader.recordsCapturedAboveOriginal()).isEqualTo(1);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.CAPLEN_ABOVE_LIMIT);
        }
    }

    @Test
    void shouldKeepTheLengthsOfAVersion23RecordThatAreAlreadyInOrder() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.BIG_ENDIAN).pcapHeader(MICROS, 2, 3, 65535, 1)
            .pcapRecord(1, 0, 8, 1500, new byte[8])
            .pcapRecord(2, 0, 9, 9, new byte[9]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(8);
            assertThat(reader.originalLength()).isEqualTo(1500);
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(9);
            assertThat(reader.originalLength()).isEqualTo(9);
            assertThat(reader.version()).isEqualTo(2 << 16 | 3);
        }
    }

    @Test
    void shouldDescribeOneInterfaceAndNoSectionsWhenTheFileIsClassicPcap() throws IOException
    {
        try (PcapReader reader = PcapReader.open(file(header())))
        {
            assertThat(reader.interfaces()).isEqualTo(1);
            assertThat(reader.sections()).isZero();
            assertThat(reader.linkTypeField()).isEqualTo(LinkType.ETHERNET);
        }
    }

    @Test
    void shouldHaveNoCurrentRecordAfterARewindOrAClose() throws IOException
    {
        final Path path = file(header().pcapRecord(1, 0, 4, 4, new byte[4]));
        final PcapReader reader = PcapReader.open(path);
        assertThat(reader.path()).isEqualTo(path);
        reader.load();
        assertThat(reader.next()).isTrue();
        assertThat(reader.address()).isNotZero();
        reader.rewind();
        assertThat(reader.address()).isZero();
        assertThat(reader.capturedLength()).isZero();
        assertThat(reader.originalLength()).isZero();
        assertThat(reader.next()).isTrue();
        assertThat(reader.toString()).isEqualTo("PcapReader{" + path + ", PCAP_MICROSECONDS, records=1, end=NONE}");

        reader.close();
        assertThat(reader.address()).isZero();
        assertThat(reader.capturedLength()).isZero();
        assertThat(reader.endReason()).isEqualTo(EndReason.CLOSED);
        assertThat(reader.endOffset()).isEqualTo(24 + 16 + 4);
        assertThat(reader.toString()).isEqualTo(
            "PcapReader{" + path + ", PCAP_MICROSECONDS, records=1, end=CLOSED at 44}");
        assertThatThrownBy(reader::load).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(path.toString());
        assertThatThrownBy(reader::rewind).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldNameTheEndAndItsDetailInItsDescription() throws IOException
    {
        final Path path = file(header().pcapRecord(1, 0, 4, 4, new byte[4]).u32(1));
        try (PcapReader reader = PcapReader.open(path))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.toString()).isEqualTo("PcapReader{" + path + ", PCAP_MICROSECONDS, records=1,"
                + " end=TRUNCATED_RECORD at 44: record header cut short: 4 of 16 bytes left}");
        }
    }
}
