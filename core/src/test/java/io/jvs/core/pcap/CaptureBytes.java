package io.jvs.core.pcap;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Builds capture files byte by byte, in either byte order, for tests: classic pcap headers and records,
 * pcapng blocks. Remembers where each record or block ends, and which of them are packets.
 */
final class CaptureBytes
{
    static final int SHB = 0x0A0D0D0A;
    static final int IDB = 1;
    static final int PB = 2;
    static final int SPB = 3;
    static final int NRB = 4;
    static final int ISB = 5;
    static final int EPB = 6;
    static final int CUSTOM = 0x00000BAD;

    private ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
    /** File offsets just after each record (pcap) or block (pcapng), in order. */
    final List<Integer> ends = new ArrayList<>();
    /** For each entry of {@link #ends}: whether it was a packet. */
    final List<Boolean> packets = new ArrayList<>();

    CaptureBytes(final ByteOrder order)
    {
        buffer.order(order);
    }

    CaptureBytes order(final ByteOrder order)
    {
        buffer.order(order);
        return this;
    }

    ByteOrder order()
    {
        return buffer.order();
    }

    int position()
    {
        return buffer.position();
    }

    private void room(final int bytes)
    {
        if (buffer.remaining() < bytes)
        {
            final ByteBuffer bigger = ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + bytes))
                .order(buffer.order());
            bigger.put(buffer.flip());
            buffer = bigger;
        }
    }

    CaptureBytes u8(final int value)
    {
        room(1);
        buffer.put((byte)value);
        return this;
    }

    CaptureBytes u16(final int value)
    {
        room(2);
        buffer.putShort((short)value);
        return this;
    }

    CaptureBytes u32(final long value)
    {
        room(4);
        buffer.putInt((int)value);
        return this;
    }

    CaptureBytes u64(final long value)
    {
        room(8);
        buffer.putLong(value);
        return this;
    }

    CaptureBytes bytes(final byte[] bytes)
    {
        room(bytes.length);
        buffer.put(bytes);
        return this;
    }

    CaptureBytes pad4()
    {
        while ((buffer.position() & 3) != 0)
        {
            u8(0);
        }
        return this;
    }

    // Classic pcap.

    CaptureBytes pcapHeader(final int magic, final int major, final int minor, final int snapLength, final int linkType)
    {
        u32(magic).u16(major).u16(minor).u32(0).u32(0).u32(snapLength).u32(linkType);
        return this;
    }

    CaptureBytes pcapRecord(final long seconds, final long fraction, final int captured, final int original,
        final byte[] data)
    {
        u32(seconds).u32(fraction).u32(captured).u32(original).bytes(data);
        ends.add(buffer.position());
        packets.add(true);
        return this;
    }

    // pcapng.

    /**
     * A block: type, length, body padded to 4, length again.
     */
    CaptureBytes block(final int type, final Consumer<CaptureBytes> body)
    {
        final int start = buffer.position();
        u32(type).u32(0);
        body.accept(this);
        pad4();
        final int length = buffer.position() - start + 4;
        u32(length);
        buffer.putInt(start + 4, length);
        ends.add(buffer.position());
        packets.add(type == EPB || type == SPB || type == PB);
        return this;
    }

    CaptureBytes shb(final int major, final int minor)
    {
        return block(SHB, b -> b.u32(0x1A2B3C4D).u16(major).u16(minor).u64(-1));
    }

    CaptureBytes idb(final int linkType, final int snapLength, final byte[]... options)
    {
        return block(IDB, b ->
        {
            b.u16(linkType).u16(0).u32(snapLength);
            for (final byte[] option : options)
            {
                b.bytes(option);
            }
            if (options.length > 0)
            {
                b.u32(0); // opt_endofopt
            }
        });
    }

    /**
     * @return one option, code, length, value and padding, in this builder's byte order.
     */
    byte[] option(final int code, final byte[] value)
    {
        final ByteBuffer option = ByteBuffer.allocate(4 + ((value.length + 3) & ~3)).order(buffer.order());
        option.putShort((short)code).putShort((short)value.length).put(value);
        return option.array();
    }

    byte[] tsresol(final int value)
    {
        return option(9, new byte[] {(byte)value});
    }

    byte[] tsoffset(final long seconds)
    {
        return option(14, ByteBuffer.allocate(8).order(buffer.order()).putLong(seconds).array());
    }

    byte[] fcslen(final int bytes)
    {
        return option(13, new byte[] {(byte)bytes});
    }

    CaptureBytes epb(final int interfaceId, final long timestamp, final int captured, final int original,
        final byte[] data)
    {
        return block(EPB, b -> b.u32(interfaceId).u32(timestamp >>> 32).u32(timestamp).u32(captured).u32(original)
            .bytes(data).pad4().u16(1).u16(4).u32(0x6A76_7321L).u32(0)); // a 4-byte opt_comment, end of options
    }

    CaptureBytes pb(final int interfaceId, final long timestamp, final int captured, final int original,
        final byte[] data)
    {
        return block(PB, b -> b.u16(interfaceId).u16(0).u32(timestamp >>> 32).u32(timestamp).u32(captured)
            .u32(original).bytes(data));
    }

    CaptureBytes spb(final int original, final byte[] data)
    {
        return block(SPB, b -> b.u32(original).bytes(data));
    }

    byte[] toBytes()
    {
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

    Path write(final Path directory, final String name) throws IOException
    {
        return Files.write(directory.resolve(name), toBytes());
    }

    /**
     * Overwrites 4 bytes of a built file.
     */
    static void put32(final byte[] bytes, final int offset, final int value, final ByteOrder order)
    {
        ByteBuffer.wrap(bytes).order(order).putInt(offset, value);
    }

    static byte[] data(final int length, final int seed)
    {
        final byte[] data = new byte[length];
        for (int i = 0; i < length; i++)
        {
            data[i] = (byte)(seed * 31 + i * 7);
        }
        return data;
    }
}
