package io.jvs.core.pcap;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;

/**
 * The Ethernet frame a captured packet of another link layer stands for: where its network-layer packet starts,
 * which EtherType it gets, and, for Linux cooked captures, who sent it. The pipeline parses Ethernet frames only, so
 * both readers of captures (replay's memory-mapped reader and the pcap port's libpcap) put a 14-byte Ethernet header
 * in place of the link-layer header, through this one decoder.
 * <p>
 * The link types with an Ethernet form ({@link LinkType} values, as in capture files):
 * <ul>
 * <li>NULL (BSD loopback): a 4-byte address family in the capturing host's byte order, which the file does not
 * record, so it is read the way round that names a family; AF_INET is IPv4, and any of the systems' AF_INET6
 * values (10 on Linux, 24 on NetBSD and OpenBSD, 28 on FreeBSD, 30 on macOS) IPv6.</li>
 * <li>LOOP (OpenBSD loopback): the same, in network byte order.</li>
 * <li>RAW: IPv4 or IPv6 by the version nibble; IPV4 and IPV6: that protocol.</li>
 * <li>LINUX_SLL and LINUX_SLL2 (cooked captures, such as {@code tcpdump -i any}): the protocol field, when it is an
 * EtherType (0x0600 and up); the packet type says whether the capturing host sent the packet itself
 * (PACKET_OUTGOING), and the address field holds the sender's MAC when the hardware type is Ethernet.</li>
 * </ul>
 * A packet whose header names no such family, version or EtherType, or that is shorter than its link-layer
 * header, has no Ethernet form ({@link #NONE}); neither has any packet of another link type (802.11, PPP, ...),
 * which is refused, not guessed at.
 */
public final class EthernetForm
{
    /** {@link #decode} result: the packet has no Ethernet form. */
    public static final long NONE = -1;
    /** {@link #decode} result: a cooked capture says the capturing host sent this packet itself. */
    public static final long OUTGOING = -2;
    /** {@link #senderMac} result: the link-layer header names no Ethernet sender. */
    public static final long NO_MAC = -1;
    /** The longest link-layer header decoded (LINUX_SLL2's): a decoder needs at most this many bytes of a packet. */
    public static final int MAX_LINK_HEADER = 20;

    private static final int NULL_LENGTH = 4;
    private static final int SLL_LENGTH = 16;
    private static final int SLL2_LENGTH = 20;
    /** PACKET_OUTGOING, the packet type of a packet the capturing host sent (linux/if_packet.h). */
    private static final int PACKET_OUTGOING = 4;
    private static final int ARPHRD_ETHER = 1;
    private static final int MIN_ETHERTYPE = 0x0600;
    private static final int AF_INET = 2;

    private EthernetForm()
    {
    }

    /**
     * @param linkType a {@link LinkType} value.
     * @return whether packets of the link type have an Ethernet form (Ethernet itself included).
     */
    public static boolean exists(final int linkType)
    {
        return switch (linkType)
        {
            case LinkType.ETHERNET, LinkType.NULL, LinkType.LOOP, LinkType.RAW, LinkType.IPV4, LinkType.IPV6,
                 LinkType.LINUX_SLL, LinkType.LINUX_SLL2 -> true;
            default -> false;
        };
    }

    /**
     * Where the network-layer packet of a captured packet starts and which EtherType it gets.
     *
     * @param linkType a {@link LinkType} value other than {@link LinkType#ETHERNET}.
     * @param packet   the packet's first byte.
     * @param captured how many bytes were captured.
     * @return {@code etherType << 32 | linkHeaderLength}, or {@link #NONE}, or {@link #OUTGOING}.
     */
    public static long decode(final int linkType, final long packet, final int captured)
    {
        return switch (linkType)
        {
            case LinkType.NULL -> captured < NULL_LENGTH ? NONE : fromFamilyEitherOrder(Frames.i32(packet));
            case LinkType.LOOP -> captured < NULL_LENGTH ? NONE : fromFamily(Frames.i32(packet));
            case LinkType.RAW -> captured < 1 ? NONE : fromVersion(Frames.u8(packet));
            case LinkType.IPV4 -> (long)EthernetHeader.TYPE_IPV4 << 32;
            case LinkType.IPV6 -> (long)EthernetHeader.TYPE_IPV6 << 32;
            case LinkType.LINUX_SLL -> captured < SLL_LENGTH ? NONE : Frames.u16(packet) == PACKET_OUTGOING ?
                OUTGOING : fromProtocol(Frames.u16(packet + 14), SLL_LENGTH);
            case LinkType.LINUX_SLL2 -> captured < SLL2_LENGTH ? NONE : Frames.u8(packet + 10) == PACKET_OUTGOING ?
                OUTGOING : fromProtocol(Frames.u16(packet), SLL2_LENGTH);
            default -> NONE;
        };
    }

    /**
     * @param decoded a {@link #decode} result other than {@link #NONE} and {@link #OUTGOING}.
     * @return the EtherType the frame gets.
     */
    public static int etherType(final long decoded)
    {
        return (int)(decoded >>> 32);
    }

    /**
     * @param decoded a {@link #decode} result other than {@link #NONE} and {@link #OUTGOING}.
     * @return the length of the link-layer header the Ethernet header replaces.
     */
    public static int linkHeaderLength(final long decoded)
    {
        return (int)decoded;
    }

    /**
     * @return the sender's MAC address (48 bits) from a cooked capture's header whose hardware type is Ethernet,
     * or {@link #NO_MAC}.
     */
    public static long senderMac(final int linkType, final long packet, final int captured)
    {
        if (linkType == LinkType.LINUX_SLL && captured >= SLL_LENGTH && Frames.u16(packet + 2) == ARPHRD_ETHER &&
            Frames.u16(packet + 4) == 6)
        {
            return mac(packet + 6);
        }
        if (linkType == LinkType.LINUX_SLL2 && captured >= SLL2_LENGTH && Frames.u16(packet + 8) == ARPHRD_ETHER &&
            Frames.u8(packet + 11) == 6)
        {
            return mac(packet + 12);
        }
        return NO_MAC;
    }

    /**
     * Writes the Ethernet frame: a header with the given addresses and the decoded EtherType, then the network-layer
     * packet.
     *
     * @param frame where the frame goes: room for {@code captured - linkHeaderLength + 14} bytes.
     * @return the frame's length.
     */
    public static int write(final long packet, final int captured, final long decoded, final long destinationMac,
        final long sourceMac, final long frame)
    {
        final int header = linkHeaderLength(decoded);
        EthernetHeader.destination(frame, destinationMac);
        EthernetHeader.source(frame, sourceMac);
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET, etherType(decoded));
        Frames.copy(packet + header, frame + EthernetHeader.LENGTH, captured - header);
        return EthernetHeader.LENGTH + captured - header;
    }

    private static long fromFamilyEitherOrder(final int family)
    {
        final long asRead = fromFamily(family);
        return asRead != NONE ? asRead : fromFamily(Integer.reverseBytes(family));
    }

    /** @param family as read in network byte order. */
    private static long fromFamily(final int family)
    {
        if (family == AF_INET)
        {
            return (long)EthernetHeader.TYPE_IPV4 << 32 | NULL_LENGTH;
        }
        if (family == 10 || family == 24 || family == 28 || family == 30)
        {
            return (long)EthernetHeader.TYPE_IPV6 << 32 | NULL_LENGTH;
        }
        return NONE;
    }

    private static long fromVersion(final int first)
    {
        return switch (first >>> 4)
        {
            case 4 -> (long)EthernetHeader.TYPE_IPV4 << 32;
            case 6 -> (long)EthernetHeader.TYPE_IPV6 << 32;
            default -> NONE;
        };
    }

    private static long fromProtocol(final int protocol, final int linkHeader)
    {
        return protocol < MIN_ETHERTYPE ? NONE : (long)protocol << 32 | linkHeader;
    }

    private static long mac(final long address)
    {
        return (long)Frames.u16(address) << 32 | (Frames.i32(address + 2) & 0xFFFF_FFFFL);
    }
}
