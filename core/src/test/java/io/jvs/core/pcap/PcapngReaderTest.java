package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * pcapng files built block by block in the test, in both byte orders: every packet block type, the
 * interface options that change timestamps, blocks to skip, several sections, and each malformation
 * that ends the iteration.
 */
class PcapngReaderTest
{
    @TempDir
    Path dir;

    private static ByteOrder order(final String name)
    {
        return name.equals("BIG_ENDIAN") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
    }

    private Path file(final CaptureBytes bytes) throws IOException
    {
        return bytes.write(dir, "test.pcapng");
    }

    private Path file(final byte[] bytes) throws IOException
    {
        return Files.write(dir.resolve("patched.pcapng"), bytes);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"BIG_ENDIAN", "LITTLE_ENDIAN"})
    void shouldReadEveryPacketBlockAndSkipTheRestWhenTheSectionIsInEitherByteOrder(final String orderName)
        throws IOException
    {
        final CaptureBytes b = new CaptureBytes(order(orderName));
        b.shb(1, 0)
            .idb(LinkType.ETHERNET, 96, b.tsresol(9), b.option(2, "eth0".getBytes()))
            .block(CaptureBytes.NRB, n -> n.u16(1).u16(8).bytes(new byte[] {10, 0, 0, 1, 'h', 'o', 's', 't'}).u32(0))
            .epb(0, 1_700_000_000_123_456_789L, 61, 1514, CaptureBytes.data(61, 1))
            .block(0x0BAD_F00D, n -> n.u32(42))
            .spb(200, CaptureBytes.data(100, 2))
            .block(CaptureBytes.CUSTOM, n -> n.u32(32473).bytes(new byte[] {1, 2, 3}))
            .spb(50, CaptureBytes.data(52, 3))
            .block(CaptureBytes.ISB, n -> n.u32(0).u32(0).u32(0));

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.format()).isEqualTo(CaptureFormat.PCAPNG);
            assertThat(reader.littleEndian()).isEqualTo(b.order() == ByteOrder.LITTLE_ENDIAN);

            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(61);
            assertThat(reader.originalLength()).isEqualTo(1514);
            assertThat(reader.timestampNs()).isEqualTo(1_700_000_000_123_456_789L);
            assertThat(reader.rawTimestamp()).isEqualTo(1_700_000_000_123_456_789L);
            assertThat(reader.linkType()).isEqualTo(LinkType.ETHERNET);
            assertThat(reader.interfaceIndex()).isZero();
            assertThat(reader.snapLength()).isEqualTo(96);
            assertThat(reader.flags()).isZero();
            assertThat(Frames.read(reader.address(), 61)).isEqualTo(CaptureBytes.data(61, 1));

            // The SPB's captured length: its original length cut to interface 0's snapshot length (the
            // block holds 100 bytes, but a writer must not put more than the snapshot length there).
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(96);
            assertThat(reader.originalLength()).isEqualTo(200);
            assertThat(reader.timestampNs()).isZero();
            assertThat(reader.flags()).isEqualTo(PcapReader.FLAG_NO_TIMESTAMP);
            assertThat(reader.linkType()).isEqualTo(LinkType.ETHERNET);
            assertThat(Frames.read(reader.address(), 96)).isEqualTo(Arrays.copyOf(CaptureBytes.data(100, 2), 96));

            // ...and to its original length, the rest of the block being padding.
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(50);
            assertThat(Frames.read(reader.address(), 50)).isEqualTo(Arrays.copyOf(CaptureBytes.data(52, 3), 50));

            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
            assertThat(reader.records()).isEqualTo(3);
            assertThat(reader.blocksSkipped()).isEqualTo(4);
            assertThat(reader.sections()).isEqualTo(1);
            assertThat(reader.interfaces()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"BIG_ENDIAN", "LITTLE_ENDIAN"})
    void shouldConvertTimestampsWithEachInterfacesResolutionAndOffset(final String orderName) throws IOException
    {
        final CaptureBytes b = new CaptureBytes(order(orderName));
        b.shb(1, 0)
            .idb(LinkType.RAW, 0)                                   // 0: default, µs
            .idb(LinkType.IPV4, 0, b.tsresol(3))                    // 1: ms
            .idb(LinkType.IPV6, 0, b.tsresol(12))                   // 2: ps
            .idb(LinkType.LINUX_SLL, 0, b.tsresol(0x80 | 20))       // 3: 2^-20 s
            .idb(LinkType.NULL, 0, b.tsresol(9), b.tsoffset(1_000)) // 4: ns, 1000 s later
            .idb(LinkType.LOOP, 0, b.tsresol(0x80), b.fcslen(4))    // 5: 2^0 = seconds
            .epb(0, 1_700_000_000_000_001L, 1, 1, new byte[1])
            .epb(1, 1_700_000_000_002L, 1, 1, new byte[1])
            .epb(2, 1_700_000_000_000_003_999L, 1, 1, new byte[1])
            .epb(3, (1_700_000_000L << 20) | (1 << 19), 1, 1, new byte[1])
            .epb(4, 5L, 1, 1, new byte[1])
            .pb(5, 1_700_000_000L, 1, 1, new byte[1]);

        final long[] expected = {
            1_700_000_000_000_001_000L,
            1_700_000_000_002_000_000L,
            1_700_000_000_000_003L,
            1_700_000_000_500_000_000L,
            1_000_000_000_005L,
            1_700_000_000_000_000_000L};
        final int[] linkTypes = {LinkType.RAW, LinkType.IPV4, LinkType.IPV6, LinkType.LINUX_SLL, LinkType.NULL,
            LinkType.LOOP};
        try (PcapReader reader = PcapReader.open(file(b)))
        {
            for (int i = 0; i < expected.length; i++)
            {
                assertThat(reader.next()).as("record %d", i).isTrue();
                assertThat(reader.interfaceIndex()).isEqualTo(i);
                assertThat(reader.linkType()).isEqualTo(linkTypes[i]);
                assertThat(reader.timestampNs()).as("record %d", i).isEqualTo(expected[i]);
            }
            assertThat(reader.fcsLength()).isEqualTo(4);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
        }
    }

    @Test
    void shouldConvertABinaryFractionExactlyWhenItHasMoreThan33Bits() throws IOException
    {
        // 2^-40 s units: 1.75 s plus one unit (0.909 ps, truncated to 0 ns).
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0, b.tsresol(0x80 | 40))
            .epb(0, (1L << 40) + (3L << 38) + 1, 1, 1, new byte[1])
            .epb(0, (1L << 40) - 1, 1, 1, new byte[1]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.timestampNs()).isEqualTo(1_750_000_000L);
            assertThat(reader.next()).isTrue();
            assertThat(reader.timestampNs()).isEqualTo(999_999_999L);
        }
    }

    @Test
    void shouldStartOverWithEachSectionsByteOrderAndInterfacesWhenTheFileHasSeveralSections() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0).idb(LinkType.RAW, 0)
            .epb(1, 1_000_000, 4, 4, CaptureBytes.data(4, 1));
        b.order(ByteOrder.BIG_ENDIAN);
        b.shb(1, 2).idb(LinkType.LINUX_SLL2, 0, b.tsresol(9))
            .epb(0, 2_000_000_000L, 5, 5, CaptureBytes.data(5, 2))
            .epb(1, 0, 5, 5, CaptureBytes.data(5, 3)); // interface 1 belonged to the first section only

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.linkType()).isEqualTo(LinkType.RAW);
            assertThat(reader.timestampNs()).isEqualTo(1_000_000_000L);
            assertThat(reader.littleEndian()).isTrue();

            assertThat(reader.next()).isTrue();
            assertThat(reader.littleEndian()).isFalse();
            assertThat(reader.sections()).isEqualTo(2);
            assertThat(reader.linkType()).isEqualTo(LinkType.LINUX_SLL2);
            assertThat(reader.timestampNs()).isEqualTo(2_000_000_000L);
            assertThat(Frames.read(reader.address(), 5)).isEqualTo(CaptureBytes.data(5, 2));

            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.UNDEFINED_INTERFACE);
            assertThat(reader.records()).isEqualTo(2);
        }
    }

    @Test
    void shouldEndWithUndefinedInterfaceWhenAPacketComesBeforeAnyInterface() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN).shb(1, 0).spb(4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.UNDEFINED_INTERFACE);
            assertThat(reader.endOffset()).isEqualTo(28);
        }
    }

    @Test
    void shouldEndWithBadBlockLengthWhenTheTrailerDisagreesWithTheHeader() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.BIG_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0).epb(0, 1, 4, 4, new byte[4]).epb(0, 2, 4, 4, new byte[4]);
        final byte[] bytes = b.toBytes();
        CaptureBytes.put32(bytes, b.ends.get(3) - 4, 999, ByteOrder.BIG_ENDIAN);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_BLOCK_LENGTH);
            assertThat(reader.endOffset()).isEqualTo((long)b.ends.get(2));
            assertThat(reader.endDetail()).contains("trailer says 999");
        }
    }

    @Test
    void shouldEndWithBadBlockLengthWhenALengthIsNotAMultipleOf4() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0).epb(0, 1, 4, 4, new byte[4]);
        final byte[] bytes = b.toBytes();
        final int epb = b.ends.get(1);
        CaptureBytes.put32(bytes, epb + 4, 37, ByteOrder.LITTLE_ENDIAN);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_BLOCK_LENGTH);
            assertThat(reader.endDetail()).contains("37");
        }
    }

    @Test
    void shouldEndWithBadBlockLengthWhenThePacketDoesNotFitInItsBlock() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0).epb(0, 1, 8, 1000, new byte[8]);
        final byte[] bytes = b.toBytes();
        CaptureBytes.put32(bytes, b.ends.get(1) + 20, 200, ByteOrder.LITTLE_ENDIAN); // captured length

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_BLOCK_LENGTH);
            assertThat(reader.endDetail()).contains("200");
        }
    }

    @Test
    void shouldEndWithTruncatedRecordWhenABlockClaimsMoreBytesThanRemain() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0).epb(0, 1, 4, 4, new byte[4]);
        final byte[] bytes = b.toBytes();
        CaptureBytes.put32(bytes, b.ends.get(1) + 4, 0x7FFF_FFF0, ByteOrder.LITTLE_ENDIAN);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.TRUNCATED_RECORD);
        }
    }

    @Test
    void shouldEndOrFlagWhenTheCapturedLengthIsAboveTheOriginalOrTheSnapLengthOrTheLimit() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 8)
            .epb(0, 1, 12, 12, new byte[12])   // above the snapshot length: delivered, flagged
            .epb(0, 2, 12, 10, new byte[12])   // above the original length
            .epb(0, 3, 64, 64, new byte[64]);  // above a limit of 63
        final Path path = file(b);

        try (PcapReader reader = PcapReader.open(path))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.flags()).isEqualTo(PcapReader.FLAG_ABOVE_SNAP_LENGTH);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.CAPTURED_ABOVE_ORIGINAL);
            assertThat(reader.recordsAboveSnapLength()).isEqualTo(1);
        }
        try (PcapReader reader = PcapReader.open(path, 63, true))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isTrue();
            assertThat(reader.flags())
                .isEqualTo(PcapReader.FLAG_ABOVE_SNAP_LENGTH | PcapReader.FLAG_CAPTURED_ABOVE_ORIGINAL);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.CAPLEN_ABOVE_LIMIT);
            assertThat(reader.records()).isEqualTo(2);
        }
    }

    @Test
    void shouldEndWithBadOptionWhenAnInterfaceOptionRunsPastItsBlock() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0, b.option(2, "eth0".getBytes())).epb(0, 1, 4, 4, new byte[4]);
        final byte[] bytes = b.toBytes();
        final int idb = b.ends.get(0);
        bytes[idb + 16 + 2] = 40; // the if_name option claims 40 bytes

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_OPTION);
            assertThat(reader.endOffset()).isEqualTo(idb);
        }
    }

    @Test
    void shouldEndWithBadOptionWhenTheTimestampResolutionIsTooFine() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0, b.tsresol(20)).epb(0, 1, 4, 4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_OPTION);
            assertThat(reader.endDetail()).contains("10^-20");
        }
    }

    @Test
    void shouldEndWithUnknownFormatWhenALaterSectionHasABadByteOrderMagic() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0).epb(0, 1, 4, 4, new byte[4]).shb(1, 0);
        final byte[] bytes = b.toBytes();
        CaptureBytes.put32(bytes, b.ends.get(2) + 8, 0x12345678, ByteOrder.BIG_ENDIAN);

        try (PcapReader reader = PcapReader.open(file(bytes)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.UNKNOWN_FORMAT);
            assertThat(reader.endDetail()).contains("12345678");
        }
    }

    @Test
    void shouldRefuseTheFileWhenTheFirstSectionIsNotVersion1() throws IOException
    {
        final Path path = file(new CaptureBytes(ByteOrder.LITTLE_ENDIAN).shb(2, 0));

        assertThatThrownBy(() -> PcapReader.open(path))
            .isInstanceOf(PcapFormatException.class)
            .hasMessageContaining(path.toString())
            .hasMessageContaining("2.0")
            .extracting(e -> ((PcapFormatException)e).reason()).isEqualTo(EndReason.UNSUPPORTED_VERSION);
    }

    @Test
    void shouldRefuseTheFileWhenTheByteOrderMagicIsWrong() throws IOException
    {
        final byte[] bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN).shb(1, 0).toBytes();
        CaptureBytes.put32(bytes, 8, 0x0D0A0D0A, ByteOrder.BIG_ENDIAN); // a text file that starts with \n\r\r\n

        assertThatThrownBy(() -> PcapReader.open(file(bytes)))
            .isInstanceOf(PcapFormatException.class)
            .hasMessageContaining("byte-order magic 0d0a0d0a")
            .extracting(e -> ((PcapFormatException)e).reason()).isEqualTo(EndReason.UNKNOWN_FORMAT);
    }

    @Test
    void shouldRefuseTheFileWhenTheFirstSectionHeaderIsCutShort() throws IOException
    {
        final byte[] bytes = new CaptureBytes(ByteOrder.LITTLE_ENDIAN).shb(1, 0).toBytes();

        assertThatThrownBy(() -> PcapReader.open(file(Arrays.copyOf(bytes, bytes.length - 1))))
            .isInstanceOf(PcapFormatException.class)
            .extracting(e -> ((PcapFormatException)e).reason()).isEqualTo(EndReason.TRUNCATED_HEADER);
    }

    @Test
    void shouldReadFromTheFirstSectionAgainWhenRewound() throws IOException
    {
        final CaptureBytes b = new CaptureBytes(ByteOrder.BIG_ENDIAN);
        b.shb(1, 0).idb(LinkType.ETHERNET, 0).epb(0, 1, 4, 4, CaptureBytes.data(4, 1));
        b.order(ByteOrder.LITTLE_ENDIAN);
        b.shb(1, 0).idb(LinkType.RAW, 0).epb(0, 2, 4, 4, CaptureBytes.data(4, 2));

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            while (reader.next())
            {
                assertThat(reader.capturedLength()).isEqualTo(4);
            }
            assertThat(reader.records()).isEqualTo(2);
            reader.rewind();
            assertThat(reader.next()).isTrue();
            assertThat(reader.linkType()).isEqualTo(LinkType.ETHERNET);
            assertThat(reader.littleEndian()).isFalse();
            assertThat(reader.sections()).isEqualTo(1);
            assertThat(reader.next()).isTrue();
            assertThat(reader.linkType()).isEqualTo(LinkType.RAW);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
        }
    }
}
