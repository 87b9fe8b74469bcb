package io.jvs.core.packet;

/**
 * What the parser learned about each frame of a burst, one array per field (struct of arrays), so a
 * burst's packets can be processed stage by stage without an object per packet.
 * <p>
 * Offsets are from the frame's first byte. Addresses are held as two longs in network order, an IPv4
 * address in the low 32 bits of the low word, as in {@link io.jvs.core.net.FlowTuple}. For ICMP the
 * source port holds the type and the destination port the code.
 */
public final class ParsedBurst
{
    /** The frame is not IP (and not ARP): the host decides what it is. */
    public static final int KIND_OTHER = 0;
    public static final int KIND_IPV4 = 4;
    public static final int KIND_IPV6 = 6;
    public static final int KIND_ARP = 8;

    public static final int FRAGMENT_NONE = 0;
    /** The first fragment: offset 0, more to come; it carries the upper-layer header. */
    public static final int FRAGMENT_FIRST = 1;
    /** A later fragment: no upper-layer header. */
    public static final int FRAGMENT_LATER = 2;

    public final int capacity;
    public final int[] kind;
    public final int[] l3Offset;
    public final int[] l4Offset;
    /** Bytes of the upper-layer segment present in this packet (IP payload after extension headers). */
    public final int[] l4Length;
    /** The end of the IP packet, from the frame start (frames may carry Ethernet padding after it). */
    public final int[] ipEnd;
    public final int[] protocol;
    public final long[] sourceHigh;
    public final long[] sourceLow;
    public final long[] destinationHigh;
    public final long[] destinationLow;
    public final int[] sourcePort;
    public final int[] destinationPort;
    public final int[] tcpFlags;
    public final int[] ttl;
    public final int[] fragment;
    public final int[] fragmentId;
    /** True when the upper-layer ports are present (TCP, UDP, SCTP, not a later fragment). */
    public final boolean[] hasPorts;

    /**
     * @param capacity the largest burst.
     */
    public ParsedBurst(final int capacity)
    {
        this.capacity = capacity;
        kind = new int[capacity];
        l3Offset = new int[capacity];
        l4Offset = new int[capacity];
        l4Length = new int[capacity];
        ipEnd = new int[capacity];
        protocol = new int[capacity];
        sourceHigh = new long[capacity];
        sourceLow = new long[capacity];
        destinationHigh = new long[capacity];
        destinationLow = new long[capacity];
        sourcePort = new int[capacity];
        destinationPort = new int[capacity];
        tcpFlags = new int[capacity];
        ttl = new int[capacity];
        fragment = new int[capacity];
        fragmentId = new int[capacity];
        hasPorts = new boolean[capacity];
    }

    public boolean isIpv6(final int i)
    {
        return kind[i] == KIND_IPV6;
    }

    /**
     * @return the IPv4 source address (IPv4 packets only).
     */
    public int sourceV4(final int i)
    {
        return (int)sourceLow[i];
    }

    /**
     * @return the IPv4 destination address (IPv4 packets only).
     */
    public int destinationV4(final int i)
    {
        return (int)destinationLow[i];
    }
}
