package io.jvs.nativebindings.netlink;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * The kernel's generic netlink family "netdev" ({@code ynl --family netdev}): what XDP a device does, as
 * {@code NETDEV_CMD_DEV_GET} reports it in its xdp-features. jvs asks whether a device takes frames another
 * device's XDP program redirects to it ({@link #XDP_ACT_NDO_XMIT}): a driver without ndo_xdp_xmit drops them,
 * and a veth takes them only while its peer runs NAPI, with an XDP program or GRO on the peer (veth_xdp_xmit;
 * veth_set_xdp_features follows the peer). In the calling thread's network namespace.
 */
public final class NetdevNetlink implements AutoCloseable
{
    /** NETDEV_XDP_ACT_BASIC: XDP_PASS, DROP, ABORTED, TX. */
    public static final long XDP_ACT_BASIC = 1;
    /** NETDEV_XDP_ACT_REDIRECT: its program may redirect. */
    public static final long XDP_ACT_REDIRECT = 2;
    /** NETDEV_XDP_ACT_NDO_XMIT: it takes frames redirected to it (ndo_xdp_xmit). */
    public static final long XDP_ACT_NDO_XMIT = 4;

    static final int NETLINK_GENERIC = 16;
    private static final int GENL_ID_CTRL = 0x10;
    private static final int CTRL_CMD_GETFAMILY = 3;
    private static final int CTRL_ATTR_FAMILY_ID = 1;
    private static final int CTRL_ATTR_FAMILY_NAME = 2;
    private static final int NETDEV_CMD_DEV_GET = 1;
    private static final int NETDEV_A_DEV_IFINDEX = 1;
    private static final int NETDEV_A_DEV_XDP_FEATURES = 3;
    /** struct genlmsghdr: cmd, version, reserved. */
    private static final int GENL_HEADER = 4;
    private static final int GENL_VERSION = 1;

    private final NetlinkSocket socket;
    private final RequestWriter request;
    private final int family;
    private int sequence;

    private NetdevNetlink(final NetlinkSocket socket, final int family)
    {
        this.socket = socket;
        this.request = new RequestWriter(socket.requestBuffer());
        this.family = family;
    }

    /**
     * Opens a generic netlink socket and finds the family's id.
     *
     * @throws NativeCallException when the kernel has no netdev family (before 6.3: ENOENT) or refuses.
     */
    public static NetdevNetlink open(final Syscalls syscalls)
    {
        final NetlinkSocket socket = NetlinkSocket.open(syscalls, false, NETLINK_GENERIC, "the netdev family");
        try
        {
            final NetdevNetlink probe = new NetdevNetlink(socket, 0);
            return new NetdevNetlink(socket, probe.familyId());
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /**
     * @return the device's NETDEV_XDP_ACT_* bits.
     * @throws NativeCallException when the kernel refuses (ENODEV: no such device).
     */
    public long xdpFeatures(final int ifindex)
    {
        final String what = "the xdp-features of interface " + ifindex;
        final long header = request.begin(family, Rtnetlink.NLM_F_REQUEST, ++sequence, GENL_HEADER);
        request.buffer().set(JAVA_BYTE, header, (byte)NETDEV_CMD_DEV_GET);
        request.buffer().set(JAVA_BYTE, header + 1, (byte)GENL_VERSION);
        request.attributeU32(NETDEV_A_DEV_IFINDEX, ifindex);
        final long reply = exchange(what);
        final AttributeCursor attributes = attributes(reply, what);
        while (attributes.next())
        {
            if (attributes.type() == NETDEV_A_DEV_XDP_FEATURES && attributes.payloadLength() >= Long.BYTES)
            {
                return socket.receiveBuffer().get(JAVA_LONG_UNALIGNED, attributes.payload());
            }
        }
        return 0;
    }

    private int familyId()
    {
        final String what = "the id of the netdev family";
        final long header = request.begin(GENL_ID_CTRL, Rtnetlink.NLM_F_REQUEST, ++sequence, GENL_HEADER);
        request.buffer().set(JAVA_BYTE, header, (byte)CTRL_CMD_GETFAMILY);
        request.buffer().set(JAVA_BYTE, header + 1, (byte)GENL_VERSION);
        request.attribute(CTRL_ATTR_FAMILY_NAME, "netdev\0".getBytes(StandardCharsets.US_ASCII));
        final long reply = exchange(what);
        final AttributeCursor attributes = attributes(reply, what);
        while (attributes.next())
        {
            if (attributes.type() == CTRL_ATTR_FAMILY_ID && attributes.payloadLength() >= 2)
            {
                return Short.toUnsignedInt(socket.receiveBuffer().get(JAVA_SHORT_UNALIGNED, attributes.payload()));
            }
        }
        throw new NetlinkFormatException(what + ": the kernel's answer names no id");
    }

    /** Sends the request and returns the offset of the answer of its sequence number in the receive buffer. */
    private long exchange(final String what)
    {
        socket.send(request.finish(), what);
        final MemorySegment replies = socket.receiveBuffer();
        while (true)
        {
            final int received = socket.receiveFromKernel(RouteNetlink.TIMEOUT_MS, what);
            long position = 0;
            while (position < received)
            {
                final int length = RtnetlinkParser.messageLength(replies, position, received);
                if (RtnetlinkParser.sequence(replies, position) == sequence)
                {
                    if (RtnetlinkParser.type(replies, position) == Rtnetlink.NLMSG_ERROR)
                    {
                        final int error = RtnetlinkParser.error(replies, position, length);
                        throw new NativeCallException("netlink " + what, -error, what);
                    }
                    return position;
                }
                position += Rtnetlink.align(length);
            }
        }
    }

    private AttributeCursor attributes(final long reply, final String what)
    {
        final MemorySegment replies = socket.receiveBuffer();
        final int length = RtnetlinkParser.messageLength(replies, reply, reply + NetlinkSocket.RECEIVE_BUFFER);
        return new AttributeCursor(replies, reply, reply + NlMsgHdr.SIZE + GENL_HEADER, reply + length, what);
    }

    @Override
    public void close()
    {
        socket.close();
    }
}
