package io.jvs.forwarder.control.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The attributes of one level ({@code struct nlattr} after {@code struct nlattr}, each aligned to 4 bytes), by type,
 * as {@code nla_parse} files them: the last of a repeated type wins, types above the level's maximum are ignored,
 * and each typed read checks the value's length against what the type needs (the policy's minimum), answering
 * EINVAL as the kernel's validation does.
 */
public final class NetlinkAttributes
{
    private final byte[][] values;
    private final boolean[] nested;

    private NetlinkAttributes(final int maxType)
    {
        this.values = new byte[maxType + 1][];
        this.nested = new boolean[maxType + 1];
    }

    /**
     * @param in      the attributes, from the buffer's position to its limit.
     * @param maxType the highest type this level knows.
     * @throws NetlinkException (EINVAL) when an attribute's length is below its header or runs past the end.
     */
    public static NetlinkAttributes parse(final ByteBuffer in, final int maxType) throws NetlinkException
    {
        final NetlinkAttributes attributes = new NetlinkAttributes(maxType);
        final ByteBuffer at = in.duplicate().order(Netlink.ORDER);
        // nla_parse: a tail shorter than an attribute header is left over, not an error.
        while (at.remaining() >= Netlink.NLA_HDRLEN)
        {
            final int start = at.position();
            final int length = Short.toUnsignedInt(at.getShort(start));
            final int type = Short.toUnsignedInt(at.getShort(start + 2));
            if (length < Netlink.NLA_HDRLEN || length > at.remaining())
            {
                throw new NetlinkException(Netlink.EINVAL, "attribute type " + (type & Netlink.NLA_TYPE_MASK) +
                    " claims " + length + " bytes; " + at.remaining() + " are left");
            }
            final int kind = type & Netlink.NLA_TYPE_MASK;
            if (kind <= maxType)
            {
                final byte[] value = new byte[length - Netlink.NLA_HDRLEN];
                at.get(start + Netlink.NLA_HDRLEN, value);
                attributes.values[kind] = value;
                attributes.nested[kind] = (type & Netlink.NLA_F_NESTED) != 0;
            }
            at.position(Math.min(at.limit(), start + Netlink.align(length)));
        }
        return attributes;
    }

    /** @return whether the type is there. */
    public boolean has(final int type)
    {
        return type < values.length && values[type] != null;
    }

    /** @return the value's bytes, or null when absent. */
    public byte[] bytes(final int type)
    {
        return has(type) ? values[type].clone() : null;
    }

    /** @return whether the attribute was sent with {@code NLA_F_NESTED}. */
    public boolean flaggedNested(final int type)
    {
        return has(type) && nested[type];
    }

    private ByteBuffer value(final int type, final int minimum, final String what) throws NetlinkException
    {
        final byte[] value = values[type];
        if (value.length < minimum)
        {
            throw new NetlinkException(Netlink.EINVAL, "attribute " + type + " (" + what + ") has " + value.length +
                " bytes, fewer than " + minimum);
        }
        return ByteBuffer.wrap(value).order(Netlink.ORDER);
    }

    public int u8(final int type) throws NetlinkException
    {
        return Byte.toUnsignedInt(value(type, 1, "u8").get(0));
    }

    public int u16(final int type) throws NetlinkException
    {
        return Short.toUnsignedInt(value(type, 2, "u16").getShort(0));
    }

    /** @return a network-order 16-bit value ({@code __be16}, as ports are). */
    public int be16(final int type) throws NetlinkException
    {
        return Short.toUnsignedInt(value(type, 2, "be16").order(ByteOrder.BIG_ENDIAN).getShort(0));
    }

    public int u32(final int type) throws NetlinkException
    {
        return value(type, 4, "u32").getInt(0);
    }

    /** @return a network-order 32-bit value ({@code __be32}). */
    public int be32(final int type) throws NetlinkException
    {
        return value(type, 4, "be32").order(ByteOrder.BIG_ENDIAN).getInt(0);
    }

    public long u64(final int type) throws NetlinkException
    {
        return value(type, 8, "u64").getLong(0);
    }

    /**
     * A {@code NLA_NUL_STRING}: the bytes before the terminating NUL, which must be there.
     *
     * @param maxLength the most characters before the NUL (the policy's {@code len}).
     */
    public String string(final int type, final int maxLength) throws NetlinkException
    {
        final byte[] value = values[type];
        int end = 0;
        while (end < value.length && value[end] != 0)
        {
            end++;
        }
        if (end == value.length)
        {
            throw new NetlinkException(Netlink.EINVAL, "attribute " + type + " is not a NUL-terminated string");
        }
        if (end > maxLength)
        {
            throw new NetlinkException(Netlink.EINVAL, "attribute " + type + " is a string of " + end +
                " bytes, longer than " + maxLength);
        }
        return new String(value, 0, end, StandardCharsets.UTF_8);
    }

    /** @return the attributes nested in this one. */
    public NetlinkAttributes nested(final int type, final int maxType) throws NetlinkException
    {
        return parse(ByteBuffer.wrap(values[type]), maxType);
    }
}
