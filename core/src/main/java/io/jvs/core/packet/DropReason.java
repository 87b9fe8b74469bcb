package io.jvs.core.packet;

/**
 * Why a packet was dropped. Every drop is counted under one of these; the labels are what counters,
 * reports and {@code tools/jvs stat} show, and they never change once released. Each reason also has a stable
 * number, its {@link #id}: a verdict carries it, and a counters buffer keeps the reason's count at a place derived
 * from it ({@code WorkerCountersDescriptor}). It is written out rather than taken from the declaration order, so
 * a reason added or moved in this list does not move another's count; a new reason takes the next free number.
 */
public enum DropReason
{
    /** A header does not fit in the bytes captured or received. */
    TRUNCATED(0, "truncated"),
    /** IPv4 IHL below 5, or options running past the packet. */
    BAD_IHL(1, "bad-ihl"),
    /** The IP version field does not match the EtherType. */
    BAD_IP_VERSION(2, "bad-ip-version"),
    /** The IP length fields disagree with the header or the frame. */
    BAD_IP_LEN(3, "bad-ip-len"),
    /** IPv4 options while the configuration refuses them. */
    IP_OPTIONS(4, "ip-options"),
    /** An IPv6 extension header that is malformed, or too many of them. */
    BAD_EXTENSION_HEADER(5, "bad-ext-header"),
    /** A TCP, UDP, SCTP or ICMP header that is malformed (data offset, UDP length). */
    BAD_L4_HEADER(6, "bad-l4-header"),
    /** A fragment while fragments are refused, or a first fragment too short to hold the ports. */
    FRAGMENT(7, "fragment"),
    /** A later fragment whose first fragment has not been seen. */
    FRAGMENT_ORPHAN(8, "fragment-orphan"),
    /** TTL or hop limit would reach 0; answered with time-exceeded. */
    TTL_EXPIRED(9, "ttl-expired"),
    /** A new connection that no real server can take; answered with port-unreachable, as {@code ip_vs_leave}. */
    NO_SERVER(10, "no-server"),
    /** The connection table is full and nothing could be reclaimed. */
    CONNECTION_TABLE_FULL(11, "conn-table-full"),
    /** A packet of a connection whose real server was removed (expire_nodest_conn off). */
    SERVER_REMOVED(12, "server-removed"),
    /** No MAC address is known for the next hop. */
    NO_NEIGHBOUR(13, "no-neighbour"),
    /** Too big for the egress MTU with DF set (answered with frag-needed / packet-too-big), or without DF. */
    MTU_EXCEEDED(14, "mtu-exceeded"),
    /** Matched no virtual service, with the policy set to drop instead of passing to the host. */
    NO_SERVICE(15, "no-service"),
    /** An ICMP error about no known connection, addressed to a virtual service. */
    ICMP_UNMATCHED(16, "icmp-unmatched"),
    /** Not enough room in the frame buffer to encapsulate or answer. */
    NO_ROOM(17, "no-room");

    private static final DropReason[] BY_ID = byId();

    private final int id;
    private final String label;

    DropReason(final int id, final String label)
    {
        this.id = id;
        this.label = label;
    }

    private static DropReason[] byId()
    {
        int highest = -1;
        for (final DropReason reason : values())
        {
            highest = Math.max(highest, reason.id);
        }
        final DropReason[] byId = new DropReason[highest + 1];
        for (final DropReason reason : values())
        {
            if (byId[reason.id] != null)
            {
                throw new IllegalStateException("two drop reasons with id " + reason.id);
            }
            byId[reason.id] = reason;
        }
        return byId;
    }

    /**
     * @return the reason's stable number, 0 to {@link #count()} - 1.
     */
    public int id()
    {
        return id;
    }

    /**
     * @return the stable name used in counters and reports, e.g. "truncated".
     */
    public String label()
    {
        return label;
    }

    /**
     * @param id a reason's {@link #id}.
     * @return the reason, or null for a number no reason has.
     */
    public static DropReason of(final int id)
    {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    /**
     * @return one more than the highest id, for sizing counter arrays indexed by id.
     */
    public static int count()
    {
        return BY_ID.length;
    }
}
