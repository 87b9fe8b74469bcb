package io.jvs.core.stats;

import java.util.List;

/**
 * Layout of one service's or one real server's traffic counters in a worker's {@link TrafficStats} buffer: the
 * five numbers IPVS keeps per service and per destination ({@code struct ip_vs_kstats}: conns, inpkts, outpkts,
 * inbytes, outbytes), which {@code ipvsadm --stats} prints and the rate estimator samples.
 * <p>
 * Each slot takes a whole cache line, so one packet touches one line of its server's counters and one of its
 * service's. The field ids are stable: a counters file or a control client may name a field by its id.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  connections (64 bits)                        |
 *  +---------------------------------------------------------------+
 *  |         packets in: client to server (64 bits)                |
 *  +---------------------------------------------------------------+
 *  |         packets out: server to client (64 bits)               |
 *  +---------------------------------------------------------------+
 *  |          bytes in: IP datagram lengths (64 bits)              |
 *  +---------------------------------------------------------------+
 *  |          bytes out: IP datagram lengths (64 bits)             |
 *  +---------------------------------------------------------------+
 *  |                 padding to 64 bytes                          ...
 * </pre>
 * Bytes are IP datagram lengths (header and payload, without the Ethernet header), as IPVS counts
 * {@code skb->len} at its netfilter hooks, so the figures compare with a kernel director's.
 */
public final class TrafficStatsDescriptor
{
    /** Field id and offset index of the connection count. */
    public static final int CONNECTIONS = 0;
    /** Field id of the packets from clients (towards the real servers). */
    public static final int IN_PACKETS = 1;
    /** Field id of the packets from the real servers back to clients (NAT replies). */
    public static final int OUT_PACKETS = 2;
    /** Field id of the bytes from clients. */
    public static final int IN_BYTES = 3;
    /** Field id of the bytes back to clients. */
    public static final int OUT_BYTES = 4;
    /** How many fields a slot has. */
    public static final int FIELDS = 5;
    /** Bytes per slot: a cache line. */
    public static final int SLOT_LENGTH = 64;

    private static final List<String> NAMES = List.of("conns", "inpkts", "outpkts", "inbytes", "outbytes");

    private TrafficStatsDescriptor()
    {
    }

    /**
     * @param field a field id.
     * @return the field's byte offset within a slot.
     */
    public static int offset(final int field)
    {
        return field * Long.BYTES;
    }

    /**
     * @param field a field id.
     * @return its name as ipvsadm's --stats header and IPVS's netlink attributes spell it (conns, inpkts, …).
     */
    public static String name(final int field)
    {
        return NAMES.get(field);
    }
}
