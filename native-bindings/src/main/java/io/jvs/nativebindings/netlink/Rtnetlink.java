package io.jvs.nativebindings.netlink;

/**
 * Constants of NETLINK_ROUTE sockets and their messages (linux/netlink.h, linux/rtnetlink.h, linux/if_link.h,
 * linux/if_addr.h, linux/neighbour.h, linux/if.h), checked against the 6.1 uapi headers.
 * The structures carried in the messages have layout classes of their own: {@link NlMsgHdr}, {@link RtMsg},
 * {@link IfInfoMsg}, {@link IfAddrMsg}, {@link NdMsg}, {@link RtNextHop}, {@link SockaddrNl}.
 */
public final class Rtnetlink
{
    public static final int AF_NETLINK = 16;
    public static final int NETLINK_ROUTE = 0;
    public static final int SOL_NETLINK = 270;

    /** Socket-level options: above rmem_max, which only CAP_NET_ADMIN may exceed. */
    public static final int SO_RCVBUFFORCE = 33;
    /** recvfrom(2) flag: return the datagram's real length even when the buffer was shorter. */
    public static final int MSG_TRUNC = 0x20;

    /** SOL_NETLINK options. */
    public static final int NETLINK_ADD_MEMBERSHIP = 1;
    public static final int NETLINK_DROP_MEMBERSHIP = 2;
    /** Error messages leave out the request's payload (only its header is echoed). */
    public static final int NETLINK_CAP_ACK = 10;
    /** Error messages carry the kernel's text and the offending attribute's offset (NLMSGERR_ATTR_*). */
    public static final int NETLINK_EXT_ACK = 11;
    /** The kernel checks request headers strictly and honours their fields as dump filters. */
    public static final int NETLINK_GET_STRICT_CHK = 12;

    /** Netlink messages and attributes are aligned to 4 bytes. */
    public static final int NLMSG_ALIGNTO = 4;
    public static final int NLA_HDRLEN = 4;
    public static final int NLA_F_NESTED = 0x8000;
    public static final int NLA_F_NET_BYTEORDER = 0x4000;
    public static final int NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xFFFF;

    /** {@code nlmsg_flags}. */
    public static final int NLM_F_REQUEST = 0x01;
    public static final int NLM_F_MULTI = 0x02;
    public static final int NLM_F_ACK = 0x04;
    public static final int NLM_F_ECHO = 0x08;
    /** A dump saw the table change while it ran: its parts may disagree, dump again. */
    public static final int NLM_F_DUMP_INTR = 0x10;
    public static final int NLM_F_ROOT = 0x100;
    public static final int NLM_F_MATCH = 0x200;
    public static final int NLM_F_DUMP = NLM_F_ROOT | NLM_F_MATCH;
    /** New requests; in a notification of a new route, NLM_F_REPLACE says it replaced one. */
    public static final int NLM_F_REPLACE = 0x100;
    public static final int NLM_F_EXCL = 0x200;
    public static final int NLM_F_CREATE = 0x400;
    public static final int NLM_F_APPEND = 0x800;
    /** Flags of an NLMSG_ERROR: the request's payload was left out; extended-ack attributes follow. */
    public static final int NLM_F_CAPPED = 0x100;
    public static final int NLM_F_ACK_TLVS = 0x200;

    /** {@code nlmsg_type} of the control messages. */
    public static final int NLMSG_NOOP = 1;
    public static final int NLMSG_ERROR = 2;
    public static final int NLMSG_DONE = 3;
    public static final int NLMSG_OVERRUN = 4;

    /** Extended-ack attributes of an NLMSG_ERROR. */
    public static final int NLMSGERR_ATTR_MSG = 1;
    public static final int NLMSGERR_ATTR_OFFS = 2;

    /** rtnetlink message types. */
    public static final int RTM_NEWLINK = 16;
    public static final int RTM_DELLINK = 17;
    public static final int RTM_GETLINK = 18;
    public static final int RTM_NEWADDR = 20;
    public static final int RTM_DELADDR = 21;
    public static final int RTM_GETADDR = 22;
    public static final int RTM_NEWROUTE = 24;
    public static final int RTM_DELROUTE = 25;
    public static final int RTM_GETROUTE = 26;
    public static final int RTM_NEWNEIGH = 28;
    public static final int RTM_DELNEIGH = 29;
    public static final int RTM_GETNEIGH = 30;

    /** Multicast groups (numbers for NETLINK_ADD_MEMBERSHIP, not the legacy RTMGRP_* bit masks). */
    public static final int RTNLGRP_LINK = 1;
    public static final int RTNLGRP_NEIGH = 3;
    public static final int RTNLGRP_IPV4_IFADDR = 5;
    public static final int RTNLGRP_IPV4_ROUTE = 7;
    public static final int RTNLGRP_IPV6_IFADDR = 9;
    public static final int RTNLGRP_IPV6_ROUTE = 11;

    /** Link attributes (IFLA_*) and the nested link information (IFLA_INFO_*). */
    public static final int IFLA_ADDRESS = 1;
    public static final int IFLA_IFNAME = 3;
    public static final int IFLA_MTU = 4;
    public static final int IFLA_LINK = 5;
    public static final int IFLA_MASTER = 10;
    public static final int IFLA_OPERSTATE = 16;
    public static final int IFLA_LINKINFO = 18;
    public static final int IFLA_EXT_MASK = 29;
    public static final int IFLA_INFO_KIND = 1;
    /** IFLA_EXT_MASK bit: leave the counters out of link dumps (jvs does not read them there). */
    public static final int RTEXT_FILTER_SKIP_STATS = 1 << 3;

    /** Interface flags ({@code ifi_flags}, linux/if.h). */
    public static final int IFF_UP = 0x1;
    public static final int IFF_BROADCAST = 0x2;
    public static final int IFF_LOOPBACK = 0x8;
    public static final int IFF_POINTOPOINT = 0x10;
    public static final int IFF_RUNNING = 0x40;
    public static final int IFF_NOARP = 0x80;
    public static final int IFF_LOWER_UP = 0x10000;

    /** Address attributes (IFA_*) and flags. */
    public static final int IFA_ADDRESS = 1;
    public static final int IFA_LOCAL = 2;
    public static final int IFA_LABEL = 3;
    public static final int IFA_FLAGS = 8;
    public static final int IFA_F_SECONDARY = 0x01;
    public static final int IFA_F_NODAD = 0x02;
    public static final int IFA_F_OPTIMISTIC = 0x04;
    public static final int IFA_F_DADFAILED = 0x08;
    public static final int IFA_F_DEPRECATED = 0x20;
    /** IPv6 duplicate address detection has not finished: the address cannot be a source yet. */
    public static final int IFA_F_TENTATIVE = 0x40;
    public static final int IFA_F_PERMANENT = 0x80;

    /** Route attributes (RTA_*), metrics (RTAX_*) and flags. */
    public static final int RTA_DST = 1;
    public static final int RTA_SRC = 2;
    public static final int RTA_IIF = 3;
    public static final int RTA_OIF = 4;
    public static final int RTA_GATEWAY = 5;
    public static final int RTA_PRIORITY = 6;
    public static final int RTA_PREFSRC = 7;
    public static final int RTA_METRICS = 8;
    public static final int RTA_MULTIPATH = 9;
    public static final int RTA_TABLE = 15;
    public static final int RTA_MARK = 16;
    /** A gateway of another family than the route's (an IPv4 route via an IPv6 next hop): struct rtvia. */
    public static final int RTA_VIA = 18;
    public static final int RTA_NH_ID = 30;
    public static final int RTAX_MTU = 2;
    /** {@code rtm_flags}. */
    public static final int RTM_F_NOTIFY = 0x100;
    public static final int RTM_F_CLONED = 0x200;
    /** RTM_GETROUTE: report the table the lookup matched in rtm_table / RTA_TABLE. */
    public static final int RTM_F_LOOKUP_TABLE = 0x1000;
    public static final int RTM_F_FIB_MATCH = 0x2000;
    /** {@code rtnh_flags} of a next hop (and of {@code rtm_flags} for a single-path route). */
    public static final int RTNH_F_DEAD = 1;
    public static final int RTNH_F_ONLINK = 4;
    public static final int RTNH_F_LINKDOWN = 16;

    /** Route types ({@code rtm_type}). */
    public static final int RTN_UNSPEC = 0;
    public static final int RTN_UNICAST = 1;
    public static final int RTN_LOCAL = 2;
    public static final int RTN_BROADCAST = 3;
    public static final int RTN_ANYCAST = 4;
    public static final int RTN_MULTICAST = 5;
    public static final int RTN_BLACKHOLE = 6;
    public static final int RTN_UNREACHABLE = 7;
    public static final int RTN_PROHIBIT = 8;
    public static final int RTN_THROW = 9;
    public static final int RTN_NAT = 10;

    /** Route protocols ({@code rtm_protocol}): who installed it. */
    public static final int RTPROT_KERNEL = 2;
    public static final int RTPROT_BOOT = 3;
    public static final int RTPROT_STATIC = 4;

    /** Scopes ({@code rtm_scope}, {@code ifa_scope}). */
    public static final int RT_SCOPE_UNIVERSE = 0;
    public static final int RT_SCOPE_SITE = 200;
    public static final int RT_SCOPE_LINK = 253;
    public static final int RT_SCOPE_HOST = 254;
    public static final int RT_SCOPE_NOWHERE = 255;

    /** Routing tables. Ids above 255 are carried in RTA_TABLE only ({@code rtm_table} says RT_TABLE_COMPAT). */
    public static final int RT_TABLE_UNSPEC = 0;
    public static final int RT_TABLE_COMPAT = 252;
    public static final int RT_TABLE_DEFAULT = 253;
    public static final int RT_TABLE_MAIN = 254;
    public static final int RT_TABLE_LOCAL = 255;

    /** Neighbour attributes (NDA_*). */
    public static final int NDA_DST = 1;
    public static final int NDA_LLADDR = 2;
    public static final int NDA_PROBES = 4;

    /** Neighbour flags ({@code ndm_flags}). */
    public static final int NTF_USE = 0x01;
    public static final int NTF_SELF = 0x02;
    public static final int NTF_MASTER = 0x04;
    public static final int NTF_PROXY = 0x08;
    public static final int NTF_EXT_LEARNED = 0x10;
    public static final int NTF_ROUTER = 0x80;

    /** Neighbour states ({@code ndm_state}, NUD = neighbour unreachability detection), a bit each. */
    public static final int NUD_NONE = 0x00;
    public static final int NUD_INCOMPLETE = 0x01;
    public static final int NUD_REACHABLE = 0x02;
    public static final int NUD_STALE = 0x04;
    public static final int NUD_DELAY = 0x08;
    public static final int NUD_PROBE = 0x10;
    public static final int NUD_FAILED = 0x20;
    public static final int NUD_NOARP = 0x40;
    public static final int NUD_PERMANENT = 0x80;
    /** The states with a link-layer address the kernel itself sends to (its NUD_VALID). */
    public static final int NUD_VALID =
        NUD_PERMANENT | NUD_NOARP | NUD_REACHABLE | NUD_PROBE | NUD_STALE | NUD_DELAY;

    private Rtnetlink()
    {
    }

    /**
     * @return {@code length} rounded up to the 4-byte alignment of netlink messages and attributes.
     */
    public static int align(final int length)
    {
        return (length + NLMSG_ALIGNTO - 1) & ~(NLMSG_ALIGNTO - 1);
    }

    /**
     * @return the message type's name, e.g. "RTM_NEWROUTE", or "type N", for messages.
     */
    public static String typeName(final int type)
    {
        return switch (type)
        {
            case NLMSG_NOOP -> "NLMSG_NOOP";
            case NLMSG_ERROR -> "NLMSG_ERROR";
            case NLMSG_DONE -> "NLMSG_DONE";
            case NLMSG_OVERRUN -> "NLMSG_OVERRUN";
            case RTM_NEWLINK -> "RTM_NEWLINK";
            case RTM_DELLINK -> "RTM_DELLINK";
            case RTM_GETLINK -> "RTM_GETLINK";
            case RTM_NEWADDR -> "RTM_NEWADDR";
            case RTM_DELADDR -> "RTM_DELADDR";
            case RTM_GETADDR -> "RTM_GETADDR";
            case RTM_NEWROUTE -> "RTM_NEWROUTE";
            case RTM_DELROUTE -> "RTM_DELROUTE";
            case RTM_GETROUTE -> "RTM_GETROUTE";
            case RTM_NEWNEIGH -> "RTM_NEWNEIGH";
            case RTM_DELNEIGH -> "RTM_DELNEIGH";
            case RTM_GETNEIGH -> "RTM_GETNEIGH";
            default -> "type " + type;
        };
    }

    /**
     * @return the neighbour state's name as {@code ip neigh} prints it, e.g. "REACHABLE", or the bits in hex.
     */
    public static String nudName(final int state)
    {
        return switch (state)
        {
            case NUD_NONE -> "NONE";
            case NUD_INCOMPLETE -> "INCOMPLETE";
            case NUD_REACHABLE -> "REACHABLE";
            case NUD_STALE -> "STALE";
            case NUD_DELAY -> "DELAY";
            case NUD_PROBE -> "PROBE";
            case NUD_FAILED -> "FAILED";
            case NUD_NOARP -> "NOARP";
            case NUD_PERMANENT -> "PERMANENT";
            default -> "0x" + Integer.toHexString(state);
        };
    }
}
