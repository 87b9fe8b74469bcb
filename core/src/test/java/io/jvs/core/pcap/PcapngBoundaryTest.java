package io.jvs.core.pcap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * pcapng at the edges of what the format allows: the smallest block of each kind, lengths one below and at each
 * minimum, packets that just fit or just do not, the finest timestamp resolutions, the interface limit, and a
 * later section that is malformed each way a first one would be refused at open.
 */
class PcapngBoundaryTest
{
    private static final int UNKNOWN_BLOCK = 0x0BAD_F00D;

    @TempDir
    Path dir;

    private Path file(final CaptureBytes bytes) throws IOException
    {
        return bytes.write(dir, "edge.pcapng");
    }

    private static CaptureBytes section()
    {
        return new CaptureBytes(ByteOrder.LITTLE_ENDIAN).shb(1, 0);
    }

    @Test
    void shouldSkipATwelveByteBlockWhenItIsTheLastOfTheFile() throws IOException
    {
        // 12 bytes is the smallest block there is (type, length, trailer); ending the file exactly is a clean end.
        final CaptureBytes b = section().idb(LinkType.ETHERNET, 0).epb(0, 1, 4, 4, new byte[4])
            .block(UNKNOWN_BLOCK, body -> { });

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
            assertThat(reader.blocksSkipped()).isEqualTo(1);
            assertThat(reader.endOffset()).isEqualTo(reader.size());
        }
    }

    @Test
    void shouldSayBlockHeaderWhenAPcapngFileEndsInsideABlockHeader() throws IOException
    {
        final CaptureBytes b = section().idb(LinkType.ETHERNET, 0).u32(CaptureBytes.EPB).u32(32);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.TRUNCATED_RECORD);
            assertThat(reader.endDetail()).isEqualTo("block header cut short: 8 of 12 bytes left");
        }
    }

    @Test
    void shouldTellATrailerMismatchFromATooShortLengthWhenTheBlockIsTwelveBytes() throws IOException
    {
        final CaptureBytes b = section().idb(LinkType.ETHERNET, 0).u32(UNKNOWN_BLOCK).u32(12).u32(16);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_BLOCK_LENGTH);
            assertThat(reader.endDetail()).isEqualTo("block type badf00d has length 12 but its trailer says 16");
        }
    }

    @Test
    void shouldNameTheKindOfPacketBlockWhenItIsShorterThan32Bytes() throws IOException
    {
        // 28 bytes: a well-formed block, 4 bytes short of the fixed fields of an (Enhanced) Packet Block.
        final CaptureBytes enhanced = section().idb(LinkType.ETHERNET, 0)
            .block(CaptureBytes.EPB, body -> body.u32(0).u32(0).u32(0).u32(0));
        final CaptureBytes obsolete = section().idb(LinkType.ETHERNET, 0)
            .block(CaptureBytes.PB, body -> body.u32(0).u32(0).u32(0).u32(0));

        try (PcapReader reader = PcapReader.open(file(enhanced)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_BLOCK_LENGTH);
            assertThat(reader.endDetail()).isEqualTo("Enhanced Packet Block of 28 bytes, below the minimum of 32");
        }
        try (PcapReader reader = PcapReader.open(file(obsolete)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_BLOCK_LENGTH);
            assertThat(reader.endDetail()).isEqualTo("Packet Block of 28 bytes, below the minimum of 32");
        }
    }

    @Test
    void shouldEndWithBadBlockLengthWhenThePacketIsAFewBytesLongerThanItsBlockHolds() throws IOException
    {
        // The block holds 8 data bytes and 12 of options: 20 besides its 32 bytes of fixed fields and trailer. 30 do
        // not fit, though they would if those 32 bytes were counted as room.
        final CaptureBytes b = section().idb(LinkType.ETHERNET, 0).epb(0, 1, 8, 1000, new byte[8]);
        final byte[] bytes = b.toBytes();
        CaptureBytes.put32(bytes, b.ends.get(1) + 20, 30, ByteOrder.LITTLE_ENDIAN);

        try (PcapReader reader = PcapReader.open(Files.write(dir.resolve("long.pcapng"), bytes)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_BLOCK_LENGTH);
            assertThat(reader.endDetail()).isEqualTo("captured length 30 does not fit in a packet block of 52 bytes");
            assertThat(reader.records()).isZero();
        }
    }

    @Test
    void shouldNameTheSectionAndItsInterfaceCountWhenAPacketNamesAnUndefinedInterface() throws IOException
    {
        final CaptureBytes b = section().idb(LinkType.ETHERNET, 0).epb(1, 1, 4, 4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.UNDEFINED_INTERFACE);
            assertThat(reader.endDetail()).isEqualTo("packet on interface 1 but section 0 describes 1");
        }
    }

    @Test
    void shouldFlagOnlyPacketsLongerThanTheInterfacesSnapLength() throws IOException
    {
        final CaptureBytes b = section().idb(LinkType.ETHERNET, 8)
            .epb(0, 1, 8, 100, new byte[8])
            .epb(0, 2, 9, 100, new byte[9]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.flags()).as("exactly the snapshot length").isZero();
            assertThat(reader.snapLength()).isEqualTo(8);
            assertThat(reader.next()).isTrue();
            assertThat(reader.flags()).isEqualTo(PcapReader.FLAG_ABOVE_SNAP_LENGTH);
            assertThat(reader.recordsAboveSnapLength()).isEqualTo(1);
        }
    }

    @Test
    void shouldReadSimplePacketBlocksCutToWhatTheBlockHoldsTheSnapLengthAndTheLimit() throws IOException
    {
        final CaptureBytes b = section().idb(LinkType.RAW, 0)
            .spb(0, new byte[0])                        // 16 bytes: the smallest, an empty packet
            .spb(1500, CaptureBytes.data(20, 1))         // the first 20 bytes of a 1500-byte packet
            .spb(24, CaptureBytes.data(24, 2));          // 24 bytes: exactly a limit of 24
        final CaptureBytes above = section().idb(LinkType.RAW, 0).spb(25, CaptureBytes.data(25, 3));

        try (PcapReader reader = PcapReader.open(file(b), 24, false))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isZero();
            assertThat(reader.originalLength()).isZero();
            assertThat(reader.flags()).isEqualTo(PcapReader.FLAG_NO_TIMESTAMP);
            assertThat(reader.timestampNs()).isZero();
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(20);
            assertThat(reader.originalLength()).isEqualTo(1500);
            assertThat(reader.linkType()).isEqualTo(LinkType.RAW);
            assertThat(reader.next()).isTrue();
            assertThat(reader.capturedLength()).isEqualTo(24);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.END_OF_FILE);
            assertThat(reader.records()).isEqualTo(3);
        }
        try (PcapReader reader = PcapReader.open(file(above), 24, false))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.CAPLEN_ABOVE_LIMIT);
            assertThat(reader.endDetail()).isEqualTo("captured length 25 above the limit of 24");
            assertThat(reader.records()).isZero();
        }
    }

    @Test
    void shouldEndWithBadBlockLengthWhenASimplePacketBlockHasNoRoomForItsLength() throws IOException
    {
        final CaptureBytes b = section().idb(LinkType.RAW, 0).block(CaptureBytes.SPB, body -> { });

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_BLOCK_LENGTH);
            assertThat(reader.endDetail()).isEqualTo("Simple Packet Block of 12 bytes, below the minimum of 16");
        }
    }

    @Test
    void shouldEndWithBadBlockLengthWhenAnInterfaceDescriptionIsShorterThan20Bytes() throws IOException
    {
        final CaptureBytes b = section().block(CaptureBytes.IDB, body -> body.u16(LinkType.ETHERNET).u16(0))
            .epb(0, 1, 4, 4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_BLOCK_LENGTH);
            assertThat(reader.endOffset()).isEqualTo(28);
            assertThat(reader.interfaces()).isZero();
        }
    }

    @Test
    void shouldEndWithBadOptionWhenAnOptionsPaddingRunsPastItsBlock() throws IOException
    {
        // Option 2 (if_name) claims 5 bytes: padded to 8, but only 4 lie before the block's trailer.
        final CaptureBytes b = section()
            .block(CaptureBytes.IDB, body -> body.u16(LinkType.ETHERNET).u16(0).u32(0).u16(2).u16(5).u32(0))
            .epb(0, 1, 4, 4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_OPTION);
            assertThat(reader.endDetail()).isEqualTo(
                "option 2 of 5 bytes runs past the end of its Interface Description Block");
        }
    }

    @Test
    void shouldEndWithBadOptionWhenATimestampOptionHasTheWrongLength() throws IOException
    {
        final CaptureBytes resolution = section();
        resolution.idb(LinkType.ETHERNET, 0, resolution.option(9, new byte[] {6, 0})).epb(0, 1, 4, 4, new byte[4]);
        final CaptureBytes offset = section();
        offset.idb(LinkType.ETHERNET, 0, offset.option(14, new byte[4])).epb(0, 1, 4, 4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(resolution)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_OPTION);
            assertThat(reader.endDetail()).isEqualTo("option 9 has length 2, not 1");
            assertThat(reader.interfaces()).isZero();
        }
        try (PcapReader reader = PcapReader.open(file(offset)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_OPTION);
            assertThat(reader.endDetail()).isEqualTo("option 14 has length 4, not 8");
        }
    }

    @Test
    void shouldConvertTheFinestResolutionsAndRefuseOneFiner() throws IOException
    {
        final CaptureBytes b = section();
        b.idb(LinkType.ETHERNET, 0, b.tsresol(0x80 | 63))  // 2^-63 s units
            .idb(LinkType.ETHERNET, 0, b.tsresol(19))      // 10^-19 s units
            .epb(0, 3L << 61, 1, 1, new byte[1])           // 3 * 2^61 / 2^63 = 0.75 s
            .epb(1, 9_000_000_000_000_000_000L, 1, 1, new byte[1]); // 9e18 / 1e19 = 0.9 s
        final CaptureBytes binary = section();
        binary.idb(LinkType.ETHERNET, 0, binary.tsresol(0x80 | 64)).epb(0, 1, 1, 1, new byte[1]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.timestampNs()).isEqualTo(750_000_000L);
            assertThat(reader.next()).isTrue();
            assertThat(reader.timestampNs()).isEqualTo(900_000_000L);
        }
        try (PcapReader reader = PcapReader.open(file(binary)))
        {
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.BAD_OPTION);
            assertThat(reader.endDetail()).isEqualTo("timestamp resolution 2^-64 too fine");
            assertThat(reader.interfaces()).isZero();
        }
    }

    @Test
    void shouldTakeAt65536InterfacesInASection() throws IOException
    {
        final CaptureBytes b = section();
        for (int i = 0; i < PcapReader.MAX_INTERFACES; i++)
        {
            b.idb(i & 0xFFFF, i);
        }
        b.epb(PcapReader.MAX_INTERFACES - 1, 1, 4, 4, new byte[4]);
        final int extra = b.position();
        b.idb(LinkType.ETHERNET, 0).epb(0, 1, 4, 4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.interfaceIndex()).isEqualTo(65535);
            assertThat(reader.linkType()).isEqualTo(65535);
            assertThat(reader.snapLength()).isEqualTo(65535);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.TOO_MANY_INTERFACES);
            assertThat(reader.endOffset()).isEqualTo(extra);
            assertThat(reader.endDetail()).isEqualTo("more than 65536 interfaces in section 0");
            assertThat(reader.interfaces()).isEqualTo(65536);
        }
    }

    @Test
    void shouldEndWithEachReasonWhenALaterSectionHeaderIsMalformed() throws IOException
    {
        // What refuses a file at open ends the iteration when a later section has it.
        final int start = section().idb(LinkType.ETHERNET, 0).epb(0, 1, 4, 4, new byte[4]).position();
        assertLaterSection(c -> c.u32(CaptureBytes.SHB).u32(30).u32(0x1A2B3C4D).u16(1).u16(0).u64(-1).u32(30),
            start, EndReason.BAD_BLOCK_LENGTH, "Section Header Block has length 30, below 28 or not a multiple of 4");
        assertLaterSection(c -> c.u32(CaptureBytes.SHB).u32(32).u32(0x1A2B3C4D).u16(1).u16(0).u64(-1).u32(32),
            start, EndReason.TRUNCATED_RECORD, "Section Header Block of 32 bytes, only 28 left in the file");
        assertLaterSection(c -> c.u32(CaptureBytes.SHB).u32(28).u32(0x1A2B3C4D).u16(1).u16(0).u64(-1).u32(0),
            start, EndReason.BAD_BLOCK_LENGTH, "Section Header Block has length 28 but its trailer says 0");
        assertLaterSection(c -> c.u32(CaptureBytes.SHB).u32(28).u32(0x1A2B3C4D).u16(1).u16(0).u32(0),
            start, EndReason.TRUNCATED_RECORD, "Section Header Block cut short: 20 bytes left, it takes at least 28");
        assertLaterSection(c -> c.shb(2, 0), start, EndReason.UNSUPPORTED_VERSION,
            "unsupported pcapng version 2.0 (jvs reads 1.x)");
    }

    private void assertLaterSection(
        final Consumer<CaptureBytes> later, final int offset, final EndReason reason,
        final String detail) throws IOException
    {
        final CaptureBytes b = section().idb(LinkType.ETHERNET, 0).epb(0, 1, 4, 4, new byte[4]);
        later.accept(b);
        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.next()).as(detail).isFalse();
            assertThat(reader.endReason()).as(detail).isEqualTo(reason);
            assertThat(reader.endOffset()).isEqualTo(offset);
            assertThat(reader.endDetail()).isEqualTo(detail);
            assertThat(reader.address()).as("no current record").isZero();
            assertThat(reader.capturedLength()).isZero();
            assertThat(reader.records()).isEqualTo(1);
        }
    }

    @Test
    void shouldDescribeNoInterfaceOnceANewSectionHasNoneYet() throws IOException
    {
        final CaptureBytes b = section();
        b.idb(LinkType.ETHERNET, 1500, b.fcslen(4)).epb(0, 1, 4, 4, new byte[4])
            .shb(1, 0).epb(0, 1, 4, 4, new byte[4]);

        try (PcapReader reader = PcapReader.open(file(b)))
        {
            assertThat(reader.next()).isTrue();
            assertThat(reader.fcsLength()).isEqualTo(4);
            assertThat(reader.snapLength()).isEqualTo(1500);
            assertThat(reader.next()).isFalse();
            assertThat(reader.endReason()).isEqualTo(EndReason.UNDEFINED_INTERFACE);
            assertThat(reader.sections()).isEqualTo(2);
            assertThat(reader.interfaces()).isZero();
            assertThat(reader.fcsLength()).as("the new section says nothing").isEqualTo(-1);
            assertThat(reader.snapLength()).isZero();
        }
    }
}
