package io.jvs.forwarder.daemon;

import io.jvs.core.net.AddressSet;
import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;

import java.util.Set;

/**
 * Whether the AF_PACKET steal program ({@code TcPrograms.stealJvsTraffic}, tcx ingress) dropped the kernel's
 * copy of a frame jvs received, so that a frame the pipeline passes to the host must be given to it through the
 * TAP: the Java statement of the same decision over the same addresses. Stolen: a frame to a VIP, unless it is
 * an ICMP echo request or ICMPv6 neighbour discovery (the kernel answers those); else not a frame to one of the
 * box's addresses; else a frame from a real server (NAT return traffic). Everything else the kernel has.
 * <p>
 * The conductor replaces the address sets with each snapshot ({@link #update}); a worker reads them with one
 * volatile load per passed frame, which is off the forwarding path.
 */
final class StolenFrames implements HostPassPolicy
{
    private static final int ICMP_ECHO_REQUEST = 8;
    private static final int ICMPV6_ECHO_REQUEST = 128;
    private static final int ND_FIRST_TYPE = 133;
    private static final int ND_LAST_TYPE = 137;

    private record Sets(AddressSet vips, AddressSet locals, AddressSet servers)
    {
    }

    private volatile Sets sets = new Sets(new AddressSet(Set.of()), new AddressSet(Set.of()), new AddressSet(Set.of()));

    void update(final Set<IpAddress> vips, final Set<IpAddress> locals, final Set<IpAddress> servers)
    {
        sets = new Sets(new AddressSet(vips), new AddressSet(locals), new AddressSet(servers));
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
            final int headerLength = (Frames.u8(ip) & 0xF) * 4;
            if (current.vips.containsV4(Frames.i32(ip + 16)))
            {
                if (Frames.u8(ip + 9) != Ipv4Header.PROTOCOL_ICMP)
                {
                    return true;
                }
                // Echo requests, and later fragments of ICMP (which carry no type), are the kernel's.
                final boolean laterFragment = (Frames.u16(ip + 6) & 0x1FFF) != 0;
                return !laterFragment && available > headerLength && Frames.u8(ip + headerLength) != ICMP_ECHO_REQUEST;
            }
            return !current.locals.containsV4(Frames.i32(ip + 16)) && current.servers.containsV4(Frames.i32(ip + 12));
        }
        if (type == EthernetHeader.TYPE_IPV6 && available >= 40)
        {
            final long destinationHigh = Frames.i64(ip + 24);
            final long destinationLow = Frames.i64(ip + 32);
            final boolean icmp = Frames.u8(ip + 6) == Ipv4Header.PROTOCOL_ICMPV6 && available > 40;
            final int icmpType = icmp ? Frames.u8(ip + 40) : -1;
            if (icmpType >= ND_FIRST_TYPE && icmpType <= ND_LAST_TYPE)
            {
                return false;
            }
            if (current.vips.containsV6(destinationHigh, destinationLow))
            {
                return icmpType != ICMPV6_ECHO_REQUEST;
            }
            return !current.locals.containsV6(destinationHigh, destinationLow) &&
                current.servers.containsV6(Frames.i64(ip + 8), Frames.i64(ip + 16));
        }
        return false;
    }
}
