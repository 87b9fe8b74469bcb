package io.jvs.forwarder.synth;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Ipv6Header;
import io.jvs.core.packet.L4Headers;

/**
 * The ICMP errors of a synthetic trace: what a router between a client and the balancer sends the virtual
 * address when a reply is too big for its next link. The balancer must match the quoted reply to the
 * connection it belongs to and send the error to that connection's real server.
 */
final class IcmpErrorWriter
{
    /** The length of the reply an ICMP error reports as too big. */
    static final int TOO_BIG_LENGTH = 1500;

    private static final int ICMP_QUOTE_V4 = Ipv4Header.MIN_LENGTH + 8;
    private static final int ICMP_QUOTE_V6 = Ipv6Header.LENGTH + 8;

    private IcmpErrorWriter()
    {
    }

    /**
     * What a router on the client's path sends the virtual address when the service's reply on this
     * connection is too big for the next link: ICMP fragmentation-needed (type 3 code 4) or ICMPv6
     * packet-too-big, quoting the reply's IP header and first 8 bytes (its ports and sequence number).
     *
     * @param endpoint       the connection's client and service.
     * @param clientPort     the connection's client port.
     * @param serverSequence the reply's sequence number.
     * @param mtu            the next-hop MTU reported.
     * @return the frame's length.
     */
    static int tooBig(final FrameFactory endpoint, final long frame, final int clientPort, final int serverSequence,
        final int mtu)
    {
        final long ip;
        final long icmp;
        final long quote;
        final int icmpLength;
        final int l3Offset;
        final int l4Offset;
        if (endpoint.v6)
        {
            icmpLength = L4Headers.ICMP_HEADER_LENGTH + ICMP_QUOTE_V6;
            l3Offset = HeaderWriter.ethernet(frame, endpoint.vlanId, EthernetHeader.TYPE_IPV6);
            ip = frame + l3Offset;
            HeaderWriter.ipv6(ip, icmpLength, Ipv4Header.PROTOCOL_ICMPV6, 0, AddressPlan.PATH_ROUTER_V6.high(),
                AddressPlan.PATH_ROUTER_V6.low(), AddressPlan.FIRST_VIP_V6.high(), endpoint.vipLow);
            l4Offset = l3Offset + Ipv6Header.LENGTH;
            icmp = frame + l4Offset;
            Frames.putU8(icmp, L4Headers.ICMPV6_PACKET_TOO_BIG);
            Frames.putU8(icmp + 1, 0);
            Frames.putI32(icmp + L4Headers.ICMP_REST_OFFSET, mtu);
            quote = icmp + L4Headers.ICMP_HEADER_LENGTH;
            HeaderWriter.ipv6(quote, TOO_BIG_LENGTH - Ipv6Header.LENGTH, Ipv4Header.PROTOCOL_TCP,
                FrameFactory.flowLabel(clientPort), AddressPlan.FIRST_VIP_V6.high(), endpoint.vipLow,
                AddressPlan.CLIENT_PREFIX_V6.high(), endpoint.clientLow);
            writeQuotedTcp(endpoint, quote + Ipv6Header.LENGTH, clientPort, serverSequence);
        }
        else
        {
            icmpLength = L4Headers.ICMP_HEADER_LENGTH + ICMP_QUOTE_V4;
            l3Offset = HeaderWriter.ethernet(frame, endpoint.vlanId, EthernetHeader.TYPE_IPV4);
            ip = frame + l3Offset;
            HeaderWriter.ipv4(ip, Ipv4Header.MIN_LENGTH + icmpLength, endpoint.nextIdentification(), 0,
                HeaderWriter.TTL, Ipv4Header.PROTOCOL_ICMP, AddressPlan.PATH_ROUTER_V4.v4(), endpoint.vipV4);
            l4Offset = l3Offset + Ipv4Header.MIN_LENGTH;
            icmp = frame + l4Offset;
            Frames.putU8(icmp, L4Headers.ICMP_DESTINATION_UNREACHABLE);
            Frames.putU8(icmp + 1, L4Headers.ICMP_CODE_FRAGMENTATION_NEEDED);
            Frames.putU16(icmp + L4Headers.ICMP_REST_OFFSET, 0);
            Frames.putU16(icmp + L4Headers.ICMP_REST_OFFSET + 2, mtu);
            quote = icmp + L4Headers.ICMP_HEADER_LENGTH;
            // The reply as the router received it: one hop from the balancer, DF set (that is why it is reported).
            HeaderWriter.ipv4(quote, TOO_BIG_LENGTH, serverSequence & 0xFFFF, Ipv4Header.FLAG_DONT_FRAGMENT,
                HeaderWriter.TTL - 1, Ipv4Header.PROTOCOL_TCP, endpoint.vipV4, endpoint.clientV4);
            writeQuotedTcp(endpoint, quote + Ipv4Header.MIN_LENGTH, clientPort, serverSequence);
        }
        final int protocol = endpoint.v6 ? Ipv4Header.PROTOCOL_ICMPV6 : Ipv4Header.PROTOCOL_ICMP;
        HeaderWriter.transportChecksum(ip, endpoint.v6, protocol, icmp, icmpLength);
        endpoint.offsets(l3Offset, l4Offset);
        return HeaderWriter.pad(frame, l4Offset + icmpLength);
    }

    private static void writeQuotedTcp(final FrameFactory endpoint, final long tcp, final int clientPort,
        final int serverSequence)
    {
        Frames.putU16(tcp, endpoint.servicePort);
        Frames.putU16(tcp + 2, clientPort);
        Frames.putI32(tcp + 4, serverSequence);
    }
}
