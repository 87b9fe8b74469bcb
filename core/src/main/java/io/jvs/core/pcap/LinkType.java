package io.jvs.core.pcap;

/**
 * Link-layer header types (tcpdump.org's LINKTYPE_ values) that jvs names; a capture may carry any
 * other value, which the reader passes through as a plain number.
 * <p>
 * These are the values found in capture files, not the platform's DLT_ values: {@link #RAW} is 101 in
 * a file even where the local {@code DLT_RAW} is 12 or 14.
 */
public final class LinkType
{
    /** BSD loopback: a 4-byte address family in the byte order of the host that captured it. */
    public static final int NULL = 0;
    /** IEEE 802.3 Ethernet (10, 100, 1000 Mb/s and up). */
    public static final int ETHERNET = 1;
    /** Raw IP: the packet starts with an IPv4 or IPv6 header, told apart by its version nibble. */
    public static final int RAW = 101;
    /** OpenBSD loopback: a 4-byte address family in network byte order. */
    public static final int LOOP = 108;
    /** Linux "cooked" capture, version 1 (16-byte pseudo-header). */
    public static final int LINUX_SLL = 113;
    /** Raw IPv4 only. */
    public static final int IPV4 = 228;
    /** Raw IPv6 only. */
    public static final int IPV6 = 229;
    /** Linux "cooked" capture, version 2 (20-byte pseudo-header). */
    public static final int LINUX_SLL2 = 276;

    private LinkType()
    {
    }

    /** libpcap's DLT_RAW on most systems: the one link type whose DLT_ value is not its LINKTYPE_ value. */
    private static final int DLT_RAW = 12;
    /** DLT_RAW as OpenBSD numbers it. */
    private static final int DLT_RAW_OPENBSD = 14;

    /**
     * @param dlt a link type as libpcap reports it for a handle (a DLT_ value).
     * @return the same as a capture file numbers it (a LINKTYPE_ value): they differ only for raw IP.
     */
    public static int ofDlt(final int dlt)
    {
        return dlt == DLT_RAW || dlt == DLT_RAW_OPENBSD ? RAW : dlt;
    }

    /**
     * @param linkType a capture file's LINKTYPE_ value.
     * @return the DLT_ value libpcap's compiler and dead handles take for it (Linux's numbering).
     */
    public static int toDlt(final int linkType)
    {
        return linkType == RAW ? DLT_RAW : linkType;
    }

    /**
     * @param linkType a link-layer header type.
     * @return its name for the named types ({@code "ETHERNET"}), else the number ({@code "127"}).
     */
    public static String name(final int linkType)
    {
        return switch (linkType)
        {
            case NULL -> "NULL";
            case ETHERNET -> "ETHERNET";
            case RAW -> "RAW";
            case LOOP -> "LOOP";
            case LINUX_SLL -> "LINUX_SLL";
            case IPV4 -> "IPV4";
            case IPV6 -> "IPV6";
            case LINUX_SLL2 -> "LINUX_SLL2";
            default -> Integer.toString(linkType);
        };
    }
}
