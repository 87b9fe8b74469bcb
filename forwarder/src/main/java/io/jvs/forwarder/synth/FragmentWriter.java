package io.jvs.forwarder.synth;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Ipv6Header;
import io.jvs.core.packet.L4Headers;

/**
 * The large UDP datagrams of a synthetic trace and their fragments: the datagram is assembled whole first,
 * because its UDP checksum covers all of it, then cut into IPv4 fragments or IPv6 fragment-header packets
 * that fill a 1500-byte MTU. A balancer sees the ports only in the first fragment and must keep the later
 * ones with it.
 */
final class FragmentWriter
{
    /** The UDP payload of a large datagram: too big for one 1500-byte packet, so it travels in fragments. */
    static final int LARGE_DATAGRAM_PAYLOAD = 3000;
    /** The IP payload of each fragment but the last, multiples of 8 that fill a 1500-byte packet. */
    static final int FRAGMENT_PAYLOAD_V4 = 1480;
    static final int FRAGMENT_PAYLOAD_V6 = 1448;
    /** Room for the IP header and the datagram. */
    static final int MEMORY_LENGTH = 4096;

    private final long datagram;
    private int datagramLength;
    private int identification;
    private int fragmentIdentification;

    /**
     * @param memory {@link #MEMORY_LENGTH} bytes off-heap.
     * @param seed   starts the IPv6 fragment identification somewhere the seed decides.
     */
    FragmentWriter(final long memory, final long seed)
    {
        this.datagram = memory;
        this.fragmentIdentification = (int)SplitMix64.mix(~seed);
    }

    /**
     * @return the fragments a datagram of {@link #LARGE_DATAGRAM_PAYLOAD} bytes takes over IPv4 or IPv6.
     */
    static int count(final boolean v6)
    {
        final int piece = v6 ? FRAGMENT_PAYLOAD_V6 : FRAGMENT_PAYLOAD_V4;
        return (L4Headers.UDP_LENGTH + LARGE_DATAGRAM_PAYLOAD + piece - 1) / piece;
    }

    /**
     * Assembles a large datagram from the endpoint's client to its service, checksum and all, for
     * {@link #fragment} to cut up: the checksum covers the whole datagram, so it is computed before the first
     * fragment is written.
     */
    void prepare(final FrameFactory endpoint, final int clientPort)
    {
        final int ipLength = endpoint.v6 ? Ipv6Header.LENGTH : Ipv4Header.MIN_LENGTH;
        final long udp = datagram + ipLength;
        datagramLength = L4Headers.UDP_LENGTH + LARGE_DATAGRAM_PAYLOAD;
        if (endpoint.v6)
        {
            HeaderWriter.ipv6(datagram, datagramLength, Ipv4Header.PROTOCOL_UDP, 0, AddressPlan.CLIENT_PREFIX_V6.high(),
                endpoint.clientLow, AddressPlan.FIRST_VIP_V6.high(), endpoint.vipLow);
        }
        else
        {
            HeaderWriter.ipv4(datagram, ipLength + datagramLength, 0, 0, HeaderWriter.TTL, Ipv4Header.PROTOCOL_UDP,
                endpoint.clientV4, endpoint.vipV4);
        }
        HeaderWriter.udp(udp, clientPort, endpoint.servicePort, datagramLength);
        endpoint.payload(udp + L4Headers.UDP_LENGTH, clientPort & 0x3FF, LARGE_DATAGRAM_PAYLOAD);
        HeaderWriter.transportChecksum(datagram, endpoint.v6, Ipv4Header.PROTOCOL_UDP, udp, datagramLength);
        identification = endpoint.nextIdentification();
        fragmentIdentification++;
    }

    /**
     * One fragment of the datagram {@link #prepare} assembled.
     *
     * @param index 0..{@link #count} - 1.
     * @return the frame's length.
     */
    int fragment(final FrameFactory endpoint, final long frame, final int index, final int clientPort)
    {
        final int piece = endpoint.v6 ? FRAGMENT_PAYLOAD_V6 : FRAGMENT_PAYLOAD_V4;
        final int offset = index * piece;
        final int length = Math.min(piece, datagramLength - offset);
        final boolean more = offset + length < datagramLength;
        final long payload;
        final int l3Offset;
        final int l4Offset;
        if (endpoint.v6)
        {
            l3Offset = HeaderWriter.ethernet(frame, endpoint.vlanId, EthernetHeader.TYPE_IPV6);
            final long ip = frame + l3Offset;
            HeaderWriter.ipv6(ip, Ipv6Header.FRAGMENT_HEADER_LENGTH + length, Ipv6Header.NEXT_FRAGMENT,
                FrameFactory.flowLabel(clientPort), AddressPlan.CLIENT_PREFIX_V6.high(), endpoint.clientLow,
                AddressPlan.FIRST_VIP_V6.high(), endpoint.vipLow);
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
            l3Offset = HeaderWriter.ethernet(frame, endpoint.vlanId, EthernetHeader.TYPE_IPV4);
            final long ip = frame + l3Offset;
            HeaderWriter.ipv4(ip, Ipv4Header.MIN_LENGTH + length, identification,
                (offset >>> 3) | (more ? Ipv4Header.FLAG_MORE_FRAGMENTS : 0), HeaderWriter.TTL,
                Ipv4Header.PROTOCOL_UDP, endpoint.clientV4, endpoint.vipV4);
            payload = ip + Ipv4Header.MIN_LENGTH;
            l4Offset = l3Offset + Ipv4Header.MIN_LENGTH;
            Frames.copy(datagram + Ipv4Header.MIN_LENGTH + offset, payload, length);
        }
        endpoint.offsets(l3Offset, l4Offset);
        return HeaderWriter.pad(frame, l4Offset + length);
    }
}
