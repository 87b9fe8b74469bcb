package io.jvs.forwarder.control.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Builds one netlink message as the kernel's {@code nlmsg_put}, {@code genlmsg_put} and {@code nla_put_*} do:
 * attribute lengths unaligned, each attribute and the message padded with zeros to 4 bytes, nests flagged
 * {@code NLA_F_NESTED} and closed with their final length.
 */
public final class NetlinkWriter
{
    private ByteBuffer out = ByteBuffer.allocate(256).order(Netlink.ORDER);

    /**
     * Starts the message.
     *
     * @param type     the family id or control type.
     * @param flags    {@code NLM_F_*}.
     * @param sequence the request's sequence number.
     * @param port     the requester's port id.
     */
    public NetlinkWriter(final int type, final int flags, final int sequence, final int port)
    {
        out.putInt(0).putShort((short)type).putShort((short)flags).putInt(sequence).putInt(port);
    }

    /** Puts a generic netlink header. */
    public NetlinkWriter genl(final int command, final int version)
    {
        room(Netlink.GENL_HDRLEN);
        out.put((byte)command).put((byte)version).putShort((short)0);
        return this;
    }

    /** Puts raw payload bytes, aligned (an error reply's echoed request). */
    public NetlinkWriter raw(final byte[] bytes)
    {
        room(Netlink.align(bytes.length));
        out.put(bytes);
        pad();
        return this;
    }

    public NetlinkWriter putInt(final int value)
    {
        room(4);
        out.putInt(value);
        return this;
    }

    public NetlinkWriter u8(final int type, final int value)
    {
        return attribute(type, new byte[] {(byte)value});
    }

    public NetlinkWriter u16(final int type, final int value)
    {
        return attribute(type, ByteBuffer.allocate(2).order(Netlink.ORDER).putShort((short)value).array());
    }

    public NetlinkWriter be16(final int type, final int value)
    {
        return attribute(type, ByteBuffer.allocate(2).order(ByteOrder.BIG_ENDIAN).putShort((short)value).array());
    }

    public NetlinkWriter u32(final int type, final int value)
    {
        return attribute(type, ByteBuffer.allocate(4).order(Netlink.ORDER).putInt(value).array());
    }

    public NetlinkWriter be32(final int type, final int value)
    {
        return attribute(type, ByteBuffer.allocate(4).order(ByteOrder.BIG_ENDIAN).putInt(value).array());
    }

    public NetlinkWriter u64(final int type, final long value)
    {
        return attribute(type, ByteBuffer.allocate(8).order(Netlink.ORDER).putLong(value).array());
    }

    /** A string with its terminating NUL, as {@code nla_put_string}. */
    public NetlinkWriter string(final int type, final String value)
    {
        final byte[] text = value.getBytes(StandardCharsets.UTF_8);
        return attribute(type, Arrays.copyOf(text, text.length + 1));
    }

    public NetlinkWriter attribute(final int type, final byte[] value)
    {
        final int length = Netlink.NLA_HDRLEN + value.length;
        if (length > 0xFFFF)
        {
            throw new IllegalArgumentException("an attribute of " + length + " bytes does not fit nla_len");
        }
        room(Netlink.align(length));
        out.putShort((short)length).putShort((short)type).put(value);
        pad();
        return this;
    }

    /** Opens a nested attribute. @return its offset, for {@link #end(int)}. */
    public int nest(final int type)
    {
        room(Netlink.NLA_HDRLEN);
        final int at = out.position();
        out.putShort((short)0).putShort((short)(type | Netlink.NLA_F_NESTED));
        return at;
    }

    /** Closes the nested attribute opened at this offset. */
    public NetlinkWriter end(final int nest)
    {
        final int length = out.position() - nest;
        if (length > 0xFFFF)
        {
            throw new IllegalArgumentException("a nest of " + length + " bytes does not fit nla_len");
        }
        out.putShort(nest, (short)length);
        return this;
    }

    /** @return the whole message, {@code nlmsg_len} set. */
    public byte[] finish()
    {
        out.putInt(0, out.position());
        return Arrays.copyOf(out.array(), out.position());
    }

    private void pad()
    {
        while ((out.position() & 3) != 0)
        {
            out.put((byte)0);
        }
    }

    private void room(final int bytes)
    {
        if (out.remaining() < bytes)
        {
            final ByteBuffer larger = ByteBuffer.allocate(Math.max(out.capacity() * 2, out.position() + bytes))
                .order(Netlink.ORDER);
            larger.put(out.flip());
            out = larger;
        }
    }
}
