package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Reads a capture file, classic pcap or pcapng, as a cursor over its records, without copying them.
 * <pre>
 * try (PcapReader reader = PcapReader.open(path))
 * {
 *     while (reader.next())
 *     {
 *         pipeline.accept(reader.address(), reader.capturedLength(), reader.timestampNs(), reader.linkType());
 *     }
 *     if (reader.endReason() != EndReason.END_OF_FILE)
 *     {
 *         log(reader.endDetail());
 *     }
 * }
 * </pre>
 *
 * <h2>Memory</h2>
 * The whole file is memory-mapped read-only ({@link FileChannel#map(FileChannel.MapMode, long, long, Arena)},
 * which has no 2 GB limit) and each record is handed out as the absolute address of its first byte in that
 * mapping: read it with {@link Frames}. Nothing is allocated per record. The address is valid until
 * {@link #close()}; after that, touching it crashes the JVM. <b>The bytes are read-only</b>: a pipeline
 * that rewrites frames in place must copy each frame into its own buffer first (writing to the mapping
 * is a segmentation fault, not an exception). A file that another process truncates while it is mapped
 * faults the same way; capture files are expected to be finished before they are read.
 *
 * <h2>Robustness</h2>
 * {@link #open} checks the file header (the 24-byte pcap header, or the first pcapng Section Header
 * Block) and throws {@link PcapFormatException} if it cannot read the file at all. After that,
 * {@link #next()} never throws: every length is checked against the end of the file, and against the
 * block holding it, before any byte is read. A record or block that fails a check ends the iteration;
 * {@link #endReason()}, {@link #endOffset()} and {@link #endDetail()} say why and where, and
 * {@link #records()} how many complete records came before. A record longer than the snapshot
 * length is still delivered, flagged with {@link #FLAG_ABOVE_SNAP_LENGTH} and counted.
 *
 * <h2>Timestamps</h2>
 * {@link #timestampNs()} is nanoseconds since the epoch (unsigned seconds, so pcap times after 2038 read
 * correctly; pcapng times after 2262 wrap). It is not checked: out-of-order, zero, or out-of-range
 * fractions are passed on as found, and {@link #rawTimestamp()} gives the field as stored.
 * <p>
 * One reader serves one thread; it is not thread-safe.
 */
public final class PcapReader implements AutoCloseable
{
    /** Default upper bound on a record's captured length: libpcap's own maximum snapshot length. */
    public static final int DEFAULT_MAX_CAPTURED_LENGTH = 256 * 1024;
    /** The most interfaces one pcapng section may describe. */
    public static final int MAX_INTERFACES = 1 << 16;

    /** The record's captured length is above the snapshot length of its file or interface. */
    public static final int FLAG_ABOVE_SNAP_LENGTH = 1;
    /**
     * The record's captured length is above its original length (delivered only if the reader was
     * opened to accept that; otherwise such a record ends the iteration).
     */
    public static final int FLAG_CAPTURED_ABOVE_ORIGINAL = 2;
    /** The record came from a pcapng Simple Packet Block, which has no timestamp: it reads as 0. */
    public static final int FLAG_NO_TIMESTAMP = 4;

    private static final int PCAP_HEADER_LENGTH = 24;
    private static final int PCAP_RECORD_HEADER_LENGTH = 16;

    private static final int MAGIC_PCAP_MICROS = 0xA1B2C3D4;
    private static final int MAGIC_PCAP_NANOS = 0xA1B23C4D;
    private static final int MAGIC_PCAP_KUZNETZOV = 0xA1B2CD34;
    private static final int MAGIC_PCAP_NAVTEL = 0xA12B3C4D;

    private static final int BLOCK_SECTION_HEADER = 0x0A0D0D0A;
    private static final int BLOCK_INTERFACE_DESCRIPTION = 1;
    private static final int BLOCK_PACKET = 2;
    private static final int BLOCK_SIMPLE_PACKET = 3;
    private static final int BLOCK_ENHANCED_PACKET = 6;
    private static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    private static final int SECTION_HEADER_MIN_LENGTH = 28;
    private static final int INTERFACE_DESCRIPTION_MIN_LENGTH = 20;
    private static final int PACKET_BLOCK_MIN_LENGTH = 32;
    private static final int SIMPLE_PACKET_MIN_LENGTH = 16;
    private static final int MIN_BLOCK_LENGTH = 12;

    private static final int OPTION_END = 0;
    private static final int OPTION_IF_TSRESOL = 9;
    private static final int OPTION_IF_FCSLEN = 13;
    private static final int OPTION_IF_TSOFFSET = 14;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** Classic pcap before 2.3 (and some 2.3 writers) stored the original length before the captured one. */
    private static final int LENGTHS_IN_ORDER = 0;
    private static final int LENGTHS_SWAPPED = 1;
    private static final int LENGTHS_MAYBE_SWAPPED = 2;

    /** pcapng timestamp conversions: units times a factor, units over a divisor, binary fraction. */
    private static final byte TS_MULTIPLY = 0;
    private static final byte TS_DIVIDE = 1;
    private static final byte TS_BINARY = 2;

    private final Path path;
    private final Arena arena;
    private final MemorySegment mapping;
    private final long base;
    private final long size;
    private final CaptureFormat format;
    private final int maxCapturedLength;
    private final boolean acceptCapturedAboveOriginal;

    // The byte order of the file (classic pcap) or of the current section (pcapng).
    private boolean littleEndian;

    // Classic pcap.
    private int fileLinkType;
    private int fileSnapLength;
    private int fileFcsLength = -1;
    private int fileLinkTypeBits;
    private int nanosPerFraction;
    private int lengthsOrder;
    private int versionMajor;
    private int versionMinor;

    // pcapng: the interfaces of the current section.
    private int sections;
    private int interfaceCount;
    private int[] ifLinkType = new int[4];
    private int[] ifSnapLength = new int[4];
    private int[] ifFcsLength = new int[4];
    private byte[] ifTsMode = new byte[4];
    private long[] ifTsFactor = new long[4];
    private long[] ifTsOffsetNs = new long[4];
    private long blocksSkipped;

    // The cursor.
    private long position;
    private long recordOffset;
    private long recordAddress;
    private int capturedLength;
    private long originalLength;
    private long timestampNs;
    private long rawTimestamp;
    private int linkType;
    private int interfaceIndex;
    private int flags;

    // Counters and the end.
    private long records;
    private long recordsAboveSnapLength;
    private long recordsCapturedAboveOriginal;
    private EndReason endReason = EndReason.NONE;
    private long endOffset = -1;
    private boolean closed;
    private String endDetail = "";

    private PcapReader(
        final Path path,
        final Arena arena,
        final MemorySegment mapping,
        final CaptureFormat format,
        final int maxCapturedLength,
        final boolean acceptCapturedAboveOriginal)
    {
        this.path = path;
        this.arena = arena;
        this.mapping = mapping;
        this.base = mapping.address();
        this.size = mapping.byteSize();
        this.format = format;
        this.maxCapturedLength = maxCapturedLength;
        this.acceptCapturedAboveOriginal = acceptCapturedAboveOriginal;
    }

    /**
     * Opens a capture file with the default limits: captured lengths up to
     * {@link #DEFAULT_MAX_CAPTURED_LENGTH}, and a record whose captured length is above its original
     * length ends the iteration.
     *
     * @param path a classic pcap (µs or ns, either byte order) or pcapng file.
     * @return a reader positioned before the first record.
     * @throws PcapFormatException if the file is not a capture file this reader can read: the message
     *                             names the file and the magic number or header field at fault.
     * @throws IOException         if the file cannot be opened or mapped.
     */
    public static PcapReader open(final Path path) throws IOException
    {
        return open(path, DEFAULT_MAX_CAPTURED_LENGTH, false);
    }

    /**
     * Opens a capture file.
     *
     * @param path                        a classic pcap (µs or ns, either byte order) or pcapng file.
     * @param maxCapturedLength           a record whose captured length is above this ends the
     *                                    iteration with {@link EndReason#CAPLEN_ABOVE_LIMIT}.
     * @param acceptCapturedAboveOriginal if true, a record whose captured length is above its original
     *                                    length is delivered, flagged {@link #FLAG_CAPTURED_ABOVE_ORIGINAL}
     *                                    and counted (libpcap's behaviour); if false, it ends the
     *                                    iteration with {@link EndReason#CAPTURED_ABOVE_ORIGINAL}.
     * @return a reader positioned before the first record.
     * @throws PcapFormatException if the file is not a capture file this reader can read.
     * @throws IOException         if the file cannot be opened or mapped.
     */
    public static PcapReader open(
        final Path path, final int maxCapturedLength, final boolean acceptCapturedAboveOriginal)
        throws IOException
    {
        if (maxCapturedLength < 0)
        {
            throw new IllegalArgumentException("maxCapturedLength " + maxCapturedLength + " < 0");
        }
        final Arena arena = Arena.ofShared();
        boolean opened = false;
        try
        {
            final MemorySegment mapping;
            try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ))
            {
                final long size = channel.size();
                if (size < 4)
                {
                    throw new PcapFormatException(path, EndReason.TRUNCATED_HEADER,
                        size == 0 ? "empty file, not a capture file"
                            : "only " + size + " bytes, too short for a capture file's magic number");
                }
                mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
            }
            final long base = mapping.address();
            final int magic = Frames.i32(base);
            final CaptureFormat format;
            final boolean littleEndian;
            if (magic == MAGIC_PCAP_MICROS || magic == Integer.reverseBytes(MAGIC_PCAP_MICROS))
            {
                format = CaptureFormat.PCAP_MICROSECONDS;
                littleEndian = magic != MAGIC_PCAP_MICROS;
            }
            else if (magic == MAGIC_PCAP_NANOS || magic == Integer.reverseBytes(MAGIC_PCAP_NANOS))
            {
                format = CaptureFormat.PCAP_NANOSECONDS;
                littleEndian = magic != MAGIC_PCAP_NANOS;
            }
            else if (magic == BLOCK_SECTION_HEADER)
            {
                format = CaptureFormat.PCAPNG;
                littleEndian = false;
            }
            else
            {
                throw new PcapFormatException(path, EndReason.UNKNOWN_FORMAT, unknownMagic(base, magic));
            }
            final PcapReader reader = new PcapReader(
                path, arena, mapping, format, maxCapturedLength, acceptCapturedAboveOriginal);
            reader.littleEndian = littleEndian;
            if (format == CaptureFormat.PCAPNG)
            {
                reader.openPcapng();
            }
            else
            {
                reader.openPcap();
            }
            opened = true;
            return reader;
        }
        finally
        {
            if (!opened)
            {
                arena.close();
            }
        }
    }

    private static String unknownMagic(final long base, final int magic)
    {
        final StringBuilder text = new StringBuilder("not a capture file: magic number ")
            .append(String.format("%08x", magic)).append(" (\"");
        for (int i = 0; i < 4; i++)
        {
            final int c = Frames.u8(base + i);
            text.append(c >= 0x20 && c < 0x7F ? (char)c : '.');
        }
        text.append("\")");
        if (magic == MAGIC_PCAP_KUZNETZOV || magic == Integer.reverseBytes(MAGIC_PCAP_KUZNETZOV))
        {
            return text.append(" is Alexey Kuznetzov's modified pcap, which jvs does not read").toString();
        }
        if (magic == MAGIC_PCAP_NAVTEL || magic == Integer.reverseBytes(MAGIC_PCAP_NAVTEL))
        {
            return text.append(" is Navtel's modified pcap, which jvs does not read").toString();
        }
        return text.append(" is none of pcap a1b2c3d4 (µs), a1b23c4d (ns) and pcapng 0a0d0d0a,")
            .append(" in either byte order").toString();
    }

    private void openPcap() throws PcapFormatException
    {
        if (size < PCAP_HEADER_LENGTH)
        {
            throw new PcapFormatException(path, EndReason.TRUNCATED_HEADER,
                "classic pcap file of only " + size + " bytes, shorter than its 24-byte file header");
        }
        versionMajor = u16(base + 4);
        versionMinor = u16(base + 6);
        if (versionMajor != 2 || versionMinor > 4)
        {
            throw new PcapFormatException(path, EndReason.UNSUPPORTED_VERSION,
                "unsupported pcap version " + versionMajor + "." + versionMinor + " (jvs reads 2.0 to 2.4)");
        }
        lengthsOrder = versionMinor < 3 ? LENGTHS_SWAPPED
            : versionMinor == 3 ? LENGTHS_MAYBE_SWAPPED : LENGTHS_IN_ORDER;
        fileSnapLength = u32(base + 16);
        fileLinkTypeBits = u32(base + 20);
        fileLinkType = fileLinkTypeBits & 0xFFFF;
        // Upper bits: FCS length in 16-bit words (bits 28..31), valid if the P bit (26) is set.
        fileFcsLength = (fileLinkTypeBits & 0x0400_0000) != 0 ? (fileLinkTypeBits >>> 28) * 2 : -1;
        nanosPerFraction = format == CaptureFormat.PCAP_NANOSECONDS ? 1 : 1_000;
        linkType = fileLinkType;
        position = PCAP_HEADER_LENGTH;
    }

    private void openPcapng() throws PcapFormatException
    {
        final EndReason reason = readSectionHeader(0);
        if (reason != EndReason.NONE)
        {
            throw new PcapFormatException(path,
                reason == EndReason.TRUNCATED_RECORD ? EndReason.TRUNCATED_HEADER : reason,
                "pcapng: " + endDetail);
        }
    }

    /**
     * Moves to the next record.
     *
     * @return true if there is one: its fields are then readable through the accessors; false at the
     * end of the file, or at the first record or block that fails a check ({@link #endReason()}).
     * Once false, stays false until {@link #rewind()}.
     */
    public boolean next()
    {
        if (endReason != EndReason.NONE)
        {
            return false;
        }
        return format == CaptureFormat.PCAPNG ? nextBlock() : nextPcapRecord();
    }

    // The hot paths keep every failure in a method of its own, so that they stay small enough to inline.

    private boolean nextPcapRecord()
    {
        final long offset = position;
        final long remaining = size - offset;
        if (remaining < PCAP_RECORD_HEADER_LENGTH)
        {
            return endOfRecords(offset, remaining, PCAP_RECORD_HEADER_LENGTH);
        }
        final long address = base + offset;
        int captured = u32(address + 8);
        int original = u32(address + 12);
        if (lengthsOrder != LENGTHS_IN_ORDER)
        {
            final long swapped = unswapLengths(captured, original);
            captured = (int)(swapped >>> 32);
            original = (int)swapped;
        }
        int recordFlags = 0;
        final long room = remaining - PCAP_RECORD_HEADER_LENGTH;
        if (Integer.compareUnsigned(captured, maxCapturedLength) > 0 || Integer.compareUnsigned(captured, original) > 0
            || captured > room)
        {
            recordFlags = checkLengths(offset, captured, original, room, false);
            if (recordFlags < 0)
            {
                return false;
            }
        }
        if (Integer.compareUnsigned(captured, fileSnapLength) > 0 && fileSnapLength != 0)
        {
            recordFlags |= FLAG_ABOVE_SNAP_LENGTH;
            recordsAboveSnapLength++;
        }
        final long seconds = u32(address) & 0xFFFF_FFFFL;
        final long fraction = u32(address + 4) & 0xFFFF_FFFFL;
        rawTimestamp = seconds << 32 | fraction;
        timestampNs = seconds * NANOS_PER_SECOND + fraction * nanosPerFraction;
        recordOffset = offset;
        recordAddress = address + PCAP_RECORD_HEADER_LENGTH;
        capturedLength = captured;
        originalLength = original & 0xFFFF_FFFFL;
        flags = recordFlags;
        position = offset + PCAP_RECORD_HEADER_LENGTH + captured;
        records++;
        return true;
    }

    /**
     * @return the captured length in the upper half, the original in the lower, put back in order for a
     * file older than pcap 2.4.
     */
    private long unswapLengths(final int captured, final int original)
    {
        final boolean swap = lengthsOrder == LENGTHS_SWAPPED || Integer.compareUnsigned(captured, original) > 0;
        return swap ? (long)original << 32 | (captured & 0xFFFF_FFFFL) : (long)captured << 32 | (original & 0xFFFF_FFFFL);
    }

    private boolean nextBlock()
    {
        while (true)
        {
            final long offset = position;
            final long remaining = size - offset;
            if (remaining < MIN_BLOCK_LENGTH)
            {
                return endOfRecords(offset, remaining, MIN_BLOCK_LENGTH);
            }
            final long address = base + offset;
            if (Frames.i32(address) == BLOCK_SECTION_HEADER)
            {
                if (!nextSection(offset))
                {
                    return false;
                }
                continue;
            }
            final int type = u32(address);
            final long length = u32(address + 4) & 0xFFFF_FFFFL;
            if (length < MIN_BLOCK_LENGTH || (length & 3) != 0 || length > remaining
                || u32(address + length - 4) != (int)length)
            {
                return badBlock(offset, type, length, remaining);
            }
            position = offset + length;
            switch (type)
            {
                case BLOCK_ENHANCED_PACKET:
                    return packetBlock(offset, address, length, u32(address + 8), true);
                case BLOCK_PACKET:
                    return packetBlock(offset, address, length, u16(address + 8), false);
                case BLOCK_SIMPLE_PACKET:
                    return simplePacketBlock(offset, address, length);
                case BLOCK_INTERFACE_DESCRIPTION:
                    if (!readInterface(offset, address, length))
                    {
                        return false;
                    }
                    break;
                default:
                    blocksSkipped++;
                    break;
            }
        }
    }

    private boolean nextSection(final long offset)
    {
        final EndReason reason = readSectionHeader(offset);
        if (reason == EndReason.NONE)
        {
            return true;
        }
        endReason = reason;
        endOffset = offset;
        clearRecord();
        return false;
    }

    private boolean packetBlock(
        final long offset, final long address, final long length, final int interfaceId, final boolean enhanced)
    {
        if (length < PACKET_BLOCK_MIN_LENGTH)
        {
            return blockTooShort(offset, enhanced ? "Enhanced Packet Block" : "Packet Block", length,
                PACKET_BLOCK_MIN_LENGTH);
        }
        if (Integer.compareUnsigned(interfaceId, interfaceCount) >= 0)
        {
            return undefinedInterface(offset, interfaceId);
        }
        final int captured = u32(address + 20);
        final int original = u32(address + 24);
        int recordFlags = 0;
        final long room = length - PACKET_BLOCK_MIN_LENGTH;
        if (Integer.compareUnsigned(captured, maxCapturedLength) > 0 || Integer.compareUnsigned(captured, original) > 0
            || captured > room)
        {
            recordFlags = checkLengths(offset, captured, original, room, true);
            if (recordFlags < 0)
            {
                return false;
            }
        }
        final int snapLength = ifSnapLength[interfaceId];
        if (Integer.compareUnsigned(captured, snapLength) > 0 && snapLength != 0)
        {
            recordFlags |= FLAG_ABOVE_SNAP_LENGTH;
            recordsAboveSnapLength++;
        }
        final long raw = (u32(address + 12) & 0xFFFF_FFFFL) << 32 | (u32(address + 16) & 0xFFFF_FFFFL);
        rawTimestamp = raw;
        timestampNs = toNanos(interfaceId, raw);
        return deliver(offset, address + 28, captured, original, interfaceId, recordFlags);
    }

    private boolean simplePacketBlock(final long offset, final long address, final long length)
    {
        if (length < SIMPLE_PACKET_MIN_LENGTH)
        {
            return blockTooShort(offset, "Simple Packet Block", length, SIMPLE_PACKET_MIN_LENGTH);
        }
        if (interfaceCount == 0)
        {
            return undefinedInterface(offset, 0);
        }
        final int original = u32(address + 8);
        // The captured length is not stored: the original length cut to interface 0's snapshot length,
        // and to what the block holds.
        long captured = Math.min(original & 0xFFFF_FFFFL, length - SIMPLE_PACKET_MIN_LENGTH);
        final int snapLength = ifSnapLength[0];
        if (snapLength != 0)
        {
            captured = Math.min(captured, snapLength & 0xFFFF_FFFFL);
        }
        if (captured > maxCapturedLength)
        {
            return capturedAboveLimit(offset, (int)captured);
        }
        rawTimestamp = 0;
        timestampNs = 0;
        return deliver(offset, address + 12, (int)captured, original, 0, FLAG_NO_TIMESTAMP);
    }

    // Cold: the ends.

    private boolean endOfRecords(final long offset, final long remaining, final int headerLength)
    {
        if (remaining == 0)
        {
            return end(EndReason.END_OF_FILE, offset, "");
        }
        return end(EndReason.TRUNCATED_RECORD, offset, (format == CaptureFormat.PCAPNG ? "block" : "record")
            + " header cut short: " + remaining + " of " + headerLength + " bytes left");
    }

    private boolean capturedAboveLimit(final long offset, final int captured)
    {
        return end(EndReason.CAPLEN_ABOVE_LIMIT, offset, "captured length " + Integer.toUnsignedString(captured)
            + " above the limit of " + maxCapturedLength);
    }

    /**
     * A record whose captured length is above the limit, above its original length, or beyond the room
     * left for it (in the file, or in its block).
     *
     * @return -1 if it ends the iteration; else its flags ({@link #FLAG_CAPTURED_ABOVE_ORIGINAL}, accepted).
     */
    private int checkLengths(
        final long offset, final int captured, final int original, final long room, final boolean inBlock)
    {
        if (Integer.compareUnsigned(captured, maxCapturedLength) > 0)
        {
            capturedAboveLimit(offset, captured);
            return -1;
        }
        int recordFlags = 0;
        if (Integer.compareUnsigned(captured, original) > 0)
        {
            if (!acceptCapturedAboveOriginal)
            {
                end(EndReason.CAPTURED_ABOVE_ORIGINAL, offset, "captured length " + captured
                    + " above original length " + Integer.toUnsignedString(original));
                return -1;
            }
            recordFlags = FLAG_CAPTURED_ABOVE_ORIGINAL;
        }
        if (captured > room)
        {
            if (inBlock)
            {
                end(EndReason.BAD_BLOCK_LENGTH, offset, "captured length " + captured
                    + " does not fit in a packet block of " + (room + PACKET_BLOCK_MIN_LENGTH) + " bytes");
            }
            else
            {
                end(EndReason.TRUNCATED_RECORD, offset, "record of " + captured + " captured bytes, only " + room
                    + " left in the file");
            }
            return -1;
        }
        if (recordFlags != 0)
        {
            recordsCapturedAboveOriginal++;
        }
        return recordFlags;
    }

    private boolean badBlock(final long offset, final int type, final long length, final long remaining)
    {
        final String block = "block type " + Integer.toHexString(type);
        if (length < MIN_BLOCK_LENGTH || (length & 3) != 0)
        {
            return end(EndReason.BAD_BLOCK_LENGTH, offset, block + " has length " + length
                + ", below 12 or not a multiple of 4");
        }
        if (length > remaining)
        {
            return end(EndReason.TRUNCATED_RECORD, offset, block + " of " + length + " bytes, only " + remaining
                + " left in the file");
        }
        return end(EndReason.BAD_BLOCK_LENGTH, offset, block + " has length " + length + " but its trailer says "
            + Integer.toUnsignedString(u32(base + offset + length - 4)));
    }

    private boolean blockTooShort(final long offset, final String block, final long length, final int minimum)
    {
        return end(EndReason.BAD_BLOCK_LENGTH, offset, block + " of " + length + " bytes, below the minimum of "
            + minimum);
    }

    private boolean undefinedInterface(final long offset, final int interfaceId)
    {
        return end(EndReason.UNDEFINED_INTERFACE, offset, "packet on interface " + Integer.toUnsignedString(interfaceId)
            + " but section " + (sections - 1) + " describes " + interfaceCount);
    }

    private boolean deliver(
        final long offset, final long address, final int captured, final int original, final int interfaceId,
        final int recordFlags)
    {
        recordOffset = offset;
        recordAddress = address;
        capturedLength = captured;
        originalLength = original & 0xFFFF_FFFFL;
        interfaceIndex = interfaceId;
        linkType = ifLinkType[interfaceId];
        flags = recordFlags;
        records++;
        return true;
    }

    private long toNanos(final int interfaceId, final long raw)
    {
        final long factor = ifTsFactor[interfaceId];
        final long nanos = switch (ifTsMode[interfaceId])
        {
            case TS_MULTIPLY -> raw * factor;
            case TS_DIVIDE -> Long.divideUnsigned(raw, factor);
            default ->
            {
                // factor = the number of fraction bits, 1..63: seconds above them, a binary fraction below.
                final int bits = (int)factor;
                final long fraction = raw & ((1L << bits) - 1);
                final long low = fraction * NANOS_PER_SECOND;
                final long high = Math.unsignedMultiplyHigh(fraction, NANOS_PER_SECOND);
                yield (raw >>> bits) * NANOS_PER_SECOND + ((high << (64 - bits)) | (low >>> bits));
            }
        };
        return nanos + ifTsOffsetNs[interfaceId];
    }

    /**
     * Reads the Section Header Block at the offset and starts its section: byte order, no interfaces.
     *
     * @return {@link EndReason#NONE} if it is valid, else why not (with {@link #endDetail} set).
     */
    private EndReason readSectionHeader(final long offset)
    {
        final long remaining = size - offset;
        final long address = base + offset;
        if (remaining < SECTION_HEADER_MIN_LENGTH)
        {
            endDetail = "Section Header Block cut short: " + remaining + " bytes left, it takes at least 28";
            return EndReason.TRUNCATED_RECORD;
        }
        final int byteOrderMagic = Frames.i32(address + 8);
        if (byteOrderMagic != BYTE_ORDER_MAGIC && byteOrderMagic != Integer.reverseBytes(BYTE_ORDER_MAGIC))
        {
            endDetail = "Section Header Block with byte-order magic " + String.format("%08x", byteOrderMagic)
                + ", neither 1a2b3c4d nor 4d3c2b1a";
            return EndReason.UNKNOWN_FORMAT;
        }
        littleEndian = byteOrderMagic != BYTE_ORDER_MAGIC;
        final long length = u32(address + 4) & 0xFFFF_FFFFL;
        if (length < SECTION_HEADER_MIN_LENGTH || (length & 3) != 0)
        {
            endDetail = "Section Header Block has length " + length + ", below 28 or not a multiple of 4";
            return EndReason.BAD_BLOCK_LENGTH;
        }
        if (length > remaining)
        {
            endDetail = "Section Header Block of " + length + " bytes, only " + remaining + " left in the file";
            return EndReason.TRUNCATED_RECORD;
        }
        final int trailer = u32(address + length - 4);
        if (trailer != (int)length)
        {
            endDetail = "Section Header Block has length " + length + " but its trailer says "
                + Integer.toUnsignedString(trailer);
            return EndReason.BAD_BLOCK_LENGTH;
        }
        versionMajor = u16(address + 12);
        versionMinor = u16(address + 14);
        if (versionMajor != 1)
        {
            endDetail = "unsupported pcapng version " + versionMajor + "." + versionMinor + " (jvs reads 1.x)";
            return EndReason.UNSUPPORTED_VERSION;
        }
        sections++;
        interfaceCount = 0;
        position = offset + length;
        return EndReason.NONE;
    }

    private boolean readInterface(final long offset, final long address, final long length)
    {
        if (length < INTERFACE_DESCRIPTION_MIN_LENGTH)
        {
            return end(EndReason.BAD_BLOCK_LENGTH, offset,
                "Interface Description Block of " + length + " bytes, below the minimum of 20");
        }
        if (interfaceCount == MAX_INTERFACES)
        {
            return end(EndReason.TOO_MANY_INTERFACES, offset,
                "more than " + MAX_INTERFACES + " interfaces in section " + (sections - 1));
        }
        int tsResolution = 6;
        long tsOffsetSeconds = 0;
        int fcsLength = -1;
        final long optionsEnd = address + length - 4;
        long option = address + 16;
        while (option < optionsEnd)
        {
            // The block length is a multiple of 4, and so is every padded option: 4 header bytes remain.
            final int code = u16(option);
            final int optionLength = u16(option + 2);
            final long value = option + 4;
            if (value + ((optionLength + 3) & ~3) > optionsEnd)
            {
                return end(EndReason.BAD_OPTION, offset, "option " + code + " of " + optionLength
                    + " bytes runs past the end of its Interface Description Block");
            }
            if (code == OPTION_END)
            {
                break;
            }
            if (code == OPTION_IF_TSRESOL || code == OPTION_IF_FCSLEN || code == OPTION_IF_TSOFFSET)
            {
                final int expected = code == OPTION_IF_TSOFFSET ? 8 : 1;
                if (optionLength != expected)
                {
                    return end(EndReason.BAD_OPTION, offset, "option " + code + " has length " + optionLength
                        + ", not " + expected);
                }
                if (code == OPTION_IF_TSRESOL)
                {
                    tsResolution = Frames.u8(value);
                }
                else if (code == OPTION_IF_FCSLEN)
                {
                    fcsLength = Frames.u8(value);
                }
                else
                {
                    tsOffsetSeconds = i64(value);
                }
            }
            option = value + ((optionLength + 3) & ~3);
        }
        final int index = interfaceCount;
        if (index == ifLinkType.length)
        {
            final int capacity = index * 2;
            ifLinkType = Arrays.copyOf(ifLinkType, capacity);
            ifSnapLength = Arrays.copyOf(ifSnapLength, capacity);
            ifFcsLength = Arrays.copyOf(ifFcsLength, capacity);
            ifTsMode = Arrays.copyOf(ifTsMode, capacity);
            ifTsFactor = Arrays.copyOf(ifTsFactor, capacity);
            ifTsOffsetNs = Arrays.copyOf(ifTsOffsetNs, capacity);
        }
        final int exponent = tsResolution & 0x7F;
        if ((tsResolution & 0x80) != 0)
        {
            if (exponent > 63)
            {
                return end(EndReason.BAD_OPTION, offset, "timestamp resolution 2^-" + exponent + " too fine");
            }
            ifTsMode[index] = exponent == 0 ? TS_MULTIPLY : TS_BINARY;
            ifTsFactor[index] = exponent == 0 ? NANOS_PER_SECOND : exponent;
        }
        else
        {
            if (exponent > 19)
            {
                return end(EndReason.BAD_OPTION, offset, "timestamp resolution 10^-" + exponent + " too fine");
            }
            ifTsMode[index] = exponent <= 9 ? TS_MULTIPLY : TS_DIVIDE;
            ifTsFactor[index] = exponent <= 9 ? pow10(9 - exponent) : pow10(exponent - 9);
        }
        ifLinkType[index] = u16(address + 8);
        ifSnapLength[index] = u32(address + 12);
        ifFcsLength[index] = fcsLength;
        ifTsOffsetNs[index] = tsOffsetSeconds * NANOS_PER_SECOND;
        interfaceCount = index + 1;
        return true;
    }

    private static long pow10(final int exponent)
    {
        long value = 1;
        for (int i = 0; i < exponent; i++)
        {
            value *= 10;
        }
        return value;
    }

    private boolean end(final EndReason reason, final long offset, final String detail)
    {
        endReason = reason;
        endOffset = offset;
        endDetail = detail;
        clearRecord();
        return false;
    }

    private void clearRecord()
    {
        recordAddress = 0;
        capturedLength = 0;
        originalLength = 0;
        flags = 0;
    }

    private int u32(final long address)
    {
        final int value = Frames.i32(address);
        return littleEndian ? Integer.reverseBytes(value) : value;
    }

    private int u16(final long address)
    {
        final int value = Frames.u16(address);
        return littleEndian ? Integer.reverseBytes(value) >>> 16 : value;
    }

    private long i64(final long address)
    {
        final long value = Frames.i64(address);
        return littleEndian ? Long.reverseBytes(value) : value;
    }

    /**
     * Reads the whole file into memory now ({@link MemorySegment#load()}), so that the first pass over
     * it takes no page faults: for a replay that must keep its pace from the first packet. Optional.
     */
    public void load()
    {
        if (closed)
        {
            throw new IllegalStateException("closed: " + path);
        }
        mapping.load();
    }

    /**
     * Goes back to before the first record, as just after {@link #open}, with the counters at zero
     * (for replaying a file more than once without mapping it again).
     */
    public void rewind()
    {
        if (closed)
        {
            throw new IllegalStateException("closed: " + path);
        }
        records = 0;
        recordsAboveSnapLength = 0;
        recordsCapturedAboveOriginal = 0;
        blocksSkipped = 0;
        endReason = EndReason.NONE;
        endOffset = -1;
        endDetail = "";
        clearRecord();
        if (format == CaptureFormat.PCAPNG)
        {
            sections = 0;
            readSectionHeader(0);
        }
        else
        {
            position = PCAP_HEADER_LENGTH;
        }
    }

    /**
     * Unmaps the file: every address handed out becomes invalid. Ends the iteration with
     * {@link EndReason#CLOSED} unless it had already ended (the counters and the end stay readable).
     * Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            if (endReason == EndReason.NONE)
            {
                endReason = EndReason.CLOSED;
                endOffset = position;
            }
            clearRecord();
            arena.close();
        }
    }

    // The current record: valid after next() returned true.

    /**
     * @return the absolute address of the record's first byte (the link-layer header), read-only;
     * 0 when there is no current record.
     */
    public long address()
    {
        return recordAddress;
    }

    /**
     * @return the bytes present at {@link #address()}, 0..{@code maxCapturedLength}.
     */
    public int capturedLength()
    {
        return capturedLength;
    }

    /**
     * @return the length of the packet on the wire, 0..2^32-1 as stored (may be below the captured length
     * in a reader that accepts that).
     */
    public long originalLength()
    {
        return originalLength;
    }

    /**
     * @return nanoseconds since 1970-01-01 UTC; 0 for a pcapng Simple Packet Block.
     */
    public long timestampNs()
    {
        return timestampNs;
    }

    /**
     * @return the timestamp as stored. Classic pcap: the seconds field in the upper 32 bits, the fraction
     * field (µs or ns) in the lower 32. pcapng: the 64-bit count of the interface's timestamp units, before
     * its if_tsoffset.
     */
    public long rawTimestamp()
    {
        return rawTimestamp;
    }

    /**
     * @return the link-layer header type of the record ({@link LinkType}), the FCS bits masked off.
     */
    public int linkType()
    {
        return linkType;
    }

    /**
     * @return the pcapng interface the record arrived on, within its section; 0 for classic pcap.
     */
    public int interfaceIndex()
    {
        return interfaceIndex;
    }

    /**
     * @return {@link #FLAG_ABOVE_SNAP_LENGTH}, {@link #FLAG_CAPTURED_ABOVE_ORIGINAL},
     * {@link #FLAG_NO_TIMESTAMP}, or'ed; 0 for an ordinary record.
     */
    public int flags()
    {
        return flags;
    }

    /**
     * @return the offset in the file of the record's header (pcap) or block (pcapng).
     */
    public long recordOffset()
    {
        return recordOffset;
    }

    /**
     * @return the FCS length in bytes at the end of each frame of the current record's link: from the
     * upper bits of a classic pcap link-type field, or a pcapng if_fcslen option; -1 if the file does not
     * say.
     */
    public int fcsLength()
    {
        return format == CaptureFormat.PCAPNG
            ? (interfaceIndex < interfaceCount ? ifFcsLength[interfaceIndex] : -1) : fileFcsLength;
    }

    // The file.

    /**
     * @return the address of the file's first byte in the mapping: records lie between it and
     * {@code fileAddress() + size()}.
     */
    public long fileAddress()
    {
        return base;
    }

    public Path path()
    {
        return path;
    }

    public CaptureFormat format()
    {
        return format;
    }

    /**
     * @return true if the file (classic pcap) or the current section (pcapng) is little-endian.
     */
    public boolean littleEndian()
    {
        return littleEndian;
    }

    /**
     * @return the file size in bytes.
     */
    public long size()
    {
        return size;
    }

    /**
     * @return the file's format version: pcap 2.x, or the current pcapng section's 1.x, as major × 65536
     * + minor.
     */
    public int version()
    {
        return versionMajor << 16 | versionMinor;
    }

    /**
     * @return classic pcap: the file header's snapshot length (0: none given); pcapng: that of the
     * current record's interface.
     */
    public int snapLength()
    {
        return format == CaptureFormat.PCAPNG
            ? (interfaceIndex < interfaceCount ? ifSnapLength[interfaceIndex] : 0) : fileSnapLength;
    }

    /**
     * @return classic pcap: the whole link-type field of the file header, FCS and reserved bits included;
     * pcapng: the current record's link type.
     */
    public int linkTypeField()
    {
        return format == CaptureFormat.PCAPNG ? linkType : fileLinkTypeBits;
    }

    /**
     * @return pcapng: the Section Header Blocks read so far; classic pcap: 0.
     */
    public int sections()
    {
        return sections;
    }

    /**
     * @return pcapng: the interfaces described so far in the current section; classic pcap: 1.
     */
    public int interfaces()
    {
        return format == CaptureFormat.PCAPNG ? interfaceCount : 1;
    }

    /**
     * @return pcapng blocks skipped so far: not a section header, interface description or packet.
     */
    public long blocksSkipped()
    {
        return blocksSkipped;
    }

    // Counters and the end.

    /**
     * @return records delivered so far (since open or {@link #rewind()}).
     */
    public long records()
    {
        return records;
    }

    /**
     * @return records delivered so far with {@link #FLAG_ABOVE_SNAP_LENGTH}.
     */
    public long recordsAboveSnapLength()
    {
        return recordsAboveSnapLength;
    }

    /**
     * @return records delivered so far with {@link #FLAG_CAPTURED_ABOVE_ORIGINAL}.
     */
    public long recordsCapturedAboveOriginal()
    {
        return recordsCapturedAboveOriginal;
    }

    /**
     * @return {@link EndReason#NONE} while records may follow; then why the iteration ended.
     */
    public EndReason endReason()
    {
        return endReason;
    }

    /**
     * @return the file offset of the record or block that ended the iteration (the file size at a clean
     * end); -1 while not ended.
     */
    public long endOffset()
    {
        return endOffset;
    }

    /**
     * @return what was wrong with the record or block at {@link #endOffset()}, for a log; empty at a
     * clean end or while not ended.
     */
    public String endDetail()
    {
        return endDetail;
    }

    @Override
    public String toString()
    {
        return "PcapReader{" + path + ", " + format + ", records=" + records + ", end=" + endReason
            + (endOffset >= 0 ? " at " + endOffset : "") + (endDetail.isEmpty() ? "" : ": " + endDetail) + '}';
    }
}
