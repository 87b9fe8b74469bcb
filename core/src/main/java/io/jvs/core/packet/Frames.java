package io.jvs.core.packet;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads and writes frame bytes at absolute off-heap addresses, in network byte order.
 * <p>
 * Every frame jvs handles lives off the heap (AF_XDP UMEM, an AF_PACKET ring, a memory-mapped capture,
 * a direct buffer), so the data path addresses bytes by address and checks lengths itself, once per
 * header, before it reads: these accessors do no bounds checking of their own. That is what keeps a
 * header field read at one load (perf/RESULTS.md compares this with MemorySegment and Agrona buffers).
 */
public final class Frames
{
    /** Copies up to this many bytes, between ranges that do not overlap, are done in longs rather than by the stub. */
    static final int SMALL_COPY = 128;
    /**
     * Whether network order is the reverse of this machine's. The accessors swap the bytes themselves rather than
     * call Unsafe's endian-taking overloads, which reach the same load through two more methods, and each inlined
     * method counts against C2's budget for the loop it is inlined into (DesiredMethodLimit, see Pipeline's fast
     * loop): a constant here, so the compiler keeps one branch of each.
     */
    private static final boolean SWAP = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private Frames()
    {
    }

    public static int u8(final long address)
    {
        return UnsafeApi.getByte(address) & 0xFF;
    }

    /**
     * @return the big-endian 16-bit value at the address, 0..65535.
     */
    public static int u16(final long address)
    {
        return (SWAP ? Short.reverseBytes(UnsafeApi.getShortUnaligned(null, address)) :
            UnsafeApi.getShortUnaligned(null, address)) & 0xFFFF;
    }

    /**
     * @return the big-endian 32-bit value at the address.
     */
    public static int i32(final long address)
    {
        final int value = UnsafeApi.getIntUnaligned(null, address);
        return SWAP ? Integer.reverseBytes(value) : value;
    }

    /**
     * @return the big-endian 64-bit value at the address.
     */
    public static long i64(final long address)
    {
        final long value = UnsafeApi.getLongUnaligned(null, address);
        return SWAP ? Long.reverseBytes(value) : value;
    }

    /**
     * @return the long whose native store writes the value's bytes in network order, for a value written many times
     *         and worked out once.
     */
    public static long inNetworkOrder(final long value)
    {
        return SWAP ? Long.reverseBytes(value) : value;
    }

    /**
     * @return the int whose native store writes the value's bytes in network order.
     */
    public static int inNetworkOrder(final int value)
    {
        return SWAP ? Integer.reverseBytes(value) : value;
    }

    public static void putU8(final long address, final int value)
    {
        UnsafeApi.putByte(address, (byte)value);
    }

    /**
     * Writes the low 16 bits of the value, big-endian.
     */
    public static void putU16(final long address, final int value)
    {
        UnsafeApi.putShortUnaligned(null, address, SWAP ? Short.reverseBytes((short)value) : (short)value);
    }

    public static void putI32(final long address, final int value)
    {
        UnsafeApi.putIntUnaligned(null, address, SWAP ? Integer.reverseBytes(value) : value);
    }

    public static void putI64(final long address, final long value)
    {
        UnsafeApi.putLongUnaligned(null, address, SWAP ? Long.reverseBytes(value) : value);
    }

    /**
     * Copies bytes; the ranges may overlap.
     */
    public static void copy(final long from, final long to, final int length)
    {
        if (length >= Long.BYTES && length <= SMALL_COPY && (to - from >= length || from - to >= length))
        {
            // A header-sized copy in longs, the last one ending at the end (it may overlap the one before it): the
            // copy stub's call and set-up cost more than the copy itself at these lengths.
            final int last = length - Long.BYTES;
            for (int i = 0; i < last; i += Long.BYTES)
            {
                UnsafeApi.putLongUnaligned(null, to + i, UnsafeApi.getLongUnaligned(null, from + i));
            }
            UnsafeApi.putLongUnaligned(null, to + last, UnsafeApi.getLongUnaligned(null, from + last));
            return;
        }
        UnsafeApi.copyMemory(from, to, length);
    }

    /**
     * @param buffer a direct buffer.
     * @return the address of its first byte.
     */
    public static long addressOf(final ByteBuffer buffer)
    {
        if (!buffer.isDirect())
        {
            throw new IllegalArgumentException("frames must live off the heap: a direct buffer is needed");
        }
        return BufferUtil.address(buffer);
    }

    /**
     * Copies a frame into off-heap memory.
     *
     * @param bytes   the frame.
     * @param address where to put it.
     */
    public static void write(final byte[] bytes, final long address)
    {
        for (int i = 0; i < bytes.length; i++)
        {
            UnsafeApi.putByte(address + i, bytes[i]);
        }
    }

    /**
     * @return the bytes at the address (allocates; for tests and tools).
     */
    public static byte[] read(final long address, final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = UnsafeApi.getByte(address + i);
        }
        return bytes;
    }
}
