package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a pcapng file: one section, one interface with nanosecond timestamps, and Enhanced Packet Blocks
 * that may carry a comment and a direction, which classic pcap cannot. Wireshark shows the comment in its
 * packet list ({@code pkt_comment}) and tcpdump reads the file like any capture. Little-endian, as written
 * by the x86 machines jvs runs on; readers take either order from the byte-order magic.
 * <p>
 * Not thread-safe; records are buffered and written when the buffer fills, on {@link #flush()} and on
 * {@link #close()}.
 */
public final class PcapngWriter implements AutoCloseable
{
    /** {@code epb_flags} direction: not given. */
    public static final int DIRECTION_UNKNOWN = 0;
    /** {@code epb_flags} direction: received by the interface. */
    public static final int DIRECTION_INBOUND = 1;
    /** {@code epb_flags} direction: sent by the interface. */
    public static final int DIRECTION_OUTBOUND = 2;

    private static final int SECTION_HEADER = 0x0A0D_0D0A;
    private static final int INTERFACE_DESCRIPTION = 1;
    private static final int ENHANCED_PACKET = 6;
    private static final int BYTE_ORDER_MAGIC = 0x1A2B_3C4D;
    private static final int OPTION_END = 0;
    private static final int OPTION_COMMENT = 1;
    private static final int OPTION_EPB_FLAGS = 2;
    private static final int OPTION_IF_TSRESOL = 9;
    private static final int NANOSECONDS = 9;

    private final FileChannel channel;
    private final Path path;
    private final int snapLength;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(PcapWriter.BUFFER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    private long records;

    private PcapngWriter(final FileChannel channel, final Path path, final int linkType, final int snapLength)
    {
        this.channel = channel;
        this.path = path;
        this.snapLength = snapLength;
        buffer.putInt(SECTION_HEADER).putInt(28).putInt(BYTE_ORDER_MAGIC).putShort((short)1).putShort((short)0)
            .putLong(-1L).putInt(28);
        buffer.putInt(INTERFACE_DESCRIPTION).putInt(32).putShort((short)linkType).putShort((short)0)
            .putInt(snapLength)
            .putShort((short)OPTION_IF_TSRESOL).putShort((short)1).put((byte)NANOSECONDS).put(new byte[3])
            .putShort((short)OPTION_END).putShort((short)0)
            .putInt(32);
    }

    /**
     * Creates (or truncates) a pcapng file.
     *
     * @param linkType   the interface's link type ({@link LinkType}).
     * @param snapLength the most bytes of a frame written.
     */
    public static PcapngWriter open(final Path path, final int linkType, final int snapLength) throws IOException
    {
        if (linkType < 0 || linkType > 0xFFFF || snapLength <= 0)
        {
            throw new IllegalArgumentException("link type " + linkType + " / snap length " + snapLength);
        }
        final FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING);
        return new PcapngWriter(channel, path, linkType, snapLength);
    }

    /**
     * Appends a frame.
     *
     * @param timestampNs    when it was seen, ns since the epoch.
     * @param address        its first byte.
     * @param length         its length (cut to the snap length).
     * @param originalLength its length on the wire.
     * @param comment        UTF-8 text shown beside it, or null.
     * @param direction      one of the {@code DIRECTION_} values.
     */
    public void write(
        final long timestampNs, final long address, final int length, final long originalLength,
        final byte[] comment, final int direction) throws IOException
    {
        final int captured = Math.min(length, snapLength);
        final int commentLength = comment == null ? 0 : Math.min(comment.length, 0xFFFF);
        final int options = (commentLength > 0 ? 4 + padded(commentLength) : 0) +
            (direction != DIRECTION_UNKNOWN ? 8 : 0) + 4;
        final int total = 32 + padded(captured) + options;
        if (total > buffer.capacity())
        {
            throw new IllegalArgumentException("a frame of " + captured + " bytes does not fit the buffer");
        }
        if (buffer.remaining() < total)
        {
            flush();
        }
        buffer.putInt(ENHANCED_PACKET).putInt(total).putInt(0)
            .putInt((int)(timestampNs >>> 32)).putInt((int)timestampNs)
            .putInt(captured).putInt((int)Math.min(0xFFFF_FFFFL, Math.max(originalLength, captured)));
        for (int i = 0; i < captured; i++)
        {
            buffer.put((byte)Frames.u8(address + i));
        }
        pad(captured);
        if (commentLength > 0)
        {
            buffer.putShort((short)OPTION_COMMENT).putShort((short)commentLength).put(comment, 0, commentLength);
            pad(commentLength);
        }
        if (direction != DIRECTION_UNKNOWN)
        {
            buffer.putShort((short)OPTION_EPB_FLAGS).putShort((short)4).putInt(direction);
        }
        buffer.putShort((short)OPTION_END).putShort((short)0);
        buffer.putInt(total);
        records++;
    }

    private void pad(final int length)
    {
        for (int i = length; (i & 3) != 0; i++)
        {
            buffer.put((byte)0);
        }
    }

    private static int padded(final int length)
    {
        return (length + 3) & ~3;
    }

    public void flush() throws IOException
    {
        buffer.flip();
        while (buffer.hasRemaining())
        {
            channel.write(buffer);
        }
        buffer.clear();
    }

    public long records()
    {
        return records;
    }

    public Path path()
    {
        return path;
    }

    @Override
    public void close() throws IOException
    {
        try
        {
            flush();
        }
        finally
        {
            channel.close();
        }
    }
}
