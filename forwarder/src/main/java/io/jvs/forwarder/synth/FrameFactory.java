package io.jvs.forwarder.synth;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Ipv6Header;
import io.jvs.core.packet.L4Headers;

import java.nio.charset.StandardCharsets;

/**
 * Builds the frames of one client and service into off-heap memory: TCP segments and UDP datagrams from the
 * client to the virtual address, fragments of large datagrams, and the ICMP errors a router on the client's
 * path sends to the virtual address about a reply of the service's.
 * <p>
 * Set the endpoint ({@link #endpoint}) and then write frames for it; each method returns the frame's length
 * and leaves the offsets of its headers in {@link #l3Offset()} and {@link #l4Offset()}. Payload bytes are
 * copied from a fixed text, so no frame costs a random number per byte. Nothing is allocated per frame.
 */
final class FrameFactory
{
    static final int MSS_V4 = 1460;
    static final int MSS_V6 = 1440;
    /** The UDP payload of a large datagram: too big for one 1500-byte packet, so it travels in fragments. */
    static final int LARGE_DATAGRAM_PAYLOAD = 3000;
    /** The IP payload of each fragment but the last, multiples of 8 that fill a 1500-byte packet. */
    static final int FRAGMENT_PAYLOAD_V4 = 1480;
    static final int FRAGMENT_PAYLOAD_V6 = 1448;
    /** The length of the reply an ICMP error reports as too big. */
    static final int TOO_BIG_LENGTH = 1500;
    static final int PATTERN_LENGTH = 8192;
    /** Bytes of memory the factory needs: the payload text and room to assemble one large datagram. */
    static final int MEMORY_LENGTH = PATTERN_LENGTH + 4096;

    private static final int DNS_HEADER_LENGTH = 12;
    private static final int DNS_RECURSION_DESIRED = 0x0100;
    private static final int DNS_TYPE_A = 1;
    private static final int DNS_TYPE_AAAA = 28;
    private static final int DNS_CLASS_IN = 1;
    /** The rest of the name, as DNS writes it: length-prefixed labels and the root's empty one. */
    private static final byte[] DNS_DOMAIN = "\7example\3com\0".getBytes(StandardCharsets.US_ASCII);
    private static final int ICMP_QUOTE_V4 = Ipv4Header.MIN_LENGTH + 8;
    private static final int ICMP_QUOTE_V6 = Ipv6Header.LENGTH + 8;
    private static final String PAYLOAD_TEXT = "GET /catalogue/item-%04d.html HTTP/1.1\r\nHost: www.example.com\r\n" +
        "User-Agent: jvs-synth/1.0\r\nAccept: text/html,*/*\r\nCookie: session=%08x\r\n\r\n";

    private final long pattern;
    private final long datagram;
    private boolean v6;
    private int vlanId;
    private int clientV4;
    private long clientLow;
    private int vipV4;
    private long vipLow;
    private int servicePort;
    private int identification;
    private int fragmentIdentification;
    private int l3Offset;
    private int l4Offset;
    private int datagramLength;

    /**
     * @param memory {@link #MEMORY_LENGTH} bytes off-heap, for the factory's own use.
     * @param seed   starts the IP identification counters somewhere the seed decides.
     */
    FrameFactory(final long memory, final long seed)
    {
        this.pattern = memory;
        this.datagram = memory + PATTERN_LENGTH;
        this.identification = (int)SplitMix64.mix(seed) & 0xFFFF;
        this.fragmentIdentification = (int)SplitMix64.mix(~seed);
        int at = 0;
        for (int line = 0; at < PATTERN_LENGTH; line++)
        {
            final byte[] text = String.format(PAYLOAD_TEXT, line, (int)SplitMix64.mix(seed + line))
                .getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < text.length && at < PATTERN_LENGTH; i++, at++)
            {
                Frames.putU8(pattern + at, text[i]);
            }
        }
    }

    /**
     * @param vlanId 802.1Q VLAN id, or -1 for untagged frames.
     */
    void endpoint(final int client, final int service, final boolean clientV6, final int vlanId,
        final int port)
    {
        this.v6 = clientV6;
        this.vlanId = vlanId;
        this.servicePort = port;
        if (clientV6)
        {
            clientLow = AddressPlan.clientV6Low(client);
            vipLow = AddressPlan.vipV6Low(service);
        }
        else
        {
            clientV4 = AddressPlan.clientV4(client);
            vipV4 = AddressPlan.vipV4(service);
        }
    }

    boolean isV6()
    {
        return v6;
    }

    int l3Offset()
    {
        return l3Offset;
    }

    int l4Offset()
    {
        return l4Offset;
    }

    int mss()
    {
        return v6 ? MSS_V6 : MSS_V4;
    }

    /**
     * A TCP segment from the client.
     *
     * @param payloadLength 0..{@link #mss()}.
     * @return the frame's length, padded to Ethernet's minimum.
     */
    int tcp(final long frame, final int clientPort, final int sequence, final int acknowledgement, final int flags,
        final int payloadLength)
    {
        final long tcp = frame + ipHeader(frame, Ipv4Header.PROTOCOL_TCP, Ipv4Header.FLAG_DONT_FRAGMENT);
        final int headerLength =
            HeaderWriter.tcp(tcp, clientPort, servicePort, sequence, acknowledgement, flags, mss());
        Frames.copy(pattern + (sequence & 0x3FF), tcp + headerLength, payloadLength);
        final int segmentLength = headerLength + payloadLength;
        finishIpHeader(frame, segmentLength, clientPort);
        HeaderWriter.transportChecksum(frame + l3Offset, v6, Ipv4Header.PROTOCOL_TCP, tcp, segmentLength);
        return HeaderWriter.pad(frame, l4Offset + segmentLength);
    }

    /**
     * A UDP datagram from the client that fits one packet.
     *
     * @param payloadLength 0..1400.
     * @return the frame's length, padded to Ethernet's minimum.
     */
    int udp(final long frame, final int clientPort, final int payloadLength)
    {
        final long udp = frame + ipHeader(frame, Ipv4Header.PROTOCOL_UDP, 0);
        Frames.copy(pattern + (clientPort & 0x3FF), udp + L4Headers.UDP_LENGTH, payloadLength);
        return finishUdp(frame, udp, clientPort, payloadLength);
    }

    /**
     * A DNS query from the client, one datagram: a recursive query for an A record (AAAA from IPv6
     * clients) of {@code <label>.example.com}, so that tools decoding port 53 show a query.
     *
     * @param queryId     the DNS id, 0..65535.
     * @param labelLength the first label's length, 1..63 (the datagram's payload is 30 bytes more).
     * @return the frame's length, padded to Ethernet's minimum.
     */
    int dnsQuery(final long frame, final int clientPort, final int queryId, final int labelLength)
    {
        final long udp = frame + ipHeader(frame, Ipv4Header.PROTOCOL_UDP, 0);
        final long dns = udp + L4Headers.UDP_LENGTH;
        Frames.putU16(dns, queryId);
        Frames.putU16(dns + 2, DNS_RECURSION_DESIRED);
        Frames.putI64(dns + 4, 1L << 48);
        long at = dns + DNS_HEADER_LENGTH;
        Frames.putU8(at++, labelLength);
        for (int i = 0; i < labelLength; i++)
        {
            Frames.putU8(at++, 'a' + (queryId + i * 7) % 26);
        }
        for (final byte letter : DNS_DOMAIN)
        {
            Frames.putU8(at++, letter);
        }
        Frames.putU16(at, v6 ? DNS_TYPE_AAAA : DNS_TYPE_A);
        Frames.putU16(at + 2, DNS_CLASS_IN);
        return finishUdp(frame, udp, clientPort, (int)(at + 4 - dns));
    }

    private int finishUdp(final long frame, final long udp, final int clientPort, final int payloadLength)
    {
        final int segmentLength = L4Headers.UDP_LENGTH + payloadLength;
        HeaderWriter.udp(udp, clientPort, servicePort, segmentLength);
        finishIpHeader(frame, segmentLength, clientPort);
        HeaderWriter.transportChecksum(frame + l3Offset, v6, Ipv4Header.PROTOCOL_UDP, udp, segmentLength);
        return HeaderWriter.pad(frame, l4Offset + segmentLength);
    }

    /**
     * @return the fragments a datagram of {@link #LARGE_DATAGRAM_PAYLOAD} bytes takes over IPv4 or IPv6.
     */
    static int largeDatagramFragments(final boolean v6)
    {
        final int piece = v6 ? FRAGMENT_PAYLOAD_V6 : FRAGMENT_PAYLOAD_V4;
        return (L4Headers.UDP_LENGTH + LARGE_DATAGRAM_PAYLOAD + piece - 1) / piece;
    }

    /**
     * Assembles a large datagram, checksum and all, for {@link #fragment} to cut up: the checksum covers the
     * whole datagram, so it is computed before the first fragment is written.
     */
    void prepareLargeDatagram(final int clientPort)
    {
        final int ipLength = v6 ? Ipv6Header.LENGTH : Ipv4Header.MIN_LENGTH;
        final long udp = datagram + ipLength;
        datagramLength = L4Headers.UDP_LENGTH + LARGE_DATAGRAM_PAYLOAD;
        if (v6)
        {
            HeaderWriter.ipv6(datagram, datagramLength, Ipv4Header.PROTOCOL_UDP, 0, AddressPlan.CLIENT_PREFIX_V6.high(),
                clientLow, AddressPlan.FIRST_VIP_V6.high(), vipLow);
        }
        else
        {
            HeaderWriter.ipv4(datagram, ipLength + datagramLength, 0, 0, HeaderWriter.TTL, Ipv4Header.PROTOCOL_UDP,
                clientV4, vipV4);
        }
        HeaderWriter.udp(udp, clientPort, servicePort, datagramLength);
        Frames.copy(pattern + (clientPort & 0x3FF), udp + L4Headers.UDP_LENGTH, LARGE_DATAGRAM_PAYLOAD);
        HeaderWriter.transportChecksum(datagram, v6, Ipv4Header.PROTOCOL_UDP, udp, datagramLength);
        identification = (identification + 1) & 0xFFFF;
        fragmentIdentification++;
    }

    /**
     * One fragment of the datagram {@link #prepareLargeDatagram} assembled.
     *
     * @param index 0..{@link #largeDatagramFragments} - 1.
     * @return the frame's length.
     */
    int fragment(final long frame, final int index, final int clientPort)
    {
        final int piece = v6 ? FRAGMENT_PAYLOAD_V6 : FRAGMENT_PAYLOAD_V4;
        final int offset = index * piece;
        final int length = Math.min(piece, datagramLength - offset);
        final boolean more = offset + length < datagramLength;
        final long payload;
        if (v6)
        {
            l3Offset = HeaderWriter.ethernet(frame, vlanId, EthernetHeader.TYPE_IPV6);
            final long ip = frame + l3Offset;
            HeaderWriter.ipv6(ip, Ipv6Header.FRAGMENT_HEADER_LENGTH + length, Ipv6Header.NEXT_FRAGMENT,
                flowLabel(clientPort), AddressPlan.CLIENT_PREFIX_V6.high(), clientLow, AddressPlan.FIRST_VIP_V6.high(),
                vipLow);
            final long fragmentHeader = ip + Ipv6Header.LENGTH;
            Frames.putU8(fragmentHeader, Ipv4Header.PROTOCOL_UDP);
            Frames.putU8(fragmentHeader + 1, 0);
            Frames.putU16(fragmentHeader + 2, offset | (more ? Ipv6Header.FRAGMENT_MORE : 0));
            Frames.putI32(fragmentHeader + 4, fragmentIdentification);
            payload = fragmentHeader + Ipv6Header.FRAGMENT_HEADER_LENGTH;
            l4Offset = l3Offset + Ipv6Header.LENGTH + Ipv6Header.FRAGMENT_HEADER_LENGTH;
            Frames.copy(datagram + Ipv6Header.LENGTH + offset, payload, length);
        }
        else
        {
            l3Offset = HeaderWriter.ethernet(frame, vlanId, EthernetHeader.TYPE_IPV4);
            final long ip = frame + l3Offset;
            HeaderWriter.ipv4(ip, Ipv4Header.MIN_LENGTH + length, identification,
                (offset >>> 3) | (more ? Ipv4Header.FLAG_MORE_FRAGMENTS : 0), HeaderWriter.TTL,
                Ipv4Header.PROTOCOL_UDP, clientV4, vipV4);
            payload = ip + Ipv4Header.MIN_LENGTH;
            l4Offset = l3Offset + Ipv4Header.MIN_LENGTH;
            Frames.copy(datagram + Ipv4Header.MIN_LENGTH + offset, payload, length);
        }
        return HeaderWriter.pad(frame, l4Offset + length);
    }

    /**
     * What a router on the client's path sends the virtual address when the service's reply on this
     * connection is too big for the next link: ICMP fragmentation-needed (type 3 code 4) or ICMPv6
     * packet-too-big, quoting the reply's IP header and first 8 bytes (its ports and sequence number).
     *
     * @param clientPort     the connection's client port.
     * @param serverSequence the reply's sequence number.
     * @param mtu            the next-hop MTU reported.
     * @return the frame's length.
     */
    int icmpTooBig(final long frame, final int clientPort, final int serverSequence, final int mtu)
    {
        final long ip;
        final long icmp;
        final long quote;
        final int icmpLength;
        if (v6)
        {
            icmpLength = L4Headers.ICMP_HEADER_LENGTH + ICMP_QUOTE_V6;
            l3Offset = HeaderWriter.ethernet(frame, vlanId, EthernetHeader.TYPE_IPV6);
            ip = frame + l3Offset;
            HeaderWriter.ipv6(ip, icmpLength, Ipv4Header.PROTOCOL_ICMPV6, 0, AddressPlan.PATH_ROUTER_V6.high(),
                AddressPlan.PATH_ROUTER_V6.low(), AddressPlan.FIRST_VIP_V6.high(), vipLow);
            l4Offset = l3Offset + Ipv6Header.LENGTH;
            icmp = frame + l4Offset;
            Frames.putU8(icmp, L4Headers.ICMPV6_PACKET_TOO_BIG);
            Frames.putU8(icmp + 1, 0);
            Frames.putI32(icmp + L4Headers.ICMP_REST_OFFSET, mtu);
            quote = icmp + L4Headers.ICMP_HEADER_LENGTH;
            HeaderWriter.ipv6(quote, TOO_BIG_LENGTH - Ipv6Header.LENGTH, Ipv4Header.PROTOCOL_TCP, flowLabel(clientPort),
                AddressPlan.FIRST_VIP_V6.high(), vipLow, AddressPlan.CLIENT_PREFIX_V6.high(), clientLow);
            writeQuotedTcp(quote + Ipv6Header.LENGTH, clientPort, serverSequence);
        }
        else
        {
            icmpLength = L4Headers.ICMP_HEADER_LENGTH + ICMP_QUOTE_V4;
            l3Offset = HeaderWriter.ethernet(frame, vlanId, EthernetHeader.TYPE_IPV4);
            ip = frame + l3Offset;
            identification = (identification + 1) & 0xFFFF;
            HeaderWriter.ipv4(ip, Ipv4Header.MIN_LENGTH + icmpLength, identification, 0, HeaderWriter.TTL,
                Ipv4Header.PROTOCOL_ICMP, AddressPlan.PATH_ROUTER_V4.v4(), vipV4);
            l4Offset = l3Offset + Ipv4Header.MIN_LENGTH;
            icmp = frame + l4Offset;
            Frames.putU8(icmp, L4Headers.ICMP_DESTINATION_UNREACHABLE);
            Frames.putU8(icmp + 1, L4Headers.ICMP_CODE_FRAGMENTATION_NEEDED);
            Frames.putU16(icmp + L4Headers.ICMP_REST_OFFSET, 0);
            Frames.putU16(icmp + L4Headers.ICMP_REST_OFFSET + 2, mtu);
            quote = icmp + L4Headers.ICMP_HEADER_LENGTH;
            // The reply as the router received it: one hop from the balancer, DF set (that is why it is reported).
            HeaderWriter.ipv4(quote, TOO_BIG_LENGTH, serverSequence & 0xFFFF, Ipv4Header.FLAG_DONT_FRAGMENT,
                HeaderWriter.TTL - 1, Ipv4Header.PROTOCOL_TCP, vipV4, clientV4);
            writeQuotedTcp(quote + Ipv4Header.MIN_LENGTH, clientPort, serverSequence);
        }
        HeaderWriter.transportChecksum(ip, v6, v6 ? Ipv4Header.PROTOCOL_ICMPV6 : Ipv4Header.PROTOCOL_ICMP, icmp,
            icmpLength);
        return HeaderWriter.pad(frame, l4Offset + icmpLength);
    }

    private void writeQuotedTcp(final long tcp, final int clientPort, final int serverSequence)
    {
        Frames.putU16(tcp, servicePort);
        Frames.putU16(tcp + 2, clientPort);
        Frames.putI32(tcp + 4, serverSequence);
    }

    /**
     * Writes Ethernet and what of the IP header is known before the segment's length; {@link #finishIpHeader}
     * does the rest.
     *
     * @return the offset of the layer-4 header.
     */
    private int ipHeader(final long frame, final int protocol, final int fragmentWord)
    {
        l3Offset = HeaderWriter.ethernet(frame, vlanId, v6 ? EthernetHeader.TYPE_IPV6 : EthernetHeader.TYPE_IPV4);
        final long ip = frame + l3Offset;
        if (v6)
        {
            HeaderWriter.ipv6(ip, 0, protocol, 0, AddressPlan.CLIENT_PREFIX_V6.high(), clientLow,
                AddressPlan.FIRST_VIP_V6.high(), vipLow);
            l4Offset = l3Offset + Ipv6Header.LENGTH;
        }
        else
        {
            identification = (identification + 1) & 0xFFFF;
            Frames.putU16(ip + Ipv4Header.FLAGS_FRAGMENT_OFFSET, fragmentWord);
            Frames.putU8(ip + Ipv4Header.PROTOCOL_OFFSET, protocol);
            l4Offset = l3Offset + Ipv4Header.MIN_LENGTH;
        }
        return l4Offset;
    }

    private void finishIpHeader(final long frame, final int segmentLength, final int clientPort)
    {
        final long ip = frame + l3Offset;
        if (v6)
        {
            Frames.putI32(ip, 0x6000_0000 | flowLabel(clientPort));
            Ipv6Header.payloadLength(ip, segmentLength);
        }
        else
        {
            HeaderWriter.ipv4(ip, Ipv4Header.MIN_LENGTH + segmentLength, identification,
                Ipv4Header.flagsAndFragment(ip), HeaderWriter.TTL, Ipv4Header.protocol(ip), clientV4, vipV4);
        }
    }

    /**
     * @return the flow label the client's stack gives a connection: fixed per client port, as Linux hashes it.
     */
    private static int flowLabel(final int clientPort)
    {
        return (int)SplitMix64.mix(clientPort) & 0xF_FFFF;
    }
}
