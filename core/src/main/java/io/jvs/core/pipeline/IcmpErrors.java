package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.conn.ServerAddresses;
import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Ipv6Header;
import io.jvs.core.packet.L4Headers;
import io.jvs.core.packet.ParsedBurst;
import io.jvs.core.packet.Verdict;
import io.jvs.core.stats.TrafficStats;

/**
 * ICMP and ICMPv6 errors about connections jvs carries (the kernel's ip_vs_in_icmp and
 * ip_vs_out_icmp): matched by the packet they quote, and passed on with that quote rewritten.
 * <ul>
 *   <li>Towards the real server: an error a client-side router sends to the virtual address about a
 *       reply. The quote runs from VIP:vport to the client; NAT turns the outer destination and the
 *       quoted source into the server's, DR and TUN forward the error as they forward the connection.</li>
 *   <li>Towards the client: an error a real server (NAT) sends about a request. The quote runs from the
 *       client to RIP:rport; the outer source and the quoted destination become the virtual ones.</li>
 *   <li>About a tunnelled packet: an error a router between jvs and a TUN server sends to jvs's address. It is
 *       relayed to the client as a new error about the client's packet ({@link #tunnelError}).</li>
 * </ul>
 * The quoted IP header's checksum is refreshed and the ICMP checksum recomputed over the whole
 * message; the quoted upper-layer checksum is left alone, as the kernel does (it is usually truncated).
 * An error that quotes no known connection is the host's business, unless schedule_icmp has the pipeline schedule it
 * ({@link #quoteUnmatched}).
 * <p>
 * An error about a connection is counted in IPVS's counts of its service and server as the kernel counts it: one
 * towards the server in InPkts before it is sent on (ip_vs_in_icmp calls ip_vs_in_stats before ip_vs_icmp_xmit,
 * which may yet drop it for its TTL or for want of a next hop), one towards the client in OutPkts once its TTL let
 * the kernel's ip_forward take it to the FORWARD hook (handle_response_icmp's ip_vs_out_stats). jvs's frame
 * counts leave errors out, as they leave out everything but the connections' own packets.
 */
final class IcmpErrors
{
    /** The least path MTU the kernel learns from a frag-needed: net.ipv4.route.min_pmtu's default. */
    private static final int MIN_PMTU = 552;
    /** The least MTU of IPv4 (RFC 791). */
    private static final int MIN_IPV4_MTU = 68;
    /** A connection's method in its entry: IP-in-IP. */
    private static final int TUNNEL = 2;

    private final Rewriter rewriter;
    private final TrafficStats traffic;
    private final IcmpResponder responder;
    private final PathMtuReports pathMtus;

    private int quotedProtocol;
    private long quotedSourceHigh;
    private long quotedSourceLow;
    private long quotedDestinationHigh;
    private long quotedDestinationLow;
    private int quotedSourcePort;
    private int quotedDestinationPort;
    private int quotedL4;
    /** Whether the error {@link #handle} last returned 0 for quotes a packet of no live connection (no tunnel's). */
    private boolean quoteUnmatched;

    IcmpErrors(final Rewriter rewriter, final TrafficStats traffic, final IcmpResponder responder,
        final PathMtuReports pathMtus)
    {
        this.rewriter = rewriter;
        this.traffic = traffic;
        this.responder = responder;
        this.pathMtus = pathMtus;
    }

    /**
     * @return true when the packet is an ICMP or ICMPv6 error message.
     */
    static boolean isError(final ParsedBurst p, final int i)
    {
        final int protocol = p.protocol(i);
        if (p.kind(i) == ParsedBurst.KIND_IPV4)
        {
            return protocol == Ipv4Header.PROTOCOL_ICMP && L4Headers.isIcmpError(p.sourcePort(i)) &&
                p.l4Length(i) >= L4Headers.ICMP_HEADER_LENGTH;
        }
        return protocol == Ipv4Header.PROTOCOL_ICMPV6 && L4Headers.isIcmpv6Error(p.sourcePort(i)) &&
            p.l4Length(i) >= L4Headers.ICMP_HEADER_LENGTH;
    }

    /**
     * @param countedBefore whether an earlier pass over the same frame counted it already (a frame held for its next
     *                      hop and processed again).
     * @return the verdict, or 0 when the error quotes no connection of ours.
     */
    int handle(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane,
        final ConnectionTable table, final int nowTick, final boolean countedBefore)
    {
        final long frame = burst.address(i);
        final long icmp = frame + p.l4Offset(i);
        final boolean v6 = p.kind(i) == ParsedBurst.KIND_IPV6;
        final long quote = icmp + L4Headers.ICMP_HEADER_LENGTH;
        quoteUnmatched = false;
        if (!v6 && p.l4Length(i) >= L4Headers.ICMP_HEADER_LENGTH + Ipv4Header.MIN_LENGTH &&
            Ipv4Header.version(quote) == 4 && Ipv4Header.protocol(quote) == Ipv4Header.PROTOCOL_IPIP)
        {
            // Only the errors ip_vs_in_icmp takes: a redirect or a parameter problem (its pointer into the outer
            // header) is the host's.
            final int type = Frames.u8(icmp + L4Headers.ICMP_TYPE_OFFSET);
            final boolean taken = type == L4Headers.ICMP_DESTINATION_UNREACHABLE ||
                type == L4Headers.ICMP_SOURCE_QUENCH || type == L4Headers.ICMP_TIME_EXCEEDED;
            return taken ? tunnelError(burst, i, p, plane, table, nowTick, countedBefore) : 0;
        }
        if (!parseQuote(icmp + L4Headers.ICMP_HEADER_LENGTH, p.l4Length(i) - L4Headers.ICMP_HEADER_LENGTH, v6))
        {
            return 0;
        }
        int slot = table.lookupForward(quotedProtocol, quotedDestinationHigh, quotedDestinationLow,
            quotedDestinationPort, quotedSourceHigh, quotedSourceLow, quotedSourcePort);
        if (slot >= 0 && !table.isExpired(slot, nowTick))
        {
            return towardsServer(burst, i, p, plane, table.server(slot), table.method(slot), table.portKey(slot), v6,
                countedBefore);
        }
        slot = table.lookupReverse(quotedProtocol, quotedSourceHigh, quotedSourceLow, quotedSourcePort,
            quotedDestinationHigh, quotedDestinationLow, quotedDestinationPort, plane.serverAddresses);
        if (slot >= 0 && !table.isExpired(slot, nowTick) && table.method(slot) == 0)
        {
            return towardsClient(burst, i, p, plane, table, slot, v6, countedBefore);
        }
        quoteUnmatched = true;
        return 0;
    }

    /**
     * @return whether the error {@link #handle} last returned 0 for quotes a TCP, UDP or SCTP packet of no live
     *         connection (not a tunnelled one), whose ends the {@code quoted...} accessors give: one that schedule_icmp
     *         may schedule.
     */
    boolean quoteUnmatched()
    {
        return quoteUnmatched;
    }

    /** @return the quoted packet's protocol. */
    int quotedProtocol()
    {
        return quotedProtocol;
    }

    /** @return the quoted packet's source address, first 64 bits (0 for IPv4): a reply's, the virtual address. */
    long quotedSourceHigh()
    {
        return quotedSourceHigh;
    }

    /** @return the quoted packet's source address, last 64 bits or the IPv4 address. */
    long quotedSourceLow()
    {
        return quotedSourceLow;
    }

    /** @return the quoted packet's source port. */
    int quotedSourcePort()
    {
        return quotedSourcePort;
    }

    /** @return the quoted packet's destination address, first 64 bits (0 for IPv4): a reply's, the client. */
    long quotedDestinationHigh()
    {
        return quotedDestinationHigh;
    }

    /** @return the quoted packet's destination address, last 64 bits or the IPv4 address. */
    long quotedDestinationLow()
    {
        return quotedDestinationLow;
    }

    /** @return the quoted packet's destination port. */
    int quotedDestinationPort()
    {
        return quotedDestinationPort;
    }

    /**
     * An error a router on the way to a real server sent about a packet jvs tunnelled to it (the quote is an IP-in-IP
     * packet from one of jvs's addresses): relayed to the client as an error about its own packet, from the virtual
     * address, as IPVS's ip_vs_in_icmp does for its tunnels, so that the client's path MTU discovery learns the
     * tunnel's path. A frag-needed reports the MTU the router gave (or the route's, when less; at least 552, the
     * kernel's min_pmtu) less the outer header, and only for a packet with DF (without, the client does not discover
     * the path: the kernel keeps the error to itself); either way that MTU is reported for the server's later packets
     * ({@link PathMtuReports}). The error is counted in OutPkts of the connection's service and
     * server, as ip_vs_out_stats.
     *
     * @return the verdict, or 0 when the error is about no tunnelled connection of ours.
     */
    private int tunnelError(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane,
        final ConnectionTable table, final int nowTick, final boolean countedBefore)
    {
        final long icmp = burst.address(i) + p.l4Offset(i);
        final long outer = icmp + L4Headers.ICMP_HEADER_LENGTH;
        final int available = p.l4Length(i) - L4Headers.ICMP_HEADER_LENGTH;
        final int outerLength = Ipv4Header.headerLength(outer);
        // A later fragment of the outer packet quotes no inner header (ip_vs_in_icmp leaves it to the host too).
        if (outerLength < Ipv4Header.MIN_LENGTH || outerLength > available ||
            (Ipv4Header.flagsAndFragment(outer) & Ipv4Header.FRAGMENT_OFFSET_MASK) != 0 ||
            !isOwnAddress(plane, Ipv4Header.source(outer)))
        {
            return 0;
        }
        final long inner = outer + outerLength;
        if (!parseQuote(inner, available - outerLength, false))
        {
            return 0;
        }
        // The quoted packet is the client's request as it reached jvs: client to VIP.
        final int slot = table.lookupForward(quotedProtocol, quotedSourceHigh, quotedSourceLow, quotedSourcePort,
            quotedDestinationHigh, quotedDestinationLow, quotedDestinationPort);
        if (slot < 0 || table.isExpired(slot, nowTick) || table.method(slot) != TUNNEL)
        {
            return 0;
        }
        final int serverSlot = table.server(slot);
        final int type = Frames.u8(icmp + L4Headers.ICMP_TYPE_OFFSET);
        final int code = Frames.u8(icmp + L4Headers.ICMP_CODE_OFFSET);
        int rest = Frames.i32(icmp + L4Headers.ICMP_REST_OFFSET);
        if (type == L4Headers.ICMP_DESTINATION_UNREACHABLE && code == L4Headers.ICMP_CODE_FRAGMENTATION_NEEDED)
        {
            // The path MTU the kernel would keep for the route to the server (__ip_rt_update_pmtu): the router's, but
            // never above the route's, and never below min_pmtu (552) unless the route's is (an old router's 0 too).
            final int reported = rest & 0xFFFF;
            final int routeMtu = plane.serverMtu[serverSlot];
            int mtu = reported < MIN_PMTU ? Math.min(routeMtu, MIN_PMTU) : Math.min(reported, routeMtu);
            if (mtu < routeMtu)
            {
                // Kept for the server's later packets, whatever this one's DF, as ipv4_update_pmtu comes first.
                pathMtus.record(Ipv4Header.destination(outer), mtu);
            }
            if ((Ipv4Header.flagsAndFragment(inner) & Ipv4Header.FLAG_DONT_FRAGMENT) == 0)
            {
                return 0;
            }
            if (mtu > MIN_IPV4_MTU + Ipv4Header.MIN_LENGTH)
            {
                mtu -= Ipv4Header.MIN_LENGTH;
            }
            rest = mtu;
        }
        // Counted before its next hop is looked for, once, as ip_vs_out_stats counts before the transmit.
        final int quotedLength = available - outerLength;
        if (!countedBefore)
        {
            traffic.out(plane.serverService[serverSlot], serverSlot, quotedLength);
        }
        final long hop = plane.clientNeighbours.find(false, 0, quotedSourceLow);
        if (hop == NeighbourIndex.NONE)
        {
            // The kernel is asked to resolve the client (its gateway): a TUN box sends nothing else to clients, so
            // nothing else would.
            return rewriter.noClientNeighbour(false, 0, quotedSourceLow);
        }
        if (responder.relay(burst, i, plane, inner, quotedLength, type, code, rest, (int)quotedDestinationLow,
            (int)quotedSourceLow, hop) != IcmpResponder.SENT)
        {
            return Verdict.drop(DropReason.NO_ROOM);
        }
        return Verdict.transmit(NeighbourIndex.port(hop));
    }

    private static boolean isOwnAddress(final DataPlane plane, final int address)
    {
        for (final int own : plane.portIpv4)
        {
            if (own != 0 && own == address)
            {
                return true;
            }
        }
        return false;
    }

    private boolean parseQuote(final long quote, final int available, final boolean v6)
    {
        final int headerLength;
        if (!v6)
        {
            if (available < Ipv4Header.MIN_LENGTH || Ipv4Header.version(quote) != 4)
            {
                return false;
            }
            headerLength = Ipv4Header.headerLength(quote);
            if (headerLength < Ipv4Header.MIN_LENGTH || headerLength > available)
            {
                return false;
            }
            quotedProtocol = Ipv4Header.protocol(quote);
            quotedSourceHigh = 0;
            quotedSourceLow = Ipv4Header.source(quote) & 0xFFFF_FFFFL;
            quotedDestinationHigh = 0;
            quotedDestinationLow = Ipv4Header.destination(quote) & 0xFFFF_FFFFL;
        }
        else
        {
            if (available < Ipv6Header.LENGTH || Ipv6Header.version(quote) != 6)
            {
                return false;
            }
            headerLength = Ipv6Header.LENGTH;
            quotedProtocol = Ipv6Header.nextHeader(quote);
            quotedSourceHigh = Ipv6Header.sourceHigh(quote);
            quotedSourceLow = Ipv6Header.sourceLow(quote);
            quotedDestinationHigh = Ipv6Header.destinationHigh(quote);
            quotedDestinationLow = Ipv6Header.destinationLow(quote);
        }
        if (quotedProtocol != Ipv4Header.PROTOCOL_TCP && quotedProtocol != Ipv4Header.PROTOCOL_UDP &&
            quotedProtocol != Ipv4Header.PROTOCOL_SCTP || headerLength + 4 > available)
        {
            return false;
        }
        quotedL4 = headerLength;
        quotedSourcePort = Frames.u16(quote + headerLength + L4Headers.SOURCE_PORT_OFFSET);
        quotedDestinationPort = Frames.u16(quote + headerLength + L4Headers.DESTINATION_PORT_OFFSET);
        return true;
    }

    /**
     * Sends an error about a reply on to the server of its connection, as that connection's packets go.
     *
     * @param serverSlot the connection's server.
     * @param method     the connection's method (0 NAT, 1 DR, 2 TUN).
     * @param portKey    the connection's virtual port with its flags, as {@link ConnectionTable#portKey} gives it.
     * @return the verdict.
     */
    int towardsServer(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane,
        final int serverSlot, final int method, final int portKey, final boolean v6, final boolean countedBefore)
    {
        if (!countedBefore)
        {
            traffic.in(plane.serverService[serverSlot], serverSlot, p.ipEnd(i) - p.l3Offset(i));
        }
        if (p.ttl(i) <= 1)
        {
            return Verdict.drop(DropReason.TTL_EXPIRED);
        }
        switch (method)
        {
            case 0 ->
            {
                final long frame = burst.address(i);
                final long icmp = frame + p.l4Offset(i);
                final long quote = icmp + L4Headers.ICMP_HEADER_LENGTH;
                final ServerAddresses servers = plane.serverAddresses;
                final int realPort = servers.port(serverSlot, portKey);
                // The quoted packet went from VIP:vport: it now goes from RIP:rport.
                rewriteQuotedEndpoint(quote, v6, Ipv4Header.SOURCE_OFFSET, Ipv6Header.SOURCE_OFFSET,
                    L4Headers.SOURCE_PORT_OFFSET, servers.high(serverSlot), servers.low(serverSlot), realPort);
                // The outer destination becomes the server's, as for any NAT packet, without touching ports.
                final boolean hadPorts = p.hasPorts(i);
                p.hasPorts(i, false);
                final int verdict = rewriter.natInbound(burst, i, p, plane, serverSlot, 0);
                p.hasPorts(i, hadPorts);
                refreshIcmpChecksum(burst.address(i), p, i, v6);
                return dropIfTooBig(verdict);
            }
            case 1 ->
            {
                return dropIfTooBig(rewriter.directRoute(burst, i, p, plane, serverSlot));
            }
            default ->
            {
                return dropIfTooBig(rewriter.tunnel(burst, i, p, plane, serverSlot));
            }
        }
    }

    private int towardsClient(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane plane,
        final ConnectionTable table, final int slot, final boolean v6, final boolean countedBefore)
    {
        if (p.ttl(i) <= 1)
        {
            return Verdict.drop(DropReason.TTL_EXPIRED);
        }
        if (!countedBefore)
        {
            final int serverSlot = table.server(slot);
            traffic.out(plane.serverService[serverSlot], serverSlot, p.ipEnd(i) - p.l3Offset(i));
        }
        final long frame = burst.address(i);
        final long quote = frame + p.l4Offset(i) + L4Headers.ICMP_HEADER_LENGTH;
        final long virtualHigh = table.virtualHigh(slot);
        final long virtualLow = table.virtualLow(slot);
        // The quoted packet went to RIP:rport: it now goes to VIP:vport.
        rewriteQuotedEndpoint(quote, v6, Ipv4Header.DESTINATION_OFFSET, Ipv6Header.DESTINATION_OFFSET,
            L4Headers.DESTINATION_PORT_OFFSET, virtualHigh, virtualLow, table.virtualPort(slot));
        final boolean hadPorts = p.hasPorts(i);
        p.hasPorts(i, false);
        final int verdict = rewriter.natOutbound(burst, i, p, plane, virtualHigh, virtualLow, 0);
        p.hasPorts(i, hadPorts);
        refreshIcmpChecksum(frame, p, i, v6);
        return dropIfTooBig(verdict);
    }

    /** An ICMP error too big for its egress port is dropped: no ICMP error answers one (icmp_send's rule). */
    private static int dropIfTooBig(final int verdict)
    {
        return verdict == Rewriter.TOO_BIG ? Verdict.drop(DropReason.MTU_EXCEEDED) : verdict;
    }

    private void rewriteQuotedEndpoint(final long quote, final boolean v6, final int v4Offset, final int v6Offset,
        final int portOffset, final long high, final long low, final int port)
    {
        if (!v6)
        {
            Frames.putI32(quote + v4Offset, (int)low);
            Ipv4Header.checksum(quote, 0);
            Ipv4Header.checksum(quote, Checksums.ipv4HeaderChecksum(quote));
        }
        else
        {
            Frames.putI64(quote + v6Offset, high);
            Frames.putI64(quote + v6Offset + 8, low);
        }
        Frames.putU16(quote + quotedL4 + portOffset, port);
    }

    private static void refreshIcmpChecksum(final long frame, final ParsedBurst p, final int i, final boolean v6)
    {
        final long icmp = frame + p.l4Offset(i);
        final int length = p.l4Length(i);
        Frames.putU16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET, 0);
        if (!v6)
        {
            Frames.putU16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET, Checksums.checksum(icmp, length));
        }
        else
        {
            Frames.putU16(icmp + L4Headers.ICMP_CHECKSUM_OFFSET, Checksums.transportChecksumV6(
                frame + p.l3Offset(i) + Ipv6Header.SOURCE_OFFSET, Ipv4Header.PROTOCOL_ICMPV6, icmp, length));
        }
    }
}
