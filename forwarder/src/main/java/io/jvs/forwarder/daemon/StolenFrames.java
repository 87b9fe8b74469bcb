package io.jvs.forwarder.daemon;

import io.jvs.core.net.AddressSet;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.net.PrefixSet;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;

import java.util.Set;

/**
 * Whether the AF_PACKET steal program ({@code TcPrograms.stealJvsTraffic}, tcx ingress) dropped the kernel's
 * copy of a frame jvs received, so that a frame the pipeline passes to the host must be given to it through the
 * TAP: the Java statement of the same decision ({@code JvsTrafficRule}) over the same addresses, in the same
 * order. Stolen: a frame to a VIP, unless it is an ICMP echo request or ICMPv6 neighbour discovery (the kernel
 * answers those); else not a frame to one of the box's addresses; else a frame from a real server (NAT return
 * traffic); else a frame to an address of a destination prefix (a {@code mark} statement's network), with the
 * VIP's exceptions; else a frame from an address of a source prefix. Everything else the kernel has. The
 * prefixes are looked up only when the address sets have not decided, as the program consults its LPM tries
 * only when its hash maps miss.
 * <p>
 * The conductor replaces the address sets with each snapshot ({@link #update}); a worker reads them with one
 * volatile load per passed frame, which is off the forwarding path.
 */
final class StolenFrames implements HostPassPolicy
{
    private static final int ICMP_ECHO_REQUEST = 8;
    private static final int ICMPV6_ECHO_REQUEST = 128;
    private static final int ND_FIRST_TYPE = 133;
    private static final int NEXTHDR_FRAGMENT = 44;
    private static final int ND_LAST_TYPE = 137;

    private record Sets(AddressSet vips, AddressSet locals, AddressSet servers, PrefixSet destinations,
                        PrefixSet sources)
    {
    }

    private volatile Sets sets = new Sets(new AddressSet(Set.of()), new AddressSet(Set.of()), new AddressSet(Set.of()),
        PrefixSet.EMPTY, PrefixSet.EMPTY);

    void update(final Set<IpAddress> vips, final Set<IpAddress> locals, final Set<IpAddress> servers)
    {
        update(vips, locals, servers, Set.of(), Set.of());
    }

    /**
     * @param destinationPrefixes networks whose destinations are stolen as a VIP's (after the address sets).
     * @param sourcePrefixes      networks whose sources are stolen as a real server's (after the address sets).
     */
    void update(final Set<IpAddress> vips, final Set<IpAddress> locals, final Set<IpAddress> servers,
        final Set<IpPrefix> destinationPrefixes, final Set<IpPrefix> sourcePrefixes)
    {
        sets = new Sets(new AddressSet(vips), new AddressSet(locals), new AddressSet(servers),
            new PrefixSet(destinationPrefixes), new PrefixSet(sourcePrefixes));
    }

    @Override
    public boolean hostMissed(final long frame, final int length)
    {
        int offset = EthernetHeader.TYPE_OFFSET;
        if (length < offset + 2)
        {
            return false;
        }
        int type = Frames.u16(frame + offset);
        for (int tags = 0; EthernetHeader.isVlanTag(type) && tags < 2; tags++)
        {
            offset += EthernetHeader.TAG_LENGTH;
            if (length < offset + 2)
            {
                return false;
            }
            type = Frames.u16(frame + offset);
        }
        final long ip = frame + offset + 2;
        final int available = length - offset - 2;
        final Sets current = sets;
        if (type == EthernetHeader.TYPE_IPV4 && available >= 20)
        {
            return stolenV4(current, ip, available);
        }
        if (type == EthernetHeader.TYPE_IPV6 && available >= 40)
        {
            return stolenV6(current, ip, available);
        }
        return false;
    }

    private static boolean stolenV4(final Sets current, final long ip, final int available)
    {
        final int destination = Frames.i32(ip + 16);
        final int source = Frames.i32(ip + 12);
        final boolean firstIcmpFragment = Frames.u8(ip + 9) == Ipv4Header.PROTOCOL_ICMP &&
            (Frames.u16(ip + 6) & 0x1FFF) == 0;
        if (firstIcmpFragment && available <= (Frames.u8(ip) & 0xF) * 4)
        {
            // The program reads the type before any lookup and leaves a message cut short before it to the kernel.
            return false;
        }
        if (current.vips.containsV4(destination))
        {
            return !isEchoRequestV4(ip, available);
        }
        if (current.locals.containsV4(destination))
        {
            return isTunnelErrorV4(ip, available);
        }
        if (current.servers.containsV4(source))
        {
            return true;
        }
        if (current.destinations.containsV4(destination))
        {
            return !isEchoRequestV4(ip, available);
        }
        return current.sources.containsV4(source);
    }

    /**
     * An ICMP destination unreachable, source quench or time exceeded, not a later fragment, quoting IP in IP (as
     * much of the quoted header as holds its protocol): a router's error about a packet jvs tunnelled, jvs's even to
     * the box's own address, as the programs decide.
     */
    private static boolean isTunnelErrorV4(final long ip, final int available)
    {
        if (Frames.u8(ip + 9) != Ipv4Header.PROTOCOL_ICMP || (Frames.u16(ip + 6) & 0x1FFF) != 0)
        {
            return false;
        }
        final int icmp = (Frames.u8(ip) & 0xF) * 4;
        if (available < icmp + 8 + 10)
        {
            return false;
        }
        final int type = Frames.u8(ip + icmp);
        return (type == 3 || type == 4 || type == 11) && Frames.u8(ip + icmp + 8 + 9) == Ipv4Header.PROTOCOL_IPIP;
    }

    /**
     * An echo request, a later fragment of ICMP (which carries no type), or an ICMP message cut short before its
     * type: the kernel's, even to a VIP.
     */
    private static boolean isEchoRequestV4(final long ip, final int available)
    {
        if (Frames.u8(ip + 9) != Ipv4Header.PROTOCOL_ICMP)
        {
            return false;
        }
        final int headerLength = (Frames.u8(ip) & 0xF) * 4;
        final boolean laterFragment = (Frames.u16(ip + 6) & 0x1FFF) != 0;
        return laterFragment || available <= headerLength || Frames.u8(ip + headerLength) == ICMP_ECHO_REQUEST;
    }

    private static boolean stolenV6(final Sets current, final long ip, final int available)
    {
        final long destinationHigh = Frames.i64(ip + 24);
        final long destinationLow = Frames.i64(ip + 32);
        final long sourceHigh = Frames.i64(ip + 8);
        final long sourceLow = Frames.i64(ip + 16);
        final int nextHeader = Frames.u8(ip + 6);
        if (nextHeader == NEXTHDR_FRAGMENT)
        {
            return stolenV6Fragment(current, ip, available);
        }
        final boolean icmp = nextHeader == Ipv4Header.PROTOCOL_ICMPV6;
        if (icmp && available <= 40)
        {
            return false;
        }
        final int icmpType = icmp ? Frames.u8(ip + 40) : -1;
        if (icmpType >= ND_FIRST_TYPE && icmpType <= ND_LAST_TYPE)
        {
            return false;
        }
        if (current.vips.containsV6(destinationHigh, destinationLow))
        {
            return icmpType != ICMPV6_ECHO_REQUEST;
        }
        if (current.locals.containsV6(destinationHigh, destinationLow))
        {
            return false;
        }
        if (current.servers.containsV6(sourceHigh, sourceLow))
        {
            return true;
        }
        if (current.destinations.containsV6(destinationHigh, destinationLow))
        {
            return icmpType != ICMPV6_ECHO_REQUEST;
        }
        return current.sources.containsV6(sourceHigh, sourceLow);
    }

    /**
     * A fragment header directly after the IPv6 header (cut short: the kernel's): a first fragment of an ICMPv6
     * echo request, or any later fragment of ICMPv6 (no type), is the kernel's as an echo request is.
     */
    private static boolean stolenV6Fragment(final Sets current, final long ip, final int available)
    {
        if (available < 48)
        {
            return false;
        }
        boolean echoRequest = false;
        if (Frames.u8(ip + 40) == Ipv4Header.PROTOCOL_ICMPV6)
        {
            if ((Frames.u16(ip + 42) & 0xFFF8) != 0)
            {
                echoRequest = true;
            }
            else if (available <= 48)
            {
                return false;
            }
            else
            {
                echoRequest = Frames.u8(ip + 48) == ICMPV6_ECHO_REQUEST;
            }
        }
        final long destinationHigh = Frames.i64(ip + 24);
        final long destinationLow = Frames.i64(ip + 32);
        if (current.vips.containsV6(destinationHigh, destinationLow))
        {
            return !echoRequest;
        }
        if (current.locals.containsV6(destinationHigh, destinationLow))
        {
            return false;
        }
        final long sourceHigh = Frames.i64(ip + 8);
        final long sourceLow = Frames.i64(ip + 16);
        if (current.servers.containsV6(sourceHigh, sourceLow))
        {
            return true;
        }
        if (current.destinations.containsV6(destinationHigh, destinationLow))
        {
            return !echoRequest;
        }
        return current.sources.containsV6(sourceHigh, sourceLow);
    }
}
