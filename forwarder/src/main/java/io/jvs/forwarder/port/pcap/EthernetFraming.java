package io.jvs.forwarder.port.pcap;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;

/**
 * What a pcap port does with packets whose link layer is not Ethernet: the pipeline parses Ethernet frames
 * only. Either the port {@linkplain #refuse() refuses} such a capture when it opens it (the default), or it
 * {@linkplain #synthesized synthesizes} an Ethernet header for each packet: the link-layer header is
 * removed, and a 14-byte header with the given MAC addresses and the packet's EtherType is put in its place.
 * <p>
 * The link types with an Ethernet form, as libpcap reports them (its DLT_ values, not the file's LINKTYPE_
 * values):
 * <ul>
 * <li>NULL (BSD loopback): a 4-byte address family in the capturing host's byte order; AF_INET becomes
 * IPv4, and any of the systems' AF_INET6 values (10, 24, 28, 30) IPv6.</li>
 * <li>LOOP (OpenBSD loopback): the same, in network byte order.</li>
 * <li>RAW: IPv4 or IPv6 by the version nibble; IPV4 and IPV6: that protocol.</li>
 * <li>LINUX_SLL and LINUX_SLL2 (Linux "cooked" captures, e.g. of "any"): the protocol field, when it is an
 * EtherType (0x0600 and up).</li>
 * </ul>
 * A packet with no Ethernet form (another address family, IP version or protocol) is skipped and counted in
 * {@link PcapCounters#rxNotEthernet}. Any other link type is refused even when synthesizing.
 */
public final class EthernetFraming
{
    public static final int DLT_NULL = 0;
    public static final int DLT_EN10MB = 1;
    public static final int DLT_RAW = 12;
    /** DLT_RAW as OpenBSD numbers it. */
    public static final int DLT_RAW_OPENBSD = 14;
    /** LINKTYPE_RAW: libpcap reports it as DLT_RAW, but the number may still come through. */
    public static final int LINKTYPE_RAW = 101;
    public static final int DLT_LOOP = 108;
    public static final int DLT_LINUX_SLL = 113;
    public static final int DLT_IPV4 = 228;
    public static final int DLT_IPV6 = 229;
    public static final int DLT_LINUX_SLL2 = 276;

    /** What {@link #networkStart} returns for a packet with no Ethernet form. */
    static final long NO_ETHERNET_FORM = -1;

    private static final int AF_INET = 2;
    private static final int SLL_HEADER_LENGTH = 16;
    private static final int SLL2_HEADER_LENGTH = 20;
    private static final int MIN_ETHERTYPE = 0x0600;
    private static final EthernetFraming REFUSE = new EthernetFraming(false, 0, 0);

    private final boolean synthesizes;
    private final long destinationMac;
    private final long sourceMac;

    private EthernetFraming(final boolean synthesizes, final long destinationMac, final long sourceMac)
    {
        this.synthesizes = synthesizes;
        this.destinationMac = destinationMac;
        this.sourceMac = sourceMac;
    }

    /**
     * @return the default: a capture that is not Ethernet is refused at open.
     */
    public static EthernetFraming refuse()
    {
        return REFUSE;
    }

    /**
     * @param destinationMac the destination MAC address of every synthesized header (48 bits).
     * @param sourceMac      its source MAC address.
     * @return framing that gives packets of the supported link types an Ethernet header.
     */
    public static EthernetFraming synthesized(final long destinationMac, final long sourceMac)
    {
        return new EthernetFraming(true, destinationMac, sourceMac);
    }

    public boolean synthesizes()
    {
        return synthesizes;
    }

    /**
     * @return true if packets of the link type have an Ethernet form.
     */
    public static boolean hasEthernetForm(final int linkType)
    {
        return switch (linkType)
        {
            case DLT_EN10MB, DLT_NULL, DLT_LOOP, DLT_RAW, DLT_RAW_OPENBSD, LINKTYPE_RAW, DLT_IPV4, DLT_IPV6,
                 DLT_LINUX_SLL, DLT_LINUX_SLL2 -> true;
            default -> false;
        };
    }

    /**
     * Finds where the network-layer packet starts and which EtherType it gets.
     *
     * @param linkType a link type other than Ethernet with an Ethernet form.
     * @param packet   the captured bytes.
     * @param length   how many of them.
     * @return {@code etherType << 32 | offset}, or {@link #NO_ETHERNET_FORM}.
     */
    static long networkStart(final int linkType, final byte[] packet, final int length)
    {
        return switch (linkType)
        {
            // The capturing host's byte order is not recorded: the family reads right one way round only.
            case DLT_NULL -> length < 4 ? NO_ETHERNET_FORM : fromFamilyEitherOrder(littleEndian32(packet));
            case DLT_LOOP -> length < 4 ? NO_ETHERNET_FORM : fromFamily(bigEndian32(packet), 4);
            case DLT_RAW, DLT_RAW_OPENBSD, LINKTYPE_RAW -> length < 1 ? NO_ETHERNET_FORM : fromVersion(packet[0]);
            case DLT_IPV4 -> (long)EthernetHeader.TYPE_IPV4 << 32;
            case DLT_IPV6 -> (long)EthernetHeader.TYPE_IPV6 << 32;
            case DLT_LINUX_SLL -> length < SLL_HEADER_LENGTH
                ? NO_ETHERNET_FORM : fromProtocol(bigEndian16(packet, 14), SLL_HEADER_LENGTH);
            case DLT_LINUX_SLL2 -> length < SLL2_HEADER_LENGTH
                ? NO_ETHERNET_FORM : fromProtocol(bigEndian16(packet, 0), SLL2_HEADER_LENGTH);
            default -> NO_ETHERNET_FORM;
        };
    }

    /**
     * Writes the synthesized Ethernet header.
     *
     * @param frame     where the frame starts.
     * @param etherType its EtherType.
     */
    void writeHeader(final long frame, final int etherType)
    {
        EthernetHeader.destination(frame, destinationMac);
        EthernetHeader.source(frame, sourceMac);
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET, etherType);
    }

    private static long fromFamilyEitherOrder(final int family)
    {
        final long asRead = fromFamily(family, 4);
        return asRead != NO_ETHERNET_FORM ? asRead : fromFamily(Integer.reverseBytes(family), 4);
    }

    private static long fromFamily(final int family, final int offset)
    {
        if (family == AF_INET)
        {
            return (long)EthernetHeader.TYPE_IPV4 << 32 | offset;
        }
        // AF_INET6 is 10 on Linux, 24 on NetBSD and OpenBSD, 28 on FreeBSD, 30 on macOS.
        if (family == 10 || family == 24 || family == 28 || family == 30)
        {
            return (long)EthernetHeader.TYPE_IPV6 << 32 | offset;
        }
        return NO_ETHERNET_FORM;
    }

    private static long fromVersion(final byte first)
    {
        return switch ((first >> 4) & 0xF)
        {
            case 4 -> (long)EthernetHeader.TYPE_IPV4 << 32;
            case 6 -> (long)EthernetHeader.TYPE_IPV6 << 32;
            default -> NO_ETHERNET_FORM;
        };
    }

    private static long fromProtocol(final int protocol, final int offset)
    {
        return protocol < MIN_ETHERTYPE ? NO_ETHERNET_FORM : (long)protocol << 32 | offset;
    }

    private static int littleEndian32(final byte[] bytes)
    {
        return (bytes[0] & 0xFF) | (bytes[1] & 0xFF) << 8 | (bytes[2] & 0xFF) << 16 | (bytes[3] & 0xFF) << 24;
    }

    private static int bigEndian32(final byte[] bytes)
    {
        return Integer.reverseBytes(littleEndian32(bytes));
    }

    private static int bigEndian16(final byte[] bytes, final int offset)
    {
        return (bytes[offset] & 0xFF) << 8 | (bytes[offset + 1] & 0xFF);
    }
}
