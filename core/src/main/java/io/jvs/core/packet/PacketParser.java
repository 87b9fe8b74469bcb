package io.jvs.core.packet;

import static io.jvs.core.packet.L4Headers.*;
import static io.jvs.core.packet.ParsedBurst.*;

/**
 * Parses a frame's headers into a {@link ParsedBurst} slot: Ethernet and up to three VLAN tags, ARP,
 * IPv4 (options, fragments), IPv6 (hop-by-hop, routing, destination options and fragment headers
 * skipped), then the TCP, UDP, SCTP or ICMP header.
 * <p>
 * Each header's length is checked once against what is left of the frame before any field of it is
 * read; the IP length fields are checked against the header and the frame. A frame that fails gets a
 * drop verdict naming the reason; nothing here throws or allocates.
 */
public final class PacketParser
{
    /** More extension headers than this in one IPv6 packet is treated as an attack, not a packet. */
    public static final int MAX_EXTENSION_HEADERS = 8;

    private final boolean allowIpOptions;
    private final boolean allowFragments;

    /**
     * @param allowIpOptions forward IPv4 packets with options (otherwise drop as ip-options).
     * @param allowFragments handle fragments (otherwise drop as fragment).
     */
    public PacketParser(final boolean allowIpOptions, final boolean allowFragments)
    {
        this.allowIpOptions = allowIpOptions;
        this.allowFragments = allowFragments;
    }

    /**
     * @param frame  the frame's address.
     * @param length its length.
     * @param out    where to put the fields.
     * @param i      the slot.
     * @return 0 for an IP packet to process further, else the verdict (PASS for ARP and non-IP frames,
     *         DROP for malformed ones).
     */
    public int parse(final long frame, final int length, final ParsedBurst out, final int i)
    {
        out.kind(i, KIND_OTHER);
        out.hasPorts(i, false);
        out.fragment(i, FRAGMENT_NONE);
        out.tcpFlags(i, 0);
        out.sourcePort(i, 0);
        out.destinationPort(i, 0);
        if (length < EthernetHeader.LENGTH)
        {
            return Verdict.drop(DropReason.TRUNCATED);
        }
        int offset = EthernetHeader.TYPE_OFFSET;
        int type = Frames.u16(frame + offset);
        for (int tags = 0; EthernetHeader.isVlanTag(type); tags++)
        {
            if (tags == EthernetHeader.MAX_TAGS)
            {
                return Verdict.pass();
            }
            offset += EthernetHeader.TAG_LENGTH;
            if (offset + 2 > length)
            {
                return Verdict.drop(DropReason.TRUNCATED);
            }
            type = Frames.u16(frame + offset);
        }
        offset += 2;
        out.l3Offset(i, offset);
        return switch (type)
        {
            case EthernetHeader.TYPE_IPV4 -> parseIpv4(frame, length, offset, out, i);
            case EthernetHeader.TYPE_IPV6 -> parseIpv6(frame, length, offset, out, i);
            case EthernetHeader.TYPE_ARP ->
            {
                out.kind(i, KIND_ARP);
                yield offset + ArpHeader.LENGTH > length ? Verdict.drop(DropReason.TRUNCATED) : Verdict.pass();
            }
            default -> Verdict.pass();
        };
    }

    private int parseIpv4(final long frame, final int length, final int l3, final ParsedBurst out, final int i)
    {
        if (l3 + Ipv4Header.MIN_LENGTH > length)
        {
            return Verdict.drop(DropReason.TRUNCATED);
        }
        final long header = frame + l3;
        final int first = Frames.u8(header);
        final int headerLength = (first & 0x0F) << 2;
        final int totalLength = Ipv4Header.totalLength(header);
        // One test accepts a well-formed header; the refusal, rare, is worked out apart (the same order of tests).
        if ((first & 0xF0) != 0x40 || headerLength < Ipv4Header.MIN_LENGTH || totalLength < headerLength ||
            l3 + totalLength > length || headerLength > Ipv4Header.MIN_LENGTH && !allowIpOptions)
        {
            return refuseIpv4(header, length, l3);
        }
        out.kind(i, KIND_IPV4);
        out.ipEnd(i, l3 + totalLength);
        final int protocol = Ipv4Header.protocol(header);
        out.protocol(i, protocol);
        out.sourceHigh(i, 0);
        out.sourceLow(i, Ipv4Header.source(header) & 0xFFFF_FFFFL);
        out.destinationHigh(i, 0);
        out.destinationLow(i, Ipv4Header.destination(header) & 0xFFFF_FFFFL);
        out.ttl(i, Ipv4Header.ttl(header));
        final int l4 = l3 + headerLength;
        out.l4Offset(i, l4);
        final int fragmentWord = Ipv4Header.flagsAndFragment(header);
        if ((fragmentWord & (Ipv4Header.FLAG_MORE_FRAGMENTS | Ipv4Header.FRAGMENT_OFFSET_MASK)) != 0)
        {
            if (!allowFragments)
            {
                return Verdict.drop(DropReason.FRAGMENT);
            }
            out.fragmentId(i, Ipv4Header.identification(header));
            if ((fragmentWord & Ipv4Header.FRAGMENT_OFFSET_MASK) != 0)
            {
                out.fragment(i, FRAGMENT_LATER);
                return 0;
            }
            out.fragment(i, FRAGMENT_FIRST);
        }
        return parseUpperLayer(frame, l4, totalLength - headerLength, protocol, false, out, i);
    }

    /**
     * Why an IPv4 header that {@link #parseIpv4} did not accept is refused: its tests, one at a time.
     */
    private int refuseIpv4(final long header, final int length, final int l3)
    {
        if (Ipv4Header.version(header) != 4)
        {
            return Verdict.drop(DropReason.BAD_IP_VERSION);
        }
        final int headerLength = Ipv4Header.headerLength(header);
        if (headerLength < Ipv4Header.MIN_LENGTH)
        {
            return Verdict.drop(DropReason.BAD_IHL);
        }
        final int totalLength = Ipv4Header.totalLength(header);
        if (totalLength < headerLength)
        {
            return Verdict.drop(headerLength > Ipv4Header.MIN_LENGTH && totalLength >= Ipv4Header.MIN_LENGTH ?
                DropReason.BAD_IHL : DropReason.BAD_IP_LEN);
        }
        if (l3 + totalLength > length)
        {
            return Verdict.drop(DropReason.TRUNCATED);
        }
        return Verdict.drop(DropReason.IP_OPTIONS);
    }

    private int parseIpv6(final long frame, final int length, final int l3, final ParsedBurst out, final int i)
    {
        if (l3 + Ipv6Header.LENGTH > length)
        {
            return Verdict.drop(DropReason.TRUNCATED);
        }
        final long header = frame + l3;
        if (Ipv6Header.version(header) != 6)
        {
            return Verdict.drop(DropReason.BAD_IP_VERSION);
        }
        final int payloadLength = Ipv6Header.payloadLength(header);
        if (payloadLength == 0)
        {
            // A jumbogram (hop-by-hop jumbo option) or garbage: neither is forwarded here.
            return Verdict.drop(DropReason.BAD_IP_LEN);
        }
        final int end = l3 + Ipv6Header.LENGTH + payloadLength;
        if (end > length)
        {
            return Verdict.drop(DropReason.TRUNCATED);
        }
        out.kind(i, KIND_IPV6);
        out.ipEnd(i, end);
        out.sourceHigh(i, Ipv6Header.sourceHigh(header));
        out.sourceLow(i, Ipv6Header.sourceLow(header));
        out.destinationHigh(i, Ipv6Header.destinationHigh(header));
        out.destinationLow(i, Ipv6Header.destinationLow(header));
        out.ttl(i, Ipv6Header.hopLimit(header));

        int next = Ipv6Header.nextHeader(header);
        int offset = l3 + Ipv6Header.LENGTH;
        for (int count = 0; ; count++)
        {
            if (Ipv6Header.isSkippableExtension(next))
            {
                if (count == MAX_EXTENSION_HEADERS || offset + 8 > end)
                {
                    return Verdict.drop(DropReason.BAD_EXTENSION_HEADER);
                }
                final int extensionLength = (Frames.u8(frame + offset + 1) + 1) << 3;
                if (offset + extensionLength > end)
                {
                    return Verdict.drop(DropReason.BAD_EXTENSION_HEADER);
                }
                next = Frames.u8(frame + offset);
                offset += extensionLength;
            }
            else if (next == Ipv6Header.NEXT_FRAGMENT)
            {
                if (count == MAX_EXTENSION_HEADERS || offset + Ipv6Header.FRAGMENT_HEADER_LENGTH > end)
                {
                    return Verdict.drop(DropReason.BAD_EXTENSION_HEADER);
                }
                final int word = Frames.u16(frame + offset + 2);
                next = Frames.u8(frame + offset);
                offset += Ipv6Header.FRAGMENT_HEADER_LENGTH;
                if ((word & (Ipv6Header.FRAGMENT_OFFSET_MASK | Ipv6Header.FRAGMENT_MORE)) == 0)
                {
                    // An atomic fragment (RFC 6946): a whole packet, handled as one.
                    continue;
                }
                if (!allowFragments)
                {
                    return Verdict.drop(DropReason.FRAGMENT);
                }
                out.fragmentId(i, Frames.i32(frame + offset - 4));
                out.fragment(i, (word & Ipv6Header.FRAGMENT_OFFSET_MASK) != 0 ? FRAGMENT_LATER : FRAGMENT_FIRST);
                if (out.fragment(i) == FRAGMENT_LATER)
                {
                    out.protocol(i, next);
                    out.l4Offset(i, offset);
                    return 0;
                }
            }
            else
            {
                break;
            }
        }
        out.protocol(i, next);
        out.l4Offset(i, offset);
        return parseUpperLayer(frame, offset, end - offset, next, true, out, i);
    }

    private static int parseUpperLayer(
        final long frame,
        final int l4,
        final int available,
        final int protocol,
        final boolean v6,
        final ParsedBurst out,
        final int i)
    {
        final long header = frame + l4;
        final boolean firstFragment = out.fragment(i) == FRAGMENT_FIRST;
        switch (protocol)
        {
            case Ipv4Header.PROTOCOL_TCP ->
            {
                // A first fragment need only carry the ports and flags; a whole segment its full header.
                final int needed = firstFragment ? TCP_FLAGS_OFFSET + 1 : TCP_MIN_LENGTH;
                if (available < needed)
                {
                    return Verdict.drop(firstFragment ? DropReason.FRAGMENT : DropReason.TRUNCATED);
                }
                if (!firstFragment)
                {
                    final int dataOffset = (Frames.u8(header + TCP_DATA_OFFSET_OFFSET) >>> 4) << 2;
                    if (dataOffset < TCP_MIN_LENGTH || dataOffset > available)
                    {
                        return Verdict.drop(DropReason.BAD_L4_HEADER);
                    }
                }
                out.tcpFlags(i, Frames.u8(header + TCP_FLAGS_OFFSET));
                return ports(header, out, i);
            }
            case Ipv4Header.PROTOCOL_UDP ->
            {
                if (available < UDP_LENGTH)
                {
                    return Verdict.drop(firstFragment ? DropReason.FRAGMENT : DropReason.TRUNCATED);
                }
                final int udpLength = Frames.u16(header + UDP_LENGTH_OFFSET);
                if (!firstFragment && (udpLength < UDP_LENGTH || udpLength > available))
                {
                    return Verdict.drop(DropReason.BAD_L4_HEADER);
                }
                return ports(header, out, i);
            }
            case Ipv4Header.PROTOCOL_SCTP ->
            {
                if (available < SCTP_COMMON_LENGTH)
                {
                    return Verdict.drop(firstFragment ? DropReason.FRAGMENT : DropReason.TRUNCATED);
                }
                return ports(header, out, i);
            }
            case Ipv4Header.PROTOCOL_ICMP, Ipv4Header.PROTOCOL_ICMPV6 ->
            {
                if ((protocol == Ipv4Header.PROTOCOL_ICMPV6) != v6)
                {
                    // ICMPv6 inside IPv4 or ICMP inside IPv6: not a message jvs acts on.
                    return 0;
                }
                if (available < ICMP_HEADER_LENGTH)
                {
                    return Verdict.drop(firstFragment ? DropReason.FRAGMENT : DropReason.TRUNCATED);
                }
                out.sourcePort(i, Frames.u8(header + ICMP_TYPE_OFFSET));
                out.destinationPort(i, Frames.u8(header + ICMP_CODE_OFFSET));
                return 0;
            }
            default ->
            {
                return 0;
            }
        }
    }

    private static int ports(final long header, final ParsedBurst out, final int i)
    {
        out.sourcePort(i, Frames.u16(header + SOURCE_PORT_OFFSET));
        out.destinationPort(i, Frames.u16(header + DESTINATION_PORT_OFFSET));
        out.hasPorts(i, true);
        return 0;
    }
}
