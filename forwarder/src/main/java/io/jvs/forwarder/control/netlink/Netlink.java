package io.jvs.forwarder.control.netlink;

import java.nio.ByteOrder;

/**
 * Netlink's framing constants ({@code include/uapi/linux/netlink.h}, {@code genetlink.h}) and the errno values the
 * endpoint answers with. Headers and attribute values are in the host's byte order, as the kernel writes them; the
 * IPVS attributes that are network-order ({@code __be16} ports, {@code __be32} masks) are converted where they are
 * read and written.
 */
public final class Netlink
{
    /** The order of netlink headers and of host-order attribute values. */
    public static final ByteOrder ORDER = ByteOrder.nativeOrder();

    /** {@code struct nlmsghdr}: length, type, flags, sequence, port id. */
    public static final int NLMSG_HDRLEN = 16;
    /** {@code struct genlmsghdr}: command, version, reserved. */
    public static final int GENL_HDRLEN = 4;
    /** {@code struct nlattr}: length, type. */
    public static final int NLA_HDRLEN = 4;

    public static final int NLMSG_NOOP = 1;
    public static final int NLMSG_ERROR = 2;
    public static final int NLMSG_DONE = 3;
    public static final int NLMSG_OVERRUN = 4;
    /** Types below this are netlink's own control messages, not requests for a family. */
    public static final int NLMSG_MIN_TYPE = 0x10;

    public static final int NLM_F_REQUEST = 0x01;
    public static final int NLM_F_MULTI = 0x02;
    public static final int NLM_F_ACK = 0x04;
    public static final int NLM_F_ECHO = 0x08;
    public static final int NLM_F_ROOT = 0x100;
    public static final int NLM_F_MATCH = 0x200;
    public static final int NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH;
    /** On an acknowledgement: the request is echoed without its payload. */
    public static final int NLM_F_CAPPED = 0x100;

    public static final int NLA_F_NESTED = 0x8000;
    public static final int NLA_F_NET_BYTEORDER = 0x4000;
    public static final int NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xFFFF;

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int ENOMEM = 12;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EINVAL = 22;
    public static final int ERANGE = 34;
    public static final int EMSGSIZE = 90;
    public static final int EOPNOTSUPP = 95;
    public static final int EAFNOSUPPORT = 97;

    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;

    private Netlink()
    {
    }

    /** @return the length rounded up to netlink's 4-byte alignment ({@code NLMSG_ALIGN}, {@code NLA_ALIGN}). */
    public static int align(final int length)
    {
        return (length + 3) & ~3;
    }
}
