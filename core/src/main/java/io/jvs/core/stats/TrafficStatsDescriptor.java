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
 *  |               frames: jvs's own count (64 bits)               |
 *  +---------------------------------------------------------------+
 *  |          frame bytes: Ethernet frame lengths (64 bits)        |
 *  +---------------------------------------------------------------+
 *  |                 padding to 64 bytes                          ...
 * </pre>
 * Bytes are IP datagram lengths (header and payload, without the Ethernet header), as IPVS counts
 * {@code skb->len} at its netfilter hooks, so the figures compare with a kernel director's. A packet is counted
 * there once it has found or made its connection, before it is sent on, as ip_vs_in_stats and ip_vs_out_stats
 * count it: one that its transmit then drops (no next hop, a client's packet whose TTL runs out or that does not
 * fit the tunnel) is in them all the same.
 * <p>
 * The last two are jvs's own, which the replay report and the daemon's status give: whole frames as they left.
 * For a service, its clients' frames forwarded towards its servers, later fragments not included; for a real
 * server, the frames of its connections both ways (a reply counted even when it could not be sent on). They share
 * the line with IPVS's five, so a packet's counts stay one line per slot.
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
    /** How many IPVS fields a slot has, ids 0 to 4: what ipvsadm, the ledger and the rate estimator carry. */
    public static final int FIELDS = 5;
    /** Field id of jvs's frame count (see above). */
    public static final int FRAMES = 5;
    /** Field id of the Ethernet bytes of those frames. */
    public static final int FRAME_BYTES = 6;
    /** Bytes per slot: a cache line. */
    public static final int SLOT_LENGTH = 64;

    private static final List<String> NAMES = List.of("conns", "inpkts", "outpkts", "inbytes", "outbytes", "frames",
        "framebytes");

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
     * @return its name as ipvsadm's --stats header and IPVS's netlink attributes spell it (conns, inpkts, …), and
     * "frames" and "framebytes" for jvs's two.
     */
    public static String name(final int field)
    {
        return NAMES.get(field);
    }
}
