package io.jvs.core.pipeline;

import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Ipv6Header;
import io.jvs.core.packet.L4Headers;
import io.jvs.core.packet.ParsedBurst;

/**
 * Answers a packet with an ICMP or ICMPv6 error, built in the packet's own frame and sent back out of
 * the port it came in on: port-unreachable for a connection no server can take (as the kernel's
 * {@code ip_vs_leave} answers it, TCP and UDP alike), time-exceeded, frag-needed and packet-too-big.
 * <p>
 * The answer quotes the offending IP packet, as much as fits in 576 bytes (IPv4, RFC 1812) or 1280
 * (IPv6, RFC 4443). As the RFCs require, there is no answer to an ICMP error, to a later fragment, or to
 * a packet from an unspecified, multicast or broadcast address. Answers are rate-limited per worker by a
 * token bucket; the frame is dropped either way, and the caller counts the drop.
 */
final class IcmpResponder
{
    private static final int V4_LIMIT = 576;
    private static final int V6_LIMIT = 1280;
    private static final int HOP_LIMIT = 64;
    /** Internetwork control, as Linux marks its ICMP errors. */
    private static final int TOS = 0xC0;

    private final long refillIntervalNs;
    private final int burstTokens;
    private int tokens;
    private long lastRefillNs;
    private int identification;

    /**
     * @param perSecond answers per second allowed, 0 for none.
     */
    IcmpResponder(final int perSecond)
    {
        this.refillIntervalNs = perSecond > 0 ? 1_000_000_000L / perSecond : Long.MAX_VALUE;
        this.burstTokens = Math.max(1, perSecond / 10);
        this.tokens = perSecond > 0 ? burstTokens : 0;
    }

    private boolean takeToken(final long nowNs)
    {
        if (refillIntervalNs == Long.MAX_VALUE)
        {
            return false;
        }
        if (tokens < burstTokens)
        {
            final long elapsed = nowNs - lastRefillNs;
            if (elapsed >= refillIntervalNs)
            {
                final long refill = elapsed / refillIntervalNs;
                tokens = (int)Math.min(burstTokens, tokens + refill);
                lastRefillNs = tokens == burstTokens ? nowNs : lastRefillNs + refill * refillIntervalNs;
            }
        }
        else
        {
            lastRefillNs = nowNs;
        }
        if (tokens == 0)
        {
            return false;
        }
        tokens--;
        return true;
    }

    /**
     * Turns the frame into an ICMP error about the packet it holds.
     *
     * @param type            the ICMP (IPv4) or ICMPv6 type.
     * @param code            its code.
     * @param mtu             the MTU to report (frag-needed, packet-too-big), else 0.
     * @param fromDestination answer from the packet's destination address (a virtual service answering for
     *                        itself) rather than from the ingress port's address (a router on the path).
     * @return {@link #SENT}, {@link #RATE_LIMITED} or {@link #NOT_ALLOWED}.
     */
    int answer(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane, final long nowNs,
        final int type, final int code, final int mtu, final boolean fromDestination)
    {
        if (!mayAnswer(burst.address(i), p, i))
        {
            return NOT_ALLOWED;
        }
        if (!takeToken(nowNs))
        {
            return RATE_LIMITED;
        }
        final boolean v6 = p.kind(i) == ParsedBurst.KIND_IPV6;
        final int port = burst.ingressPort;
        if (port >= plane.portMac.length || (v6 ? plane.portIpv6Low[port] == 0 && !fromDestination :
            plane.portIpv4[port] == 0 && !fromDestination))
        {
            return NOT_ALLOWED;
        }
        final long frame = burst.address(i);
        final long peerMac = EthernetHeader.source(frame);
        final long quoted = frame + p.l3Offset(i);
        final int ipHeader = v6 ? Ipv6Header.LENGTH : Ipv4Header.MIN_LENGTH;
        final int headers = EthernetHeader.LENGTH + ipHeader + L4Headers.ICMP_HEADER_LENGTH;
        final int quoteLength = Math.min(Math.min(p.ipEnd(i) - p.l3Offset(i), (v6 ? V6_LIMIT : V4_LIMIT) -
            ipHeader - L4Headers.ICMP_HEADER_LENGTH), burst.capacity(i) - headers);
        if (quoteLength < (v6 ? Ipv6Header.LENGTH : Ipv4Header.MIN_LENGTH))
        {
            return NOT_ALLOWED;
        }
        // Keep the offender's addresses before the quote moves over them.
        final long sourceHigh = p.sourceHigh(i);
        final long sourceLow = p.sourceLow(i);
        final long replyFromHigh = fromDestination ? p.destinationHigh(i) : plane.portIpv6High[port];
        final long replyFromLow = fromDestination ? p.destinationLow(i) :
            (v6 ? plane.portIpv6Low[port] : plane.portIpv4[port] & 0xFFFF_FFFFL);
        Frames.copy(quoted, frame + headers, quoteLength);

        Rewriter.setMacs(frame, peerMac, plane.portMac[port]);
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET, v6 ? EthernetHeader.TYPE_IPV6 : EthernetHeader.TYPE_IPV4);
        final long ip = frame + EthernetHeader.LENGTH;
        final long icmp = ip + ipHeader;
        final int icmpLength = L4Headers.ICMP_HEADER_LENGTH + quoteLength;
        Frames.putU8(icmp + L4Headers.ICMP_TYPE_OFFSET, type);
        Frames.putU8(icmp + L4Headers.ICMP_CODE_OFFSET, code);
        Frames.putU16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET, 0);
        Frames.putI32(icmp + L4Headers.ICMP_REST_OFFSET, mtu);
        if (v6)
        {
            Frames.putI32(ip, 6 << 28);
            Ipv6Header.payloadLength(ip, icmpLength);
            Frames.putU8(ip + Ipv6Header.NEXT_HEADER_OFFSET, Ipv4Header.PROTOCOL_ICMPV6);
            Ipv6Header.hopLimit(ip, HOP_LIMIT);
            Ipv6Header.source(ip, replyFromHigh, replyFromLow);
            Ipv6Header.destination(ip, sourceHigh, sourceLow);
            Frames.putU16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET, Checksums.transportChecksumV6(
                ip + Ipv6Header.SOURCE_OFFSET, Ipv4Header.PROTOCOL_ICMPV6, icmp, icmpLength));
        }
        else
        {
            writeIpv4(ip, (int)replyFromLow, (int)sourceLow, icmpLength);
            Frames.putU16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET, Checksums.checksum(icmp, icmpLength));
        }
        burst.length(i, headers + quoteLength);
        return SENT;
    }

    /**
     * Turns the frame into an ICMP error of the given type about a packet it quotes (somewhere after where the new
     * headers go), from {@code from} to {@code to} by the next hop {@code hop}: the kernel's icmp_send of an error
     * about a packet it holds, here one a router sent about a packet jvs tunnelled, relayed to that packet's sender
     * (IPVS's ip_vs_in_icmp for its tunnels). Not rate-limited: it forwards an error, one for each that came.
     *
     * @param quoted       where the packet the error is about starts in the frame, at least 42 bytes in.
     * @param quotedLength how much of it the frame holds.
     * @param rest         the ICMP header's second word (the next-hop MTU of frag-needed).
     * @return {@link #SENT}, or {@link #NOT_ALLOWED} when the frame has no room or too little is quoted.
     */
    int relay(final FrameBurst burst, final int i, final DataPlane plane, final long quoted, final int quotedLength,
        final int type, final int code, final int rest, final int from, final int to, final long hop)
    {
        final long frame = burst.address(i);
        final int headers = EthernetHeader.LENGTH + Ipv4Header.MIN_LENGTH + L4Headers.ICMP_HEADER_LENGTH;
        final int quoteLength = Math.min(quotedLength, V4_LIMIT - Ipv4Header.MIN_LENGTH - L4Headers.ICMP_HEADER_LENGTH);
        if (quoteLength < Ipv4Header.MIN_LENGTH || quoted < frame + headers ||
            headers + quoteLength > burst.capacity(i))
        {
            return NOT_ALLOWED;
        }
        // Moved towards the frame's start over what went before it (an overlapping copy, as memmove).
        Frames.copy(quoted, frame + headers, quoteLength);
        final int port = NeighbourIndex.port(hop);
        Rewriter.setMacs(frame, NeighbourIndex.mac(hop), plane.portMac[port]);
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET, EthernetHeader.TYPE_IPV4);
        final long ip = frame + EthernetHeader.LENGTH;
        final long icmp = ip + Ipv4Header.MIN_LENGTH;
        final int icmpLength = L4Headers.ICMP_HEADER_LENGTH + quoteLength;
        Frames.putU8(icmp + L4Headers.ICMP_TYPE_OFFSET, type);
        Frames.putU8(icmp + L4Headers.ICMP_CODE_OFFSET, code);
        Frames.putU16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET, 0);
        Frames.putI32(icmp + L4Headers.ICMP_REST_OFFSET, rest);
        writeIpv4(ip, from, to, icmpLength);
        Frames.putU16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET, Checksums.checksum(icmp, icmpLength));
        burst.length(i, headers + quoteLength);
        return SENT;
    }

    private void writeIpv4(final long ip, final int from, final int to, final int icmpLength)
    {
        Frames.putU8(ip, 0x45);
        Frames.putU8(ip + Ipv4Header.TOS_OFFSET, TOS);
        Ipv4Header.totalLength(ip, Ipv4Header.MIN_LENGTH + icmpLength);
        Frames.putU16(ip + Ipv4Header.IDENTIFICATION_OFFSET, identification++);
        Frames.putU16(ip + Ipv4Header.FLAGS_FRAGMENT_OFFSET, 0);
        Ipv4Header.ttl(ip, HOP_LIMIT);
        Frames.putU8(ip + Ipv4Header.PROTOCOL_OFFSET, Ipv4Header.PROTOCOL_ICMP);
        Ipv4Header.source(ip, from);
        Ipv4Header.destination(ip, to);
        Ipv4Header.checksum(ip, 0);
        Ipv4Header.checksum(ip, Checksums.ipv4HeaderChecksum(ip));
    }

    static final int SENT = 0;
    static final int RATE_LIMITED = 1;
    static final int NOT_ALLOWED = 2;

    /**
     * @return whether the packet is an unfragmented ICMP echo request (IPv4 type 8, ICMPv6 type 128).
     */
    static boolean isEchoRequest(final ParsedBurst p, final int i)
    {
        if (p.fragment(i) != ParsedBurst.FRAGMENT_NONE || p.l4Length(i) < L4Headers.ICMP_HEADER_LENGTH)
        {
            return false;
        }
        return p.kind(i) == ParsedBurst.KIND_IPV4 ?
            p.protocol(i) == Ipv4Header.PROTOCOL_ICMP && p.sourcePort(i) == L4Headers.ICMP_ECHO_REQUEST :
            p.kind(i) == ParsedBurst.KIND_IPV6 && p.protocol(i) == Ipv4Header.PROTOCOL_ICMPV6 &&
                p.sourcePort(i) == L4Headers.ICMPV6_ECHO_REQUEST;
    }

    /**
     * Turns an echo request into its reply in place, from the address it was sent to, back out of the port it
     * came in on, as the kernel's icmp_echo and icmpv6_echo_reply answer: the identifier, sequence number and data
     * unchanged, the checksum adjusted for the type alone (the swapped addresses leave ICMPv6's pseudo-header sum as
     * it was). Not rate-limited, as the kernel does not limit echo replies by default (icmp_ratemask).
     *
     * @return {@link #SENT}, or {@link #NOT_ALLOWED} for a request from an address no answer may go to.
     */
    int echo(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane)
    {
        final int port = burst.ingressPort;
        if (!mayAnswer(burst.address(i), p, i) || port >= plane.portMac.length)
        {
            return NOT_ALLOWED;
        }
        final boolean v6 = p.kind(i) == ParsedBurst.KIND_IPV6;
        final long frame = burst.address(i);
        final long ip = frame + p.l3Offset(i);
        final long icmp = frame + p.l4Offset(i);
        Rewriter.setMacs(frame, EthernetHeader.source(frame), plane.portMac[port]);
        final int requestType = v6 ? L4Headers.ICMPV6_ECHO_REQUEST : L4Headers.ICMP_ECHO_REQUEST;
        final int replyType = v6 ? L4Headers.ICMPV6_ECHO_REPLY : L4Headers.ICMP_ECHO_REPLY;
        final int code = Frames.u8(icmp + L4Headers.ICMP_CODE_OFFSET);
        Frames.putU8(icmp + L4Headers.ICMP_TYPE_OFFSET, replyType);
        Frames.putU16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET, Checksums.update16(
            Frames.u16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET), requestType << 8 | code, replyType << 8 | code));
        if (v6)
        {
            Ipv6Header.source(ip, p.destinationHigh(i), p.destinationLow(i));
            Ipv6Header.destination(ip, p.sourceHigh(i), p.sourceLow(i));
            Ipv6Header.hopLimit(ip, HOP_LIMIT);
        }
        else
        {
            Ipv4Header.source(ip, (int)p.destinationLow(i));
            Ipv4Header.destination(ip, (int)p.sourceLow(i));
            Ipv4Header.ttl(ip, HOP_LIMIT);
            Ipv4Header.checksum(ip, 0);
            Ipv4Header.checksum(ip, Checksums.ipv4HeaderChecksum(ip));
        }
        return SENT;
    }

    private static boolean mayAnswer(final long frame, final ParsedBurst p, final int i)
    {
        if (p.fragment(i) == ParsedBurst.FRAGMENT_LATER)
        {
            return false;
        }
        final int protocol = p.protocol(i);
        if (p.kind(i) == ParsedBurst.KIND_IPV4)
        {
            final int source = (int)p.sourceLow(i);
            final int destination = (int)p.destinationLow(i);
            if (source == 0 || (source >>> 28) == 0xE || source == -1 || (destination >>> 28) == 0xE ||
                destination == -1)
            {
                return false;
            }
            return protocol != Ipv4Header.PROTOCOL_ICMP || !L4Headers.isIcmpError(p.sourcePort(i));
        }
        final boolean sourceUnusable = (p.sourceHigh(i) == 0 && p.sourceLow(i) == 0) ||
            (p.sourceHigh(i) >>> 56) == 0xFF;
        if (sourceUnusable || (p.destinationHigh(i) >>> 56) == 0xFF)
        {
            return false;
        }
        return protocol != Ipv4Header.PROTOCOL_ICMPV6 || !L4Headers.isIcmpv6Error(p.sourcePort(i));
    }
}
