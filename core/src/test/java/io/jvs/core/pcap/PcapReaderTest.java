package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Classic pcap files built byte by byte: both magics, both byte orders, the header fields, and each way
 * a record can end the iteration.
 */
class PcapReaderTest
{
    private static final int MICROS = 0xA1B2C3D4;
    private static final int NANOS = 0xA1B23C4D;

    @TempDir
    Path dir;

    private Path file(final CaptureBytes bytes) throws IOException
    {
        return bytes.write(dir, "test.pcap");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"BIG_ENDIAN", "LITTLE_ENDIAN"})
    void shouldReadMicrosecondRecordsWhenTheFileIsInEitherByteOrder(final String orderName) throws IOException
    {
        final ByteOrder order = orderName.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        final CaptureBytes bytes = new CaptureBytes(order).pcapHeader(MICROS, 2, 4, 65535, LinkType.ETHERNET)
            .pcapRecord(1_700_000_000L, 123_456, 60, 60, CaptureBytes.data(60, 1))
            .pcapRecord(1_700_000_001L, 999_999, 14, 1514, CaptureBytes.data(14, 2))
            .pcapRecord(1_700_000_001L, 0, 0, 0, new byte[0]);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.format()).isEqualTo(CaptureFormat.PCAP_MICROSECONDS);
            assertThat(reader.littleEndian()).isEqualTo(order == ByteOrder.LITTLE_ENDIAN);
            assertThat(reader.version()).isEqualTo(2 << 16 | 4);
            assertThat(reader.snapLength()).isEqualTo(65535);

            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(60);
            assertThat(reader.originalLength()).isEqualTo(60);
            assertThat(reader.timestampNs()).isEqualTo(1_700_000_000_123_456_000L);
            assertThat(reader.rawTimestamp()).isEqualTo(1_700_000_000L << 32 | 123_456);
            assertThat(reader.linkType()).isEqualTo(LinkType.ETHERNET);
            assertThat(reader.interfaceIndex()).isZero();
            assertThat(reader.flags()).isZero();
            assertThat(reader.recordOffset()).isEqualTo(24);
            assertThat(reader.address()).isEqualTo(reader.fileAddress() + 40);
            assertThat(Frames.read(reader.address(), 60)).isEqualTo(CaptureBytes.data(60, 1));

            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(14);
            assertThat(reader.originalLength()).isEqualTo(1514);
            assertThat(reader.timestampNs()).isEqualTo(1_700_000_001_999_999_000L);
            assertThat(Frames.read(reader.address(), 14)).isEqualTo(CaptureBytes.data(14, 2));

            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isZero();

            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
            assertThat(reader.endOffset()).isEqualTo(reader.size());
            assertThat(reader.records()).isEqualTo(3);
            assertThat(reader.address()).isZero();
            assertThat(reader.next()).isFalse();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"BIG_ENDIAN", "LITTLE_ENDIAN"})
    void shouldReadNanosecondTimestampsWhenTheMagicIsA1b23c4d(final String orderName) throws IOException
    {
        final ByteOrder order = orderName.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        final CaptureBytes bytes = new CaptureBytes(order).pcapHeader(NANOS, 2, 4, 262144, LinkType.RAW)
            .pcapRecord(1_700_000_000L, 123_456_789, 20, 20, CaptureBytes.data(20, 3));

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.format()).isEqualTo(CaptureFormat.PCAP_NANOSECONDS);
            assertThat(reader.next()).isTrue();
            assertThat(reader.timestampNs()).isEqualTo(1_700_000_000_123_456_789L);
            assertThat(reader.linkType()).isEqualTo(LinkType.RAW);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
        }
    }

    @Test
    void shouldReadSecondsAsUnsignedWhenTheTimestampIsAfter2038() throws IOException
    {
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(NANOS, 2, 4, 262144, LinkType.ETHERNET)
            .pcapRecord(0xFFFF_FFFFL, 999_999_999, 1, 1, new byte[1]);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.timestampNs()).isEqualTo(0xFFFF_FFFFL * 1_000_000_000L + 999_999_999L);
        }
    }

    @Test
    void shouldMaskAndReportTheFcsBitsWhenTheLinkTypeFieldHasThem() throws IOException
    {
        // FCS length 2 words (bits 28-31), P bit (26) set: a 4-byte FCS on Ethernet.
        final int field = 2 << 28 | 0x0400_0000 | LinkType.ETHERNET;
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 4, 65535, field).pcapRecord(1, 0, 4, 4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.linkType()).isEqualTo(LinkType.ETHERNET);
            assertThat(reader.linkTypeField()).isEqualTo(field);
            assertThat(reader.fcsLength()).isEqualTo(4);
        }
    }

    @Test
    void shouldReportAnUnknownFcsLengthWhenThePBitIsClear() throws IOException
    {
        // As in many of tcpdump's fuzzed captures: FCS length bits set, P bit clear.
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 4, 65535, 0x3000_0000 | LinkType.LINUX_SLL).pcapRecord(1, 0, 4, 4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.linkType()).isEqualTo(LinkType.LINUX_SLL);
            assertThat(reader.fcsLength()).isEqualTo(-1);
        }
    }

    @Test
    void shouldDeliverAndCountARecordWhenItIsLongerThanTheSnapLength() throws IOException
    {
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 4, 16, LinkType.ETHERNET)
            .pcapRecord(1, 0, 16, 100, CaptureBytes.data(16, 1))
            .pcapRecord(2, 0, 40, 100, CaptureBytes.data(40, 2))
            .pcapRecord(3, 0, 10, 100, CaptureBytes.data(10, 3));

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.flags()).isZero();
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(40);
            assertThat(reader.flags()).isEqualTo(PcapReader.FLAG_ABOVE_SNAP_LENGTH);
            assertThat(Frames.read(reader.address(), 40)).isEqualTo(CaptureBytes.data(40, 2));
            assertThat(reader.next()).isTrue();
            assertThat(reader.flags()).isZero();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
            assertThat(reader.records()).isEqualTo(3);
            assertThat(reader.recordsAboveSnapLength()).isEqualTo(1);
        }
    }

    @Test
    void shouldNotFlagAnyRecordWhenTheSnapLengthIsZero() throws IOException
    {
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 4, 0, LinkType.ETHERNET).pcapRecord(1, 0, 40, 40, new byte[40]);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.flags()).isZero();
        }
    }

    @Test
    void shouldEndWithCapturedAboveOriginalWhenARecordClaimsIt() throws IOException
    {
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 4, 65535, LinkType.ETHERNET)
            .pcapRecord(1, 0, 10, 10, new byte[10])
            .pcapRecord(2, 0, 34, 32, new byte[34])
            .pcapRecord(3, 0, 10, 10, new byte[10]);
        final Path path = file(bytes);

        try (PcapReader reader = PcapReader.open(path))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.CAPTURED_ABOVE_ORIGINAL);
            assertThat(reader.endOffset()).isEqualTo(24 + 16 + 10);
            assertThat(reader.endDetail()).contains("34").contains("32");
            assertThat(reader.records()).isEqualTo(1);
        }
        try (PcapReader reader = PcapReader.open(path, PcapReader.DEFAULT_MAX_CAPTURED_LENGTH, true))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isTrue();
            assertThat(reader.flags()).isEqualTo(PcapReader.FLAG_CAPTURED_ABOVE_ORIGINAL);
            assertThat(reader.capturedLength()).isEqualTo(34);
            assertThat(reader.originalLength()).isEqualTo(32);
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
            assertThat(reader.recordsCapturedAboveOriginal()).isEqualTo(1);
        }
    }

    @Test
    void shouldEndWithCaplenAboveLimitWhenARecordIsLongerThanTheLimit() throws IOException
    {
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.BIG_ENDIAN)
            .pcapHeader(MICROS, 2, 4, 65535, LinkType.ETHERNET)
            .pcapRecord(1, 0, 100, 100, new byte[100])
            .pcapRecord(2, 0, 101, 101, new byte[101]);
        final Path path = file(bytes);

        try (PcapReader reader = PcapReader.open(path, 100, false))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.CAPLEN_ABOVE_LIMIT);
            assertThat(reader.records()).isEqualTo(1);
        }
        // A huge captured length, as a fuzzer writes it: the default limit stops it too.
        final byte[] huge = bytes.toBytes();
        CaptureBytes.put32(huge, 24 + 8, 0x7FFF_FFFF, ByteOrder.BIG_ENDIAN);
        CaptureBytes.put32(huge, 24 + 12, 0xFFFF_FFFF, ByteOrder.BIG_ENDIAN);
        try (PcapReader reader = PcapReader.open(Files.write(dir.resolve("huge.pcap"), huge)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.CAPLEN_ABOVE_LIMIT);
            assertThat(reader.endOffset()).isEqualTo(24);
        }
    }

    @Test
    void shouldEndWithTruncatedRecordWhenTheLastRecordIsCutShort() throws IOException
    {
        final byte[] whole = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 4, 65535, LinkType.ETHERNET)
            .pcapRecord(1, 0, 10, 10, new byte[10])
            .pcapRecord(2, 0, 30, 30, new byte[30]).toBytes();

        final Path cutInData = Files.write(dir.resolve("data.pcap"), Arrays.copyOf(whole, whole.length - 1));
        try (PcapReader reader = PcapReader.open(cutInData))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.TRUNCATED_RECORD);
            assertThat(reader.endOffset()).isEqualTo(50);
            assertThat(reader.records()).isEqualTo(1);
        }
        final Path cutInHeader = Files.write(dir.resolve("header.pcap"), Arrays.copyOf(whole, 50 + 15));
        try (PcapReader reader = PcapReader.open(cutInHeader))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.TRUNCATED_RECORD);
            assertThat(reader.endDetail()).contains("15 of 16");
        }
    }

    @Test
    void shouldSwapTheLengthsWhenTheFileIsVersion22() throws IOException
    {
        // Before 2.3, the original length came first.
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 2, 65535, LinkType.ETHERNET).pcapRecord(1, 0, 1500, 8, new byte[8]);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(8);
            assertThat(reader.originalLength()).isEqualTo(1500);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
        }
    }

    @Test
    void shouldSwapTheLengthsOnlyWhenNeededWhenTheFileIsVersion23() throws IOException
    {
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 3, 65535, LinkType.ETHERNET)
            .pcapRecord(1, 0, 8, 1500, new byte[8])
            .pcapRecord(2, 0, 1500, 9, new byte[9]);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(8);
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(9);
            assertThat(reader.originalLength()).isEqualTo(1500);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
        }
    }

    @Test
    void shouldRefuseTheFileNamingItAndItsMagicWhenTheMagicIsUnknown() throws IOException
    {
        final Path path = Files.writeString(dir.resolve("notes.txt"), "License: BSD\n");

        assertThatThrownBy(() -> PcapReader.open(path))
            .isInstanceOf(PcapFormatException.class)
            .hasMessageContaining(path.toString())
            .hasMessageContaining("4c696365")
            .hasMessageContaining("\"Lice\"")
            .extracting(e -> ((PcapFormatException)e).reason()).isEqualTo(EndReason.UNKNOWN_FORMAT);
    }

    @Test
    void shouldNameTheVariantWhenTheMagicIsKuznetzovsModifiedPcap() throws IOException
    {
        final Path path = file(new CaptureBytes(ByteOrder.LITTLE_ENDIAN).pcapHeader(0xA1B2CD34, 2, 4, 65535, 1));

        assertThatThrownBy(() -> PcapReader.open(path))
            .isInstanceOf(PcapFormatException.class)
            .hasMessageContaining("Kuznetzov");
    }

    @Test
    void shouldRefuseTheFileWhenItIsEmptyOrShorterThanItsHeader() throws IOException
    {
        final Path empty = Files.write(dir.resolve("empty.pcap"), new byte[0]);
        assertThatThrownBy(() -> PcapReader.open(empty))
            .isInstanceOf(PcapFormatException.class)
            .hasMessageContaining("empty")
            .extracting(e -> ((PcapFormatException)e).reason()).isEqualTo(EndReason.TRUNCATED_HEADER);

        final byte[] header = new CaptureBytes(ByteOrder.LITTLE_ENDIAN).pcapHeader(MICROS, 2, 4, 65535, 1).toBytes();
        final Path cut = Files.write(dir.resolve("cut.pcap"), Arrays.copyOf(header, 23));
        assertThatThrownBy(() -> PcapReader.open(cut))
            .isInstanceOf(PcapFormatException.class)
            .hasMessageContaining("23 bytes")
            .extracting(e -> ((PcapFormatException)e).reason()).isEqualTo(EndReason.TRUNCATED_HEADER);
    }

    @Test
    void shouldRefuseTheFileWhenItsVersionIsNot2() throws IOException
    {
        final Path path = file(new CaptureBytes(ByteOrder.LITTLE_ENDIAN).pcapHeader(MICROS, 3, 0, 65535, 1));

        assertThatThrownBy(() -> PcapReader.open(path))
            .isInstanceOf(PcapFormatException.class)
            .hasMessageContaining("3.0")
            .extracting(e -> ((PcapFormatException)e).reason()).isEqualTo(EndReason.UNSUPPORTED_VERSION);
    }

    @Test
    void shouldEndCleanlyWithNoRecordsWhenTheFileIsOnlyAHeader() throws IOException
    {
        try (PcapReader reader = PcapReader.open(file(
            new CaptureBytes(ByteOrder.BIG_ENDIAN).pcapHeader(NANOS, 2, 4, 65535, LinkType.LINUX_SLL2))))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
            assertThat(reader.records()).isZero();
            assertThat(reader.linkType()).isEqualTo(LinkType.LINUX_SLL2);
        }
    }

    @Test
    void shouldDeliverTheSameRecordsAgainWhenRewound() throws IOException
    {
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 4, 65535, LinkType.ETHERNET)
            .pcapRecord(1, 0, 10, 10, CaptureBytes.data(10, 1))
            .pcapRecord(2, 0, 20, 20, CaptureBytes.data(20, 2));

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            while (reader.next())
            {
                assertThat(reader.capturedLength()).isPositive();
            }
            reader.rewind();
            assertThat(reader.endReason()).isEqualTo(EndReason.NONE);
            assertThat(reader.records()).isZero();
            assertThat(reader.next()).isTrue();
            assertThat(Frames.read(reader.address(), 10)).isEqualTo(CaptureBytes.data(10, 1));
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.records()).isEqualTo(2);
        }
    }

    @Test
    void shouldStopDeliveringWhenClosed() throws IOException
    {
        final CaptureBytes bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN)
            .pcapHeader(MICROS, 2, 4, 65535, LinkType.ETHERNET)
            .pcapRecord(1, 0, 10, 10, new byte[10])
            .pcapRecord(2, 0, 10, 10, new byte[10]);
        final PcapReader reader = PcapReader.open(file(bytes));
        assertThat(reader.next()).isTrue();

        reader.close();
        reader.close();

        assertThat(reader.next()).isFalse();
        assertThat(reader.endReason()).isEqualTo(EndReason.CLOSED);
        assertThat(reader.records()).isEqualTo(1);
        assertThatThrownBy(reader::rewind).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldReadARecordBeyond2GiBWhenTheFileIsThatLarge() throws IOException
    {
        // A sparse file: one record of almost 2 GiB of zeros, then a small one past the 2 GiB mark.
        final int huge = Integer.MAX_VALUE;
        final byte[] head = new CaptureBytes(ByteOrder.LITTLE_ENDIAN).pcapHeader(NANOS, 2, 4, 0, LinkType.ETHERNET)
            .u32(1).u32(0).u32(huge).u32(huge).toBytes();
        final byte[] tail = new CaptureBytes(ByteOrder.LITTLE_ENDIAN).pcapRecord(2, 5, 8, 8, CaptureBytes.data(8, 9))
            .toBytes();
        final Path path = dir.resolve("sparse.pcap");
        try (FileChannel channel = FileChannel.open(path,
            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            StandardOpenOption.SPARSE))
        {
            channel.write(ByteBuffer.wrap(head));
            channel.write(ByteBuffer.wrap(tail), head.length + (long)huge);
        }

        try (PcapReader reader = PcapReader.open(path, Integer.MAX_VALUE, false))
        {
            assertThat(reader.size()).isGreaterThan(1L << 31);
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(huge);
            assertThat(reader.next()).isTrue();
            assertThat(reader.recordOffset()).isEqualTo(head.length + (long)huge).isGreaterThan(1L << 31);
            assertThat(reader.timestampNs()).isEqualTo(2_000_000_005L);
            assertThat(Frames.read(reader.address(), 8)).isEqualTo(CaptureBytes.data(8, 9));
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
        }
    }

    @Test
    void shouldNameTheLinkTypesItKnowsAndNumberTheOthers()
    {
        assertThat(LinkType.name(LinkType.ETHERNET)).isEqualTo("ETHERNET");
        assertThat(LinkType.name(113)).isEqualTo("LINUX_SLL");
        assertThat(LinkType.name(276)).isEqualTo("LINUX_SLL2");
        assertThat(LinkType.name(0)).isEqualTo("NULL");
        assertThat(LinkType.name(108)).isEqualTo("LOOP");
        assertThat(LinkType.name(127)).isEqualTo("127");
    }
}
