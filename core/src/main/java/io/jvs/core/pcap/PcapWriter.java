package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a classic pcap file (version 2.4, little-endian) from frames in off-heap memory, as tcpdump,
 * Wireshark and {@link PcapReader} read it.
 * <pre>
 * try (PcapWriter writer = PcapWriter.open(path))   // ns timestamps, Ethernet
 * {
 *     writer.write(timestampNs, frameAddress, frameLength);
 * }
 * </pre>
 * Records go through a 1 MiB off-heap buffer, written to the file when it is full, on {@link #flush()}
 * and on {@link #close()}: nothing is allocated per record. Not thread-safe.
 */
public final class PcapWriter implements AutoCloseable
{
    /** The default snapshot length, libpcap's: frames up to 256 KiB are written whole. */
    public static final int DEFAULT_SNAP_LENGTH = 256 * 1024;
    /** Bytes buffered before a write to the file. */
    public static final int BUFFER_SIZE = 1 << 20;

    private static final int FILE_HEADER_LENGTH = 24;
    private static final int RECORD_HEADER_LENGTH = 16;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long MAX_SECONDS = 0xFFFF_FFFFL;

    private final Path path;
    private final FileChannel channel;
    private final Arena arena;
    private final ByteBuffer buffer;
    private final long bufferAddress;
    private final TimestampPrecision precision;
    private final int nanosPerUnit;
    private final int linkType;
    private final int snapLength;
    private int used;
    private long records;
    private boolean closed;

    private PcapWriter(
        final Path path,
        final FileChannel channel,
        final Arena arena,
        final MemorySegment bufferSegment,
        final TimestampPrecision precision,
        final int linkType,
        final int snapLength)
    {
        this.path = path;
        this.channel = channel;
        this.arena = arena;
        this.buffer = bufferSegment.asByteBuffer();
        this.bufferAddress = bufferSegment.address();
        this.precision = precision;
        this.nanosPerUnit = precision.nanosPerUnit();
        this.linkType = linkType;
        this.snapLength = snapLength;
    }

    /**
     * Creates (or truncates) a pcap file with nanosecond timestamps, Ethernet frames and a 256 KiB
     * snapshot length.
     *
     * @param path the file.
     * @return the writer; the file header is buffered, not yet written.
     * @throws IOException if the file cannot be created.
     */
    public static PcapWriter open(final Path path) throws IOException
    {
        return open(path, TimestampPrecision.NANOSECONDS, LinkType.ETHERNET, DEFAULT_SNAP_LENGTH);
    }

    /**
     * Creates (or truncates) a pcap file.
     *
     * @param path       the file.
     * @param precision  {@link TimestampPrecision#NANOSECONDS} (magic a1b23c4d) or
     *                   {@link TimestampPrecision#MICROSECONDS} (a1b2c3d4, for the oldest readers).
     * @param linkType   the link-layer header type of every frame, 0..65535 ({@link LinkType}).
     * @param snapLength the most bytes of a frame written, 1 and up: longer frames are cut to it, keeping
     *                   their original length.
     * @return the writer; the file header is buffered, not yet written.
     * @throws IOException if the file cannot be created.
     */
    public static PcapWriter open(
        final Path path, final TimestampPrecision precision, final int linkType, final int snapLength)
        throws IOException
    {
        if (linkType < 0 || linkType > 0xFFFF)
        {
            throw new IllegalArgumentException("link type " + linkType + " not in 0..65535");
        }
        if (snapLength <= 0)
        {
            throw new IllegalArgumentException("snapshot length " + snapLength + " not positive");
        }
        final FileChannel channel = FileChannel.open(path,
            StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        final Arena arena = Arena.ofShared();
        final PcapWriter writer = new PcapWriter(
            path, channel, arena, arena.allocate(BUFFER_SIZE, 64), precision, linkType, snapLength);
        writer.writeFileHeader();
        return writer;
    }

    private void writeFileHeader()
    {
        final long a = bufferAddress;
        putLe32(a, precision.magic());
        putLe16(a + 4, 2);
        putLe16(a + 6, 4);
        putLe32(a + 8, 0);
        putLe32(a + 12, 0);
        putLe32(a + 16, snapLength);
        putLe32(a + 20, linkType);
        used = FILE_HEADER_LENGTH;
    }

    /**
     * Appends a frame whose original length is its length.
     *
     * @param timestampNs nanoseconds since 1970-01-01 UTC, 0 to 2^32 s (year 2106); µs files truncate it.
     * @param address     the frame's first byte, off-heap.
     * @param length      the frame's length; above the snapshot length, only that much is written.
     * @throws IOException if the buffer had to be written and that failed.
     */
    public void write(final long timestampNs, final long address, final int length) throws IOException
    {
        write(timestampNs, address, length, length);
    }

    /**
     * Appends a frame that may have been cut short already.
     *
     * @param timestampNs    nanoseconds since 1970-01-01 UTC, 0 to 2^32 s (year 2106).
     * @param address        the frame's first byte, off-heap.
     * @param capturedLength the bytes present at the address; above the snapshot length, only that much
     *                       is written.
     * @param originalLength the frame's length on the wire, capturedLength..2^32-1.
     * @throws IOException if the buffer had to be written and that failed.
     */
    public void write(final long timestampNs, final long address, final int capturedLength, final long originalLength)
        throws IOException
    {
        if (closed)
        {
            throw new IllegalStateException("closed: " + path);
        }
        if (capturedLength < 0 || originalLength < capturedLength || originalLength > 0xFFFF_FFFFL)
        {
            throw new IllegalArgumentException(
                "captured length " + capturedLength + ", original length " + originalLength);
        }
        final long seconds = timestampNs / NANOS_PER_SECOND;
        if (timestampNs < 0 || seconds > MAX_SECONDS)
        {
            throw new IllegalArgumentException("timestamp " + timestampNs + " ns outside 1970..2106");
        }
        final int fraction = (int)(timestampNs - seconds * NANOS_PER_SECOND) / nanosPerUnit;
        final int captured = Math.min(capturedLength, snapLength);
        if (BUFFER_SIZE - used < RECORD_HEADER_LENGTH + captured)
        {
            flushBuffer();
        }
        final long header = bufferAddress + used;
        putLe32(header, (int)seconds);
        putLe32(header + 4, fraction);
        putLe32(header + 8, captured);
        putLe32(header + 12, (int)originalLength);
        used += RECORD_HEADER_LENGTH;
        if (RECORD_HEADER_LENGTH + captured <= BUFFER_SIZE)
        {
            Frames.copy(address, bufferAddress + used, captured);
            used += captured;
        }
        else
        {
            // Larger than the whole buffer (a snapshot length above 1 MiB): through it in pieces.
            long from = address;
            int left = captured;
            while (left > 0)
            {
                if (used == BUFFER_SIZE)
                {
                    flushBuffer();
                }
                final int piece = Math.min(left, BUFFER_SIZE - used);
                Frames.copy(from, bufferAddress + used, piece);
                used += piece;
                from += piece;
                left -= piece;
            }
        }
        records++;
    }

    /**
     * Writes what is buffered to the file (not forced to the disk).
     *
     * @throws IOException if the write fails.
     */
    public void flush() throws IOException
    {
        if (!closed)
        {
            flushBuffer();
        }
    }

    private void flushBuffer() throws IOException
    {
        buffer.clear().limit(used);
        while (buffer.hasRemaining())
        {
            channel.write(buffer);
        }
        used = 0;
    }

    /**
     * @return records written (or buffered) so far.
     */
    public long records()
    {
        return records;
    }

    public Path path()
    {
        return path;
    }

    /**
     * Flushes, closes the file and frees the buffer. Idempotent.
     *
     * @throws IOException if the last write fails (the file is closed anyway).
     */
    @Override
    public void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try (channel)
        {
            flushBuffer();
        }
        finally
        {
            arena.close();
        }
    }

    private static void putLe32(final long address, final int value)
    {
        Frames.putI32(address, Integer.reverseBytes(value));
    }

    private static void putLe16(final long address, final int value)
    {
        Frames.putU16(address, Integer.reverseBytes(value) >>> 16);
    }
}
