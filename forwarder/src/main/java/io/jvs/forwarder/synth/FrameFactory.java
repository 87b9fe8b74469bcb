package io.jvs.forwarder.synth;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Ipv6Header;
import io.jvs.core.packet.L4Headers;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Builds the frames of one client and service into off-heap memory: TCP segments, DNS queries and other UDP
 * datagrams from the client to the virtual address, fragments of large datagrams ({@link FragmentWriter}),
 * and the ICMP errors a router on the client's path sends about a reply of the service's
 * ({@link IcmpErrorWriter}).
 * <p>
 * Set the endpoint ({@link #endpoint}) and then write frames for it; each method returns the frame's length
 * and leaves the offsets of its headers in {@link #l3Offset()} and {@link #l4Offset()}. Payload bytes are
 * copied from a fixed text, so no frame costs a random number per byte. Nothing is allocated per frame.
 */
final class FrameFactory
{
    static final int MSS_V4 = 1460;
    static final int MSS_V6 = 1440;
    static final int PATTERN_LENGTH = 8192;
    /** Bytes of memory the factory needs: the payload text and room to assemble one large datagram. */
    static final int MEMORY_LENGTH = PATTERN_LENGTH + FragmentWriter.MEMORY_LENGTH;

    private static final int DNS_HEADER_LENGTH = 12;
    private static final int DNS_RECURSION_DESIRED = 0x0100;
    private static final int DNS_TYPE_A = 1;
    private static final int DNS_TYPE_AAAA = 28;
    private static final int DNS_CLASS_IN = 1;
    /** The rest of the name, as DNS writes it: length-prefixed labels and the root's empty one. */
    private static final byte[] DNS_DOMAIN = "\7example\3com\0".getBytes(StandardCharsets.US_ASCII);
    private static final String PAYLOAD_TEXT = "GET /catalogue/item-%04d.html HTTP/1.1\r\nHost: www.example.com\r\n" +
        "User-Agent: jvs-synth/1.0\r\nAccept: text/html,*/*\r\nCookie: session=%08x\r\n\r\n";

    private final long pattern;
    private final FragmentWriter fragments;
    // The endpoint, as endpoint() set it; FragmentWriter and IcmpErrorWriter read it too.
    boolean v6;
    int vlanId;
    int clientV4;
    long clientLow;
    int vipV4;
    long vipLow;
    int servicePort;
    private int identification;
    private int l3Offset;
    private int l4Offset;

    /**
     * @param memory {@link #MEMORY_LENGTH} bytes off-heap, for the factory's own use.
     * @param seed   starts the IP identification counters somewhere the seed decides.
     */
    FrameFactory(final long memory, final long seed)
    {
        this.pattern = memory;
        this.fragments = new FragmentWriter(memory + PATTERN_LENGTH, seed);
        this.identification = (int)SplitMix64.mix(seed) & 0xFFFF;
        int at = 0;
        for (int line = 0; at < PATTERN_LENGTH; line++)
        {
            final byte[] text = String.format(Locale.ROOT, PAYLOAD_TEXT, line, (int)SplitMix64.mix(seed + line))
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
     * @see FragmentWriter#prepare
     */
    void prepareLargeDatagram(final int clientPort)
    {
        fragments.prepare(this, clientPort);
    }

    /**
     * @see FragmentWriter#fragment
     */
    int fragment(final long frame, final int index, final int clientPort)
    {
        return fragments.fragment(this, frame, index, clientPort);
    }

    /**
     * Copies payload bytes: the fixed text from the given point on.
     */
    void payload(final long to, final int from, final int length)
    {
        Frames.copy(pattern + from, to, length);
    }

    /**
     * @see IcmpErrorWriter#tooBig
     */
    int icmpTooBig(final long frame, final int clientPort, final int serverSequence, final int mtu)
    {
        return IcmpErrorWriter.tooBig(this, frame, clientPort, serverSequence, mtu);
    }

    /**
     * Records where the frame just written has its headers.
     */
    void offsets(final int l3, final int l4)
    {
        l3Offset = l3;
        l4Offset = l4;
    }

    /**
     * @return the next IPv4 identification, as a host's one counter hands them out.
     */
    int nextIdentification()
    {
        identification = (identification + 1) & 0xFFFF;
        return identification;
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
    static int flowLabel(final int clientPort)
    {
        return (int)SplitMix64.mix(clientPort) & 0xF_FFFF;
    }
}
