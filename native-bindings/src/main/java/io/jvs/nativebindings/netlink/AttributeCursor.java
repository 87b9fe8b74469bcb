package io.jvs.nativebindings.netlink;

import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

import io.jvs.nativebindings.Sockets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * Walks the attributes ({@code struct nlattr}: a 2-byte length that counts the 4-byte header, a 2-byte type,
 * the payload, padding to 4 bytes) of one region of a message, checking every length against the region, so
 * that a truncated or lying message ends in a {@link NetlinkFormatException} rather than a read past it.
 * Unknown types are the caller's to skip: it asks {@link #type()} and reads only what it knows.
 */
final class AttributeCursor
{
    private final MemorySegment segment;
    private final long base;
    private final long end;
    private final String context;
    private long position;
    private int type;
    private long payload;
    private int payloadLength;

    /**
     * @param segment the memory holding the message.
     * @param base    where the message starts, for the offsets in error messages.
     * @param start   where the attributes start.
     * @param end     where the region ends (the end of the message or of the enclosing attribute).
     * @param context what is being read, e.g. "RTM_NEWROUTE", for error messages.
     */
    AttributeCursor(final MemorySegment segment, final long base, final long start, final long end,
        final String context)
    {
        this.segment = segment;
        this.base = base;
        this.end = end;
        this.context = context;
        this.position = start;
    }

    /**
     * Steps to the next attribute. A region ending in fewer bytes than an attribute header ends the walk (the
     * kernel's nla_parse ignores such leftovers too).
     *
     * @return false when there is none.
     * @throws NetlinkFormatException when the attribute's length is less than its header or runs past the region.
     */
    boolean next()
    {
        final long remaining = end - position;
        if (remaining < Rtnetlink.NLA_HDRLEN)
        {
            return false;
        }
        final int length = Short.toUnsignedInt(segment.get(JAVA_SHORT_UNALIGNED, position));
        if (length < Rtnetlink.NLA_HDRLEN || length > remaining)
        {
            throw new NetlinkFormatException(context + ": the attribute at offset " + (position - base) +
                " has length " + length + " but " + remaining + " bytes remain of its region");
        }
        type = Short.toUnsignedInt(segment.get(JAVA_SHORT_UNALIGNED, position + 2)) & Rtnetlink.NLA_TYPE_MASK;
        payload = position + Rtnetlink.NLA_HDRLEN;
        payloadLength = length - Rtnetlink.NLA_HDRLEN;
        position += Rtnetlink.align(length);
        return true;
    }

    /**
     * @return the current attribute's type, its NLA_F_NESTED and NLA_F_NET_BYTEORDER bits cleared.
     */
    int type()
    {
        return type;
    }

    int payloadLength()
    {
        return payloadLength;
    }

    long payload()
    {
        return payload;
    }

    int u8()
    {
        expectAtLeast(1);
        return Byte.toUnsignedInt(segment.get(JAVA_BYTE, payload));
    }

    int u32()
    {
        expectAtLeast(4);
        return segment.get(JAVA_INT_UNALIGNED, payload);
    }

    /**
     * @return a NUL-terminated string (or one that fills the payload), as UTF-8.
     */
    String string()
    {
        int length = 0;
        while (length < payloadLength && segment.get(JAVA_BYTE, payload + length) != 0)
        {
            length++;
        }
        final byte[] bytes = new byte[length];
        MemorySegment.copy(segment, JAVA_BYTE, payload, bytes, 0, length);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * @return a 6-byte link-layer address in the low 48 bits, or {@link Link#NO_MAC} when it is of another length
     * (IP tunnels have 4 bytes or none, InfiniBand 20).
     */
    long mac()
    {
        if (payloadLength != 6)
        {
            return Link.NO_MAC;
        }
        long mac = 0;
        for (int i = 0; i < 6; i++)
        {
            mac = (mac << 8) | Byte.toUnsignedLong(segment.get(JAVA_BYTE, payload + i));
        }
        return mac;
    }

    /**
     * @param family AF_INET or AF_INET6.
     * @return the payload as an address of that family.
     * @throws NetlinkFormatException when the payload is not the family's address length.
     */
    InetAddress address(final int family)
    {
        return address(segment, payload, payloadLength, family, this::where);
    }

    /**
     * @return a cursor over the attributes nested in the current one.
     */
    AttributeCursor nested()
    {
        return new AttributeCursor(segment, base, payload, payload + payloadLength, context);
    }

    /**
     * @return where the current attribute is, for error messages.
     */
    String where()
    {
        return context + ": attribute " + type + " at offset " + (payload - Rtnetlink.NLA_HDRLEN - base);
    }

    private void expectAtLeast(final int bytes)
    {
        if (payloadLength < bytes)
        {
            throw new NetlinkFormatException(where() + " has " + payloadLength + " bytes, needs " + bytes);
        }
    }

    /** Supplies the description of a place in a message for an error, only when there is one. */
    interface Where
    {
        String describe();
    }

    /**
     * @return the {@code length} bytes at {@code offset} as an address of {@code family}; an IPv6 address stays an
     * {@link Inet6Address} even when it is IPv4-mapped (InetAddress.getByAddress would turn it into IPv4).
     * @throws NetlinkFormatException for an unknown family or the wrong length.
     */
    static InetAddress address(final MemorySegment segment, final long offset, final int length, final int family,
        final Where where)
    {
        final int expected = addressLength(family);
        if (expected < 0 || length != expected)
        {
            throw new NetlinkFormatException(where.describe() + ": " + length + " bytes is not an address of family " +
                family);
        }
        final byte[] bytes = new byte[expected];
        MemorySegment.copy(segment, JAVA_BYTE, offset, bytes, 0, expected);
        try
        {
            return family == Sockets.AF_INET ? InetAddress.getByAddress(bytes) :
                Inet6Address.getByAddress(null, bytes, -1);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("an address of " + expected + " bytes was refused", ex);
        }
    }

    /**
     * @return 4 for AF_INET, 16 for AF_INET6, -1 for any other family.
     */
    static int addressLength(final int family)
    {
        return family == Sockets.AF_INET ? 4 : family == Sockets.AF_INET6 ? 16 : -1;
    }
}
