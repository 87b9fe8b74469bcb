package io.jvs.core.packet;

/**
 * Why a packet was dropped. Every drop is counted under one of these; the labels are what counters,
 * reports and {@code tools/jvs stat} show, and they never change once released.
 */
public enum DropReason
{
    /** A header does not fit in the bytes captured or received. */
    TRUNCATED("truncated"),
    /** IPv4 IHL below 5, or options running past the packet. */
    BAD_IHL("bad-ihl"),
    /** The IP version field does not match the EtherType. */
    BAD_IP_VERSION("bad-ip-version"),
    /** The IP length fields disagree with the header or the frame. */
    BAD_IP_LEN("bad-ip-len"),
    /** IPv4 options while the configuration refuses them. */
    IP_OPTIONS("ip-options"),
    /** An IPv6 extension header that is malformed, or too many of them. */
    BAD_EXTENSION_HEADER("bad-ext-header"),
    /** A TCP, UDP, SCTP or ICMP header that is malformed (data offset, UDP length). */
    BAD_L4_HEADER("bad-l4-header"),
    /** A fragment while fragments are refused, or a first fragment too short to hold the ports. */
    FRAGMENT("fragment"),
    /** A later fragment whose first fragment has not been seen. */
    FRAGMENT_ORPHAN("fragment-orphan"),
    /** TTL or hop limit would reach 0; answered with time-exceeded. */
    TTL_EXPIRED("ttl-expired"),
    /** A new connection that no real server can take; answered with port-unreachable (D10). */
    NO_SERVER("no-server"),
    /** The connection table is full and nothing could be reclaimed. */
    CONNECTION_TABLE_FULL("conn-table-full"),
    /** A packet of a connection whose real server was removed (expire_nodest_conn off). */
    SERVER_REMOVED("server-removed"),
    /** No MAC address is known for the next hop. */
    NO_NEIGHBOUR("no-neighbour"),
    /** Too big for the egress MTU with DF set (answered with frag-needed / packet-too-big), or without DF. */
    MTU_EXCEEDED("mtu-exceeded"),
    /** Matched no virtual service, with the policy set to drop instead of passing to the host. */
    NO_SERVICE("no-service"),
    /** An ICMP error about no known connection, addressed to a virtual service. */
    ICMP_UNMATCHED("icmp-unmatched"),
    /** Not enough room in the frame buffer to encapsulate or answer. */
    NO_ROOM("no-room");

    private static final DropReason[] VALUES = values();

    private final String label;

    DropReason(final String label)
    {
        this.label = label;
    }

    /**
     * @return the stable name used in counters and reports, e.g. "truncated".
     */
    public String label()
    {
        return label;
    }

    /**
     * @param id a reason's ordinal.
     * @return the reason.
     */
    public static DropReason of(final int id)
    {
        return VALUES[id];
    }

    /**
     * @return how many reasons there are, for sizing counter arrays.
     */
    public static int count()
    {
        return VALUES.length;
    }
}
