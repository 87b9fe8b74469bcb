package io.jvs.core.pipeline;

import io.jvs.core.conn.ServerAddresses;
import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Crc32c;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Ipv6Header;
import io.jvs.core.packet.L4Headers;
import io.jvs.core.packet.ParsedBurst;
import io.jvs.core.packet.Verdict;

import org.agrona.UnsafeApi;

import static io.jvs.core.packet.ParsedBurst.destinationHighAt;
import static io.jvs.core.packet.ParsedBurst.destinationLowAt;
import static io.jvs.core.packet.ParsedBurst.destinationPortAt;
import static io.jvs.core.packet.ParsedBurst.fragmentAt;
import static io.jvs.core.packet.ParsedBurst.hasPortsAt;
import static io.jvs.core.packet.ParsedBurst.kindAt;
import static io.jvs.core.packet.ParsedBurst.l3OffsetAt;
import static io.jvs.core.packet.ParsedBurst.l4LengthAt;
import static io.jvs.core.packet.ParsedBurst.l4OffsetAt;
import static io.jvs.core.packet.ParsedBurst.protocolAt;
import static io.jvs.core.packet.ParsedBurst.sourceHighAt;
import static io.jvs.core.packet.ParsedBurst.sourceLowAt;
import static io.jvs.core.packet.ParsedBurst.sourcePortAt;
import static io.jvs.core.packet.ParsedBurst.ttlAt;

/**
 * Rewrites a frame for its way out (the kernel's ip_vs_nat_xmit, ip_vs_dr_xmit and ip_vs_tunnel_xmit): NAT
 * towards the real server and back, direct routing, IP-in-IP tunnelling; each decrements the TTL (the caller has
 * already answered a TTL of 1) and sets the Ethernet addresses of the next hop. Checksums are updated
 * incrementally (RFC 1624), except SCTP's CRC, which covers the ports and is recomputed.
 * <p>
 * Later fragments carry no upper-layer header, so only their IP header is rewritten: the checksum in
 * the first fragment covers the whole datagram and was updated there.
 */
final class Rewriter
{
    /** Outer IPv4 header of a tunnelled packet. */
    static final int IPIP_OVERHEAD = Ipv4Header.MIN_LENGTH;
    /** Outer IPv6 header of a tunnelled packet. */
    static final int IP6IP6_OVERHEAD = Ipv6Header.LENGTH;

    private final NeighbourMisses misses;
    private int tunnelIdentification;
    /** The MTU the last {@link #TOO_BIG} verdict is about: what the frag-needed or packet-too-big reports. */
    private int tooBigMtu;
    /** The time of the burst being processed, for {@link #misses}. */
    long nowNs;

    /**
     * @param misses where next hops that are not known are recorded.
     */
    Rewriter(final NeighbourMisses misses)
    {
        this.misses = misses;
    }

    /**
     * A frame for a client without a next hop: the client's address is wanted, as for a NAT reply.
     */
    int noClientNeighbour(final boolean v6, final long high, final long low)
    {
        misses.record(v6, high, low, nowNs);
        return Verdict.drop(DropReason.NO_NEIGHBOUR);
    }

    /**
     * A frame for a server without a next hop: the server's address is wanted.
     */
    private int noServerNeighbour(final DataPlane plane, final int serverSlot)
    {
        misses.record(plane.serverV6[serverSlot], plane.serverAddresses.high(serverSlot),
            plane.serverAddresses.low(serverSlot), nowNs);
        return Verdict.drop(DropReason.NO_NEIGHBOUR);
    }

    /**
     * NAT towards the real server: destination address and port become the server's.
     *
     * @param realPort the port the connection goes to on its server ({@link ServerAddresses#port}), unused for a
     *                 packet without ports.
     * @return the verdict.
     */
    int natInbound(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane,
        final int serverSlot, final int realPort)
    {
        return natInbound(burst, i, p, plane, serverSlot, realPort, false);
    }

    /**
     * {@link #natInbound(FrameBurst, int, ParsedBurst, DataPlane, int, int)} for a caller that may know the frame
     * fits every port.
     *
     * @param fitsEveryPort the frame is no longer than {@link DataPlane#fastPathFrameLimit}, so no egress MTU need be
     *                      checked (the established fast loop, which passes a constant the compiler folds).
     */
    int natInbound(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane,
        final int serverSlot, final int realPort, final boolean fitsEveryPort)
    {
        final int egress = plane.serverEgressPort[serverSlot];
        if (egress == DataPlane.NO_PORT)
        {
            return noServerNeighbour(plane, serverSlot);
        }
        // The MTU read only off the fast loop's path (fitsEveryPort is a constant there): no frame it takes needs it.
        final boolean fragments = !fitsEveryPort && exceedsMtu(p, i, plane.serverMtu[serverSlot]);
        if (fragments && !mayFragment(burst, i, p))
        {
            return tooBig(plane.serverMtu[serverSlot]);
        }
        final ServerAddresses servers = plane.serverAddresses;
        final long record = p.record(i);
        final long frame = burst.address(i);
        final long ip = frame + l3OffsetAt(record);
        if (kindAt(record) == ParsedBurst.KIND_IPV4)
        {
            final int addressChange =
                Checksums.natAddressV4(ip, Ipv4Header.DESTINATION_OFFSET, (int)servers.low(serverSlot));
            if (hasPortsAt(record))
            {
                rewritePortV4(frame + l4OffsetAt(record), record, L4Headers.DESTINATION_PORT_OFFSET, addressChange,
                    realPort);
            }
        }
        else
        {
            final long oldHigh = destinationHighAt(record);
            final long oldLow = destinationLowAt(record);
            final long newHigh = servers.high(serverSlot);
            final long newLow = servers.low(serverSlot);
            Ipv6Header.hopLimit(ip, ttlAt(record) - 1);
            Ipv6Header.destination(ip, newHigh, newLow);
            if (hasPortsAt(record))
            {
                rewritePortV6(frame + l4OffsetAt(record), record, L4Headers.DESTINATION_PORT_OFFSET,
                    oldHigh, oldLow, newHigh, newLow, destinationPortAt(record), realPort);
            }
        }
        setServerMacs(frame, plane, serverSlot);
        return fragments ? Verdict.transmitInFragments(egress, plane.serverMtu[serverSlot]) : Verdict.transmit(egress);
    }

    /**
     * NAT on the way back: the real server's source address and port become the virtual ones.
     *
     * @return the verdict.
     */
    int natOutbound(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane,
        final long virtualHigh, final long virtualLow, final int virtualPort)
    {
        final boolean v6 = p.kind(i) == ParsedBurst.KIND_IPV6;
        final long hop = plane.clientNeighbours.find(v6, p.destinationHigh(i), p.destinationLow(i));
        if (hop == NeighbourIndex.NONE)
        {
            return noClientNeighbour(v6, p.destinationHigh(i), p.destinationLow(i));
        }
        return natOutbound(burst, i, p, plane, hop, virtualHigh, virtualLow, virtualPort);
    }

    /**
     * {@link #natOutbound(FrameBurst, int, ParsedBurst, DataPlane, long, long, int)} towards a next hop already
     * found.
     *
     * @param hop the client's next hop, as {@link NeighbourIndex#find} gave it (not {@link NeighbourIndex#NONE}).
     * @return the verdict: transmit, or {@link #TOO_BIG} or a drop when the packet exceeds the egress MTU.
     */
    int natOutbound(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane, final long hop,
        final long virtualHigh, final long virtualLow, final int virtualPort)
    {
        return natOutbound(burst, i, p, plane, hop, virtualHigh, virtualLow, virtualPort, false);
    }

    /**
     * {@link #natOutbound(FrameBurst, int, ParsedBurst, DataPlane, long, long, long, int)} for a caller that may
     * know the frame fits every port.
     *
     * @param fitsEveryPort as {@link #natInbound(FrameBurst, int, ParsedBurst, DataPlane, int, int, boolean)}'s.
     */
    int natOutbound(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane, final long hop,
        final long virtualHigh, final long virtualLow, final int virtualPort, final boolean fitsEveryPort)
    {
        final long record = p.record(i);
        final boolean v6 = kindAt(record) == ParsedBurst.KIND_IPV6;
        final int egress = NeighbourIndex.port(hop);
        final int mtu =
            fitsEveryPort ? 0 : clientMtu(plane, egress, v6, destinationHighAt(record), destinationLowAt(record));
        final boolean fragments = !fitsEveryPort && exceedsMtu(p, i, mtu);
        if (fragments && !mayFragment(burst, i, p))
        {
            return tooBig(mtu);
        }
        final long frame = burst.address(i);
        final long ip = frame + l3OffsetAt(record);
        if (!v6)
        {
            final int addressChange = Checksums.natAddressV4(ip, Ipv4Header.SOURCE_OFFSET, (int)virtualLow);
            if (hasPortsAt(record))
            {
                rewritePortV4(frame + l4OffsetAt(record), record, L4Headers.SOURCE_PORT_OFFSET, addressChange,
                    virtualPort);
            }
        }
        else
        {
            Ipv6Header.hopLimit(ip, ttlAt(record) - 1);
            Ipv6Header.source(ip, virtualHigh, virtualLow);
            if (hasPortsAt(record))
            {
                rewritePortV6(frame + l4OffsetAt(record), record, L4Headers.SOURCE_PORT_OFFSET,
                    sourceHighAt(record), sourceLowAt(record), virtualHigh, virtualLow, sourcePortAt(record),
                    virtualPort);
            }
        }
        setMacs(frame, NeighbourIndex.mac(hop), plane.portMac[egress]);
        return fragments ? Verdict.transmitInFragments(egress, mtu) : Verdict.transmit(egress);
    }

    /**
     * Direct routing: the IP packet goes unchanged but for its TTL to the real server's MAC.
     *
     * @return the verdict.
     */
    int directRoute(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane, final int serverSlot)
    {
        return directRoute(burst, i, p, plane, serverSlot, false);
    }

    /**
     * {@link #directRoute(FrameBurst, int, ParsedBurst, DataPlane, int)} for a caller that may know the frame fits
     * every port.
     *
     * @param fitsEveryPort as {@link #natInbound(FrameBurst, int, ParsedBurst, DataPlane, int, int, boolean)}'s.
     */
    int directRoute(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane, final int serverSlot,
        final boolean fitsEveryPort)
    {
        final int egress = plane.serverEgressPort[serverSlot];
        if (egress == DataPlane.NO_PORT)
        {
            return noServerNeighbour(plane, serverSlot);
        }
        final boolean fragments = !fitsEveryPort && exceedsMtu(p, i, plane.serverMtu[serverSlot]);
        if (fragments && !mayFragment(burst, i, p))
        {
            return tooBig(plane.serverMtu[serverSlot]);
        }
        final long frame = burst.address(i);
        decrementTtl(frame + p.l3Offset(i), p, i);
        setServerMacs(frame, plane, serverSlot);
        return fragments ? Verdict.transmitInFragments(egress, plane.serverMtu[serverSlot]) : Verdict.transmit(egress);
    }

    /**
     * IP-in-IP: the packet, TTL decremented, inside a new IP header from the egress port's address to the
     * real server's. The outer header's family is the server's; IPv4 outer headers copy DF and the DSCP of
     * the inner packet and apply RFC 6040's ECN rule.
     *
     * @return the verdict, or {@link #TOO_BIG} when the packet with its new header exceeds the egress MTU
     *         and may not be fragmented (the caller answers with the reduced MTU from {@link #tunnelMtu}).
     */
    int tunnel(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane, final int serverSlot)
    {
        final int egress = plane.serverEgressPort[serverSlot];
        if (egress == DataPlane.NO_PORT)
        {
            return noServerNeighbour(plane, serverSlot);
        }
        final boolean outerV6 = plane.serverV6[serverSlot];
        final int overhead = outerV6 ? IP6IP6_OVERHEAD : IPIP_OVERHEAD;
        final int l3 = p.l3Offset(i);
        final int innerLength = p.ipEnd(i) - l3;
        final boolean innerV6 = p.kind(i) == ParsedBurst.KIND_IPV6;
        // The outer IPv4 header copies the inner one's DF (writeOuterV4): without it the outer packet is fragmented, as
        // ip_vs_tunnel_xmit's output does. With pmtu_disc off an IPv4 packet is fragmented whatever its DF and the
        // outer DF is clear (ensure_mtu_is_adequate skips the check for a tunnel). An IPv6 outer packet around an IPv4
        // one that may be fragmented is split by the worker as ip6_fragment splits it (ip_vs_tunnel_xmit_v6 sets
        // ignore_df); around an IPv6 one it never is: the client gets a packet-too-big.
        final boolean pmtuDisc = plane.settings.pmtuDisc();
        final int mtu = plane.serverMtu[serverSlot];
        final boolean fragments = innerLength + overhead > mtu;
        final boolean mayFragment = pmtuDisc ? mayFragment(burst, i, p) : !innerV6;
        if (fragments && !mayFragment)
        {
            return tooBig(mtu - overhead);
        }
        long inner = burst.address(i) + l3;
        if (plane.settings.clampMss() && p.protocol(i) == Ipv4Header.PROTOCOL_TCP &&
            (p.tcpFlags(i) & L4Headers.TCP_SYN) != 0 && p.hasPorts(i))
        {
            clampMss(burst.address(i) + p.l4Offset(i), p.l4Length(i),
                mtu - overhead - (innerV6 ? Ipv6Header.LENGTH : Ipv4Header.MIN_LENGTH) -
                    L4Headers.TCP_MIN_LENGTH);
        }
        decrementTtl(inner, p, i);
        final int header = EthernetHeader.LENGTH + overhead;
        final long start;
        if (burst.headroom(i) + l3 >= header)
        {
            start = inner - header;
            burst.headroom(i, burst.headroom(i) - (header - l3));
            burst.capacity(i, burst.capacity(i) + (header - l3));
        }
        else if (burst.capacity(i) >= header + innerLength)
        {
            // No headroom: slide the IP packet up to make room at the front.
            start = burst.address(i);
            Frames.copy(inner, start + header, innerLength);
            inner = start + header;
        }
        else
        {
            return Verdict.drop(DropReason.NO_ROOM);
        }
        final long outer = start + EthernetHeader.LENGTH;
        Frames.putU16(start + EthernetHeader.TYPE_OFFSET, outerV6 ? EthernetHeader.TYPE_IPV6 : EthernetHeader.TYPE_IPV4);
        if (outerV6)
        {
            writeOuterV6(outer, inner, innerV6, innerLength, plane, egress, serverSlot);
        }
        else
        {
            writeOuterV4(outer, inner, innerV6, innerLength, plane, egress, serverSlot, pmtuDisc);
        }
        burst.address(i, start);
        burst.length(i, header + innerLength);
        setServerMacs(start, plane, serverSlot);
        return fragments ? Verdict.transmitInFragments(egress, mtu) : Verdict.transmit(egress);
    }

    /**
     * Lowers the MSS option of a SYN to what fits the tunnel, for paths where the ICMP that path MTU
     * discovery needs is filtered (the kernel does not do this; RFC 4459 describes the clamping).
     *
     * @param tcp       the TCP header.
     * @param available bytes of the segment present.
     * @param largest   the largest MSS that fits.
     */
    static void clampMss(final long tcp, final int available, final int largest)
    {
        final int headerLength = Math.min((Frames.u8(tcp + L4Headers.TCP_DATA_OFFSET_OFFSET) >>> 4) << 2, available);
        int option = L4Headers.TCP_MIN_LENGTH;
        while (option < headerLength)
        {
            final int kind = Frames.u8(tcp + option);
            if (kind == L4Headers.TCP_OPTION_END)
            {
                return;
            }
            if (kind == L4Headers.TCP_OPTION_NOP)
            {
                option++;
                continue;
            }
            if (option + 1 >= headerLength)
            {
                return;
            }
            final int length = Frames.u8(tcp + option + 1);
            if (length < 2 || option + length > headerLength)
            {
                return;
            }
            if (kind == L4Headers.TCP_OPTION_MSS && length == 4)
            {
                final int mss = Frames.u16(tcp + option + 2);
                if (mss > largest && largest > 0)
                {
                    final long field = tcp + L4Headers.TCP_CHECKSUM_OFFSET;
                    Frames.putU16(field, Checksums.update16(Frames.u16(field), mss, largest));
                    Frames.putU16(tcp + option + 2, largest);
                }
                return;
            }
            option += length;
        }
    }

    /**
     * Returned when the caller must answer with frag-needed / packet-too-big reporting {@link #tooBigMtu()}: the
     * packet exceeds the MTU of the port it would leave by and may not be fragmented.
     */
    static final int TOO_BIG = -1;

    /** @return the MTU the last {@link #TOO_BIG} verdict is about. */
    int tooBigMtu()
    {
        return tooBigMtu;
    }

    /**
     * Whether the IP packet is longer than what its egress port carries: the kernel checks every packet IPVS sends
     * (ensure_mtu_is_adequate, __mtu_check_toobig_v6, from __ip_vs_get_out_rt) and every one it forwards
     * (ip_forward's ip_exceeds_mtu), and a frame over the device's MTU may be dropped by the NIC or the next switch.
     */
    private static boolean exceedsMtu(final ParsedBurst p, final int i, final int mtu)
    {
        return p.ipEnd(i) - p.l3Offset(i) > mtu;
    }

    /**
     * @return whether a packet too big for its egress port may leave in fragments: IPv4 without DF. An IPv6 packet,
     *         or an IPv4 one with DF, is answered instead (the kernel's icmp_send(ICMP_FRAG_NEEDED) /
     *         icmpv6_send(ICMPV6_PKT_TOOBIG)), as routers do not fragment IPv6.
     */
    private static boolean mayFragment(final FrameBurst burst, final int i, final ParsedBurst p)
    {
        return p.kind(i) == ParsedBurst.KIND_IPV4 &&
            (Ipv4Header.flagsAndFragment(burst.address(i) + p.l3Offset(i)) & Ipv4Header.FLAG_DONT_FRAGMENT) == 0;
    }

    /**
     * @param mtu the largest packet the path takes.
     * @return {@link #TOO_BIG}, reporting {@code mtu}.
     */
    private int tooBig(final int mtu)
    {
        tooBigMtu = mtu;
        return TOO_BIG;
    }

    /**
     * @return the MTU towards a client: the egress port's, or the MTU of the kernel's route to the client when that
     *     route has a lower one (ip_forward holds a packet to the route's MTU).
     */
    static int clientMtu(final DataPlane plane, final int egress, final boolean v6, final long high,
        final long low)
    {
        final int routeMtu = plane.clientRouteMtus.find(v6, high, low);
        return routeMtu > 0 ? Math.min(routeMtu, plane.portMtu[egress]) : plane.portMtu[egress];
    }

    /**
     * @return the largest inner packet the tunnel to the server carries.
     */
    static int tunnelMtu(final DataPlane plane, final int serverSlot)
    {
        final boolean outerV6 = plane.serverV6[serverSlot];
        return plane.serverMtu[serverSlot] - (outerV6 ? IP6IP6_OVERHEAD : IPIP_OVERHEAD);
    }

    private void writeOuterV4(final long outer, final long inner, final boolean innerV6, final int innerLength,
        final DataPlane plane, final int egress, final int serverSlot, final boolean pmtuDisc)
    {
        final int innerTos;
        final int ttl;
        final int dontFragment;
        if (innerV6)
        {
            innerTos = (Frames.u16(inner) >>> 4) & 0xFF;
            ttl = Ipv6Header.hopLimit(inner);
            // Never DF for an IPv6 packet, as ip_vs_prepare_tunneled_skb: it fits the tunnel already (packet-too-big
            // otherwise), and a narrower path beyond fragments the outer packet rather than dropping it.
            dontFragment = 0;
        }
        else
        {
            innerTos = Frames.u8(inner + Ipv4Header.TOS_OFFSET);
            ttl = Ipv4Header.ttl(inner);
            dontFragment = Ipv4Header.flagsAndFragment(inner) & Ipv4Header.FLAG_DONT_FRAGMENT;
        }
        Frames.putU8(outer, 0x45);
        Frames.putU8(outer + Ipv4Header.TOS_OFFSET, encapsulatedTos(innerTos));
        Frames.putU16(outer + Ipv4Header.TOTAL_LENGTH_OFFSET, innerLength + IPIP_OVERHEAD);
        Frames.putU16(outer + Ipv4Header.IDENTIFICATION_OFFSET, tunnelIdentification++);
        Frames.putU16(outer + Ipv4Header.FLAGS_FRAGMENT_OFFSET, pmtuDisc ? dontFragment : 0);
        Frames.putU8(outer + Ipv4Header.TTL_OFFSET, ttl);
        Frames.putU8(outer + Ipv4Header.PROTOCOL_OFFSET, innerV6 ? Ipv4Header.PROTOCOL_IPV6 : Ipv4Header.PROTOCOL_IPIP);
        Frames.putU16(outer + Ipv4Header.CHECKSUM_OFFSET, 0);
        Frames.putI32(outer + Ipv4Header.SOURCE_OFFSET, plane.portIpv4[egress]);
        Frames.putI32(outer + Ipv4Header.DESTINATION_OFFSET, (int)plane.serverAddresses.low(serverSlot));
        Ipv4Header.checksum(outer, Checksums.ipv4HeaderChecksum(outer));
    }

    private static void writeOuterV6(final long outer, final long inner, final boolean innerV6, final int innerLength,
        final DataPlane plane, final int egress, final int serverSlot)
    {
        final int innerTos = innerV6 ? (Frames.u16(inner) >>> 4) & 0xFF : Frames.u8(inner + Ipv4Header.TOS_OFFSET);
        final int hopLimit = innerV6 ? Ipv6Header.hopLimit(inner) : Ipv4Header.ttl(inner);
        Frames.putI32(outer, 6 << 28 | encapsulatedTos(innerTos) << 20);
        Frames.putU16(outer + Ipv6Header.PAYLOAD_LENGTH_OFFSET, innerLength);
        Frames.putU8(outer + Ipv6Header.NEXT_HEADER_OFFSET, innerV6 ? Ipv4Header.PROTOCOL_IPV6 : Ipv4Header.PROTOCOL_IPIP);
        Frames.putU8(outer + Ipv6Header.HOP_LIMIT_OFFSET, hopLimit);
        Ipv6Header.source(outer, plane.portIpv6High[egress], plane.portIpv6Low[egress]);
        Ipv6Header.destination(outer, plane.serverAddresses.high(serverSlot), plane.serverAddresses.low(serverSlot));
    }

    /** RFC 6040 normal mode, as INET_ECN_encapsulate: copy the ECN field unless it is CE, then send ECT(0). */
    private static int encapsulatedTos(final int innerTos)
    {
        final int ecn = innerTos & 0x03;
        return (innerTos & ~0x03) | (ecn == 0x03 ? 0x02 : ecn);
    }

    private static void decrementTtl(final long ip, final ParsedBurst p, final int i)
    {
        if (p.kind(i) == ParsedBurst.KIND_IPV4)
        {
            Checksums.decrementTtl(ip);
        }
        else
        {
            Ipv6Header.hopLimit(ip, p.ttl(i) - 1);
        }
    }

    /**
     * @param addressChange what {@link Checksums#natAddressV4} returned for the address beside the port.
     */
    private static void rewritePortV4(final long l4, final long record, final int portOffset,
        final int addressChange, final int newPort)
    {
        switch (protocolAt(record))
        {
            case Ipv4Header.PROTOCOL_TCP ->
                Checksums.natPortV4(l4 + L4Headers.TCP_CHECKSUM_OFFSET, false, l4 + portOffset, newPort, addressChange);
            case Ipv4Header.PROTOCOL_UDP ->
                Checksums.natPortV4(l4 + L4Headers.UDP_CHECKSUM_OFFSET, true, l4 + portOffset, newPort, addressChange);
            default ->
            {
                Frames.putU16(l4 + portOffset, newPort);
                if (fragmentAt(record) == ParsedBurst.FRAGMENT_NONE)
                {
                    Crc32c.updateSctp(l4, l4LengthAt(record));
                }
            }
        }
    }

    private static void rewritePortV6(final long l4, final long record, final int portOffset,
        final long oldHigh, final long oldLow, final long newHigh, final long newLow, final int oldPort,
        final int newPort)
    {
        switch (protocolAt(record))
        {
            case Ipv4Header.PROTOCOL_TCP ->
            {
                final long field = l4 + L4Headers.TCP_CHECKSUM_OFFSET;
                Frames.putU16(field, Checksums.updateTcpV6(Frames.u16(field), oldHigh, oldLow, newHigh, newLow,
                    oldPort, newPort));
                Frames.putU16(l4 + portOffset, newPort);
            }
            case Ipv4Header.PROTOCOL_UDP ->
            {
                final long field = l4 + L4Headers.UDP_CHECKSUM_OFFSET;
                Frames.putU16(field, Checksums.updateUdpV6(Frames.u16(field), oldHigh, oldLow, newHigh, newLow,
                    oldPort, newPort));
                Frames.putU16(l4 + portOffset, newPort);
            }
            default ->
            {
                Frames.putU16(l4 + portOffset, newPort);
                if (fragmentAt(record) == ParsedBurst.FRAGMENT_NONE)
                {
                    Crc32c.updateSctp(l4, l4LengthAt(record));
                }
            }
        }
    }

    /**
     * NAT of a later fragment (no upper-layer header): the IP address only.
     */
    int natInboundFragment(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane,
        final int serverSlot)
    {
        final boolean wasPorts = p.hasPorts(i);
        p.hasPorts(i, false);
        final int verdict = natInbound(burst, i, p, plane, serverSlot, 0);
        p.hasPorts(i, wasPorts);
        return verdict;
    }

    /**
     * Writes both MAC addresses: twelve bytes in two stores.
     */
    /** The Ethernet addresses of a frame to a server that has an egress port: its next hop's, then the port's. */
    static void setServerMacs(final long frame, final DataPlane plane, final int serverSlot)
    {
        UnsafeApi.putLongUnaligned(null, frame, plane.serverMacsHead[serverSlot]);
        UnsafeApi.putIntUnaligned(null, frame + Long.BYTES, plane.serverMacsTail[serverSlot]);
    }

    static void setMacs(final long frame, final long destination, final long source)
    {
        Frames.putI64(frame, destination << 16 | source >>> 32);
        Frames.putI32(frame + 8, (int)source);
    }
}
