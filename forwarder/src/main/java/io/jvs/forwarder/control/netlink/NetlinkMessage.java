package io.jvs.forwarder.control.netlink;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One netlink message: the fields of its {@code struct nlmsghdr} and the payload after it.
 *
 * @param type     {@code nlmsg_type}: a family id, or {@link Netlink#NLMSG_ERROR} and the other control types.
 * @param flags    {@code nlmsg_flags} ({@code NLM_F_*}).
 * @param sequence {@code nlmsg_seq}, echoed in the replies.
 * @param port     {@code nlmsg_pid}: the sender's port id in a request, echoed in the replies.
 * @param payload  the bytes after the header, up to {@code nlmsg_len}.
 */
public record NetlinkMessage(int type, int flags, int sequence, int port, byte[] payload)
{
    public NetlinkMessage
    {
        payload = payload.clone();
    }

    @Override
    public byte[] payload()
    {
        return payload.clone();
    }

    /** @return the payload as a buffer in netlink's byte order (no copy; do not write to it). */
    public ByteBuffer payloadBuffer()
    {
        return ByteBuffer.wrap(payload).order(Netlink.ORDER);
    }

    /** @return the header and payload as the kernel writes them, {@code nlmsg_len} being the unaligned length. */
    public byte[] encode()
    {
        final ByteBuffer out = ByteBuffer.allocate(Netlink.NLMSG_HDRLEN + payload.length).order(Netlink.ORDER);
        out.putInt(Netlink.NLMSG_HDRLEN + payload.length).putShort((short)type).putShort((short)flags)
            .putInt(sequence).putInt(port).put(payload);
        return out.array();
    }

    /**
     * Reads the message at the buffer's position, as {@code netlink_rcv_skb} walks a datagram, and moves the position
     * to the aligned end of the message (at most the buffer's limit).
     *
     * @param in a datagram in {@link Netlink#ORDER}, with at least {@link Netlink#NLMSG_HDRLEN} bytes remaining.
     * @throws NetlinkException (EINVAL) when the header's length is below the header's own size or runs past the
     *                          datagram; the position is then unchanged, and {@link #headerOf} gives what an error
     *                          reply can echo.
     */
    public static NetlinkMessage next(final ByteBuffer in) throws NetlinkException
    {
        final int start = in.position();
        if (in.remaining() < Netlink.NLMSG_HDRLEN)
        {
            throw new NetlinkException(Netlink.EINVAL, in.remaining() + " bytes are too few for a netlink header");
        }
        final long length = Integer.toUnsignedLong(in.getInt(start));
        if (length < Netlink.NLMSG_HDRLEN || length > in.remaining())
        {
            throw new NetlinkException(Netlink.EINVAL, "a message claims " + length + " bytes; " + in.remaining() +
                " are left, and its header is " + Netlink.NLMSG_HDRLEN);
        }
        final byte[] payload = new byte[(int)length - Netlink.NLMSG_HDRLEN];
        in.get(start + Netlink.NLMSG_HDRLEN, payload);
        final NetlinkMessage message = new NetlinkMessage(Short.toUnsignedInt(in.getShort(start + 4)),
            Short.toUnsignedInt(in.getShort(start + 6)), in.getInt(start + 8), in.getInt(start + 12), payload);
        in.position((int)Math.min(in.limit(), start + Netlink.align((int)length)));
        return message;
    }

    /** @return every message of a datagram, in order. */
    public static List<NetlinkMessage> split(final byte[] datagram) throws NetlinkException
    {
        final ByteBuffer in = ByteBuffer.wrap(datagram).order(Netlink.ORDER);
        final List<NetlinkMessage> messages = new ArrayList<>();
        while (in.hasRemaining())
        {
            messages.add(next(in));
        }
        return messages;
    }

    /**
     * @return the header of the message starting at this offset, without its payload, or null when fewer than a
     *         header's bytes are there: what an error reply to a malformed message can echo.
     */
    public static NetlinkMessage headerOf(final byte[] datagram, final int offset)
    {
        if (datagram.length - offset < Netlink.NLMSG_HDRLEN)
        {
            return null;
        }
        final ByteBuffer in = ByteBuffer.wrap(datagram).order(Netlink.ORDER);
        return new NetlinkMessage(Short.toUnsignedInt(in.getShort(offset + 4)),
            Short.toUnsignedInt(in.getShort(offset + 6)), in.getInt(offset + 8), in.getInt(offset + 12), new byte[0]);
    }
}
