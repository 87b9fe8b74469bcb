package io.jvs.nativebindings.netlink;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import io.jvs.nativebindings.Sockets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

/**
 * Decodes rtnetlink messages into {@link Link}, {@link Address}, {@link Route}, {@link Neighbour} and
 * {@link NetlinkEvent}s. Every read is checked against the message's bounds and every length against what it
 * must hold; attributes it does not know are skipped. A message that does not hold together throws a
 * {@link NetlinkFormatException} naming what was wrong, never reads past its end.
 * <p>
 * Messages are given as a segment, the offset of their {@code nlmsghdr} and their {@code nlmsg_len}, which
 * {@link #messageLength} has checked against the datagram.
 */
final class RtnetlinkParser
{
    private static final int RTNH_FLAGS = Rtnetlink.RTNH_F_DEAD | Rtnetlink.RTNH_F_ONLINK | Rtnetlink.RTNH_F_LINKDOWN;
    private static final InetAddress ANY_V4 =
        AttributeCursor.address(MemorySegment.ofArray(new byte[4]), 0, 4, Sockets.AF_INET, () -> "0.0.0.0");
    private static final InetAddress ANY_V6 =
        AttributeCursor.address(MemorySegment.ofArray(new byte[16]), 0, 16, Sockets.AF_INET6, () -> "::");

    private RtnetlinkParser()
    {
    }

    /**
     * Checks the header of the message at {@code offset} of a datagram that ends at {@code end}.
     *
     * @return its {@code nlmsg_len}; the next message starts at that length rounded up to 4 bytes.
     * @throws NetlinkFormatException when fewer bytes than a header remain, or its length is less than a header or
     *                                more than remain.
     */
    static int messageLength(final MemorySegment segment, final long offset, final long end)
    {
        final long remaining = end - offset;
        if (remaining < NlMsgHdr.SIZE)
        {
            throw new NetlinkFormatException("the datagram ends with " + remaining + " bytes at offset " + offset +
                ", less than a message header");
        }
        final long length = Integer.toUnsignedLong(segment.get(JAVA_INT_UNALIGNED, offset + NlMsgHdr.LEN_OFFSET));
        if (length < NlMsgHdr.SIZE || length > remaining)
        {
            throw new NetlinkFormatException(Rtnetlink.typeName(type(segment, offset)) + " at offset " + offset +
                " has length " + length + " but " + remaining + " bytes remain of the datagram (truncated?)");
        }
        return (int)length;
    }

    static int type(final MemorySegment segment, final long offset)
    {
        return Short.toUnsignedInt(segment.get(JAVA_SHORT_UNALIGNED, offset + NlMsgHdr.TYPE_OFFSET));
    }

    static int flags(final MemorySegment segment, final long offset)
    {
        return Short.toUnsignedInt(segment.get(JAVA_SHORT_UNALIGNED, offset + NlMsgHdr.FLAGS_OFFSET));
    }

    static int sequence(final MemorySegment segment, final long offset)
    {
        return segment.get(JAVA_INT_UNALIGNED, offset + NlMsgHdr.SEQ_OFFSET);
    }

    /**
     * @return the notification as an event, or null for a message jvs does not follow (other types, or families
     * other than IPv4 and IPv6, such as the bridge's AF_BRIDGE link and FDB messages).
     */
    static NetlinkEvent event(final MemorySegment segment, final long offset, final int length)
    {
        final int type = type(segment, offset);
        switch (type)
        {
            case Rtnetlink.RTM_NEWLINK, Rtnetlink.RTM_DELLINK ->
            {
                final Link link = link(segment, offset, length);
                return link == null ? null : type == Rtnetlink.RTM_NEWLINK ?
                    new NetlinkEvent.LinkChanged(link) : new NetlinkEvent.LinkRemoved(link);
            }
            case Rtnetlink.RTM_NEWADDR, Rtnetlink.RTM_DELADDR ->
            {
                final Address address = address(segment, offset, length);
                return address == null ? null : type == Rtnetlink.RTM_NEWADDR ?
                    new NetlinkEvent.AddressAdded(address) : new NetlinkEvent.AddressRemoved(address);
            }
            case Rtnetlink.RTM_NEWROUTE, Rtnetlink.RTM_DELROUTE ->
            {
                final Route route = route(segment, offset, length);
                return route == null ? null : type == Rtnetlink.RTM_NEWROUTE ?
                    new NetlinkEvent.RouteAdded(route, (flags(segment, offset) & Rtnetlink.NLM_F_REPLACE) != 0) :
                    new NetlinkEvent.RouteRemoved(route);
            }
            case Rtnetlink.RTM_NEWNEIGH, Rtnetlink.RTM_DELNEIGH ->
            {
                final Neighbour neighbour = neighbour(segment, offset, length);
                return neighbour == null ? null : type == Rtnetlink.RTM_NEWNEIGH ?
                    new NetlinkEvent.NeighbourChanged(neighbour) : new NetlinkEvent.NeighbourRemoved(neighbour);
            }
            default ->
            {
                return null;
            }
        }
    }

    /**
     * @return the RTM_NEWLINK or RTM_DELLINK as a link, or null when it is not of AF_UNSPEC (the bridge sends
     * AF_BRIDGE messages about its ports to the same group).
     */
    static Link link(final MemorySegment segment, final long offset, final int length)
    {
        final String context = context(segment, offset);
        final long header = fixedPart(segment, offset, length, IfInfoMsg.SIZE, context);
        if (u8(segment, header + IfInfoMsg.FAMILY_OFFSET) != 0)
        {
            return null;
        }
        final int type = Short.toUnsignedInt(segment.get(JAVA_SHORT_UNALIGNED, header + IfInfoMsg.TYPE_OFFSET));
        final int index = segment.get(JAVA_INT_UNALIGNED, header + IfInfoMsg.INDEX_OFFSET);
        final int flags = segment.get(JAVA_INT_UNALIGNED, header + IfInfoMsg.FLAGS_OFFSET);
        String name = "";
        long mac = Link.NO_MAC;
        int mtu = 0;
        String kind = null;
        final AttributeCursor attributes = new AttributeCursor(segment, offset,
            header + Rtnetlink.align(IfInfoMsg.SIZE), offset + length, context);
        while (attributes.next())
        {
            switch (attributes.type())
            {
                case Rtnetlink.IFLA_IFNAME -> name = attributes.string();
                case Rtnetlink.IFLA_ADDRESS -> mac = attributes.mac();
                case Rtnetlink.IFLA_MTU -> mtu = attributes.u32();
                case Rtnetlink.IFLA_LINKINFO ->
                {
                    final AttributeCursor info = attributes.nested();
                    while (info.next())
                    {
                        if (info.type() == Rtnetlink.IFLA_INFO_KIND)
                        {
                            kind = info.string();
                        }
                    }
                }
                default ->
                {
                    // Statistics, queues, XDP, alternative names...: not jvs's business.
                }
            }
        }
        return new Link(index, name, type, flags, mac, mtu, kind);
    }

    /**
     * @return the RTM_NEWADDR or RTM_DELADDR as an address, or null when it is not IPv4 or IPv6.
     */
    static Address address(final MemorySegment segment, final long offset, final int length)
    {
        final String context = context(segment, offset);
        final long header = fixedPart(segment, offset, length, IfAddrMsg.SIZE, context);
        final int family = u8(segment, header + IfAddrMsg.FAMILY_OFFSET);
        if (AttributeCursor.addressLength(family) < 0)
        {
            return null;
        }
        final int prefixLength = prefixLength(family, u8(segment, header + IfAddrMsg.PREFIXLEN_OFFSET), context);
        int flags = u8(segment, header + IfAddrMsg.FLAGS_OFFSET);
        final int scope = u8(segment, header + IfAddrMsg.SCOPE_OFFSET);
        final int index = segment.get(JAVA_INT_UNALIGNED, header + IfAddrMsg.INDEX_OFFSET);
        InetAddress address = null;
        InetAddress local = null;
        final AttributeCursor attributes = new AttributeCursor(segment, offset,
            header + Rtnetlink.align(IfAddrMsg.SIZE), offset + length, context);
        while (attributes.next())
        {
            switch (attributes.type())
            {
                case Rtnetlink.IFA_ADDRESS -> address = attributes.address(family);
                case Rtnetlink.IFA_LOCAL -> local = attributes.address(family);
                case Rtnetlink.IFA_FLAGS -> flags = attributes.u32();
                default ->
                {
                    // Label, broadcast, cache information: not needed.
                }
            }
        }
        if (local == null && address == null)
        {
            throw new NetlinkFormatException(context + " at offset " + offset +
                " has neither IFA_LOCAL nor IFA_ADDRESS");
        }
        return new Address(index, family, local != null ? local : address, prefixLength, scope, flags);
    }

    /**
     * @return the RTM_NEWROUTE or RTM_DELROUTE as a route, or null when it is not IPv4 or IPv6.
     */
    static Route route(final MemorySegment segment, final long offset, final int length)
    {
        final String context = context(segment, offset);
        final long header = fixedPart(segment, offset, length, RtMsg.SIZE, context);
        final int family = u8(segment, header + RtMsg.FAMILY_OFFSET);
        if (AttributeCursor.addressLength(family) < 0)
        {
            return null;
        }
        final int prefixLength = prefixLength(family, u8(segment, header + RtMsg.DST_LEN_OFFSET), context);
        int table = u8(segment, header + RtMsg.TABLE_OFFSET);
        final int protocol = u8(segment, header + RtMsg.PROTOCOL_OFFSET);
        final int scope = u8(segment, header + RtMsg.SCOPE_OFFSET);
        final int type = u8(segment, header + RtMsg.TYPE_OFFSET);
        final int flags = segment.get(JAVA_INT_UNALIGNED, header + RtMsg.FLAGS_OFFSET);
        InetAddress destination = null;
        InetAddress gateway = null;
        InetAddress preferredSource = null;
        int outputIndex = 0;
        int priority = 0;
        int mtu = 0;
        List<NextHop> nextHops = List.of();
        final AttributeCursor attributes = new AttributeCursor(segment, offset,
            header + Rtnetlink.align(RtMsg.SIZE), offset + length, context);
        while (attributes.next())
        {
            switch (attributes.type())
            {
                case Rtnetlink.RTA_DST -> destination = attributes.address(family);
                case Rtnetlink.RTA_GATEWAY -> gateway = attributes.address(family);
                case Rtnetlink.RTA_VIA -> gateway = via(segment, attributes);
                case Rtnetlink.RTA_OIF -> outputIndex = attributes.u32();
                case Rtnetlink.RTA_PRIORITY -> priority = attributes.u32();
                case Rtnetlink.RTA_PREFSRC -> preferredSource = attributes.address(family);
                case Rtnetlink.RTA_TABLE -> table = attributes.u32();
                case Rtnetlink.RTA_METRICS ->
                {
                    final AttributeCursor metrics = attributes.nested();
                    while (metrics.next())
                    {
                        if (metrics.type() == Rtnetlink.RTAX_MTU)
                        {
                            mtu = metrics.u32();
                        }
                    }
                }
                case Rtnetlink.RTA_MULTIPATH -> nextHops = nextHops(segment, offset, family, attributes, context);
                default ->
                {
                    // Cache information, preference, expiry, uid, encapsulation...: not needed.
                }
            }
        }
        if (destination == null)
        {
            destination = anyAddress(family);
        }
        return new Route(family, table, type, protocol, scope, flags, destination, prefixLength, gateway, outputIndex,
            priority, preferredSource, mtu, nextHops);
    }

    /**
     * @return the RTM_NEWNEIGH or RTM_DELNEIGH as a neighbour, or null when it is not IPv4 or IPv6 (the bridge's
     * forwarding database is sent to the same group as AF_BRIDGE).
     */
    static Neighbour neighbour(final MemorySegment segment, final long offset, final int length)
    {
        final String context = context(segment, offset);
        final long header = fixedPart(segment, offset, length, NdMsg.SIZE, context);
        final int family = u8(segment, header + NdMsg.FAMILY_OFFSET);
        if (AttributeCursor.addressLength(family) < 0)
        {
            return null;
        }
        final int index = segment.get(JAVA_INT_UNALIGNED, header + NdMsg.IFINDEX_OFFSET);
        final int state = Short.toUnsignedInt(segment.get(JAVA_SHORT_UNALIGNED, header + NdMsg.STATE_OFFSET));
        final int flags = u8(segment, header + NdMsg.FLAGS_OFFSET);
        final int type = u8(segment, header + NdMsg.TYPE_OFFSET);
        InetAddress address = null;
        long mac = Link.NO_MAC;
        final AttributeCursor attributes = new AttributeCursor(segment, offset,
            header + Rtnetlink.align(NdMsg.SIZE), offset + length, context);
        while (attributes.next())
        {
            switch (attributes.type())
            {
                case Rtnetlink.NDA_DST -> address = attributes.address(family);
                case Rtnetlink.NDA_LLADDR -> mac = attributes.mac();
                default ->
                {
                    // Probes, cache information, protocol: not needed.
                }
            }
        }
        if (address == null)
        {
            throw new NetlinkFormatException(context + " at offset " + offset + " has no NDA_DST");
        }
        return new Neighbour(family, index, address, mac, state, flags, type);
    }

    /**
     * @return the error of an NLMSG_ERROR: 0 for an acknowledgement, else a negative errno.
     */
    static int error(final MemorySegment segment, final long offset, final int length)
    {
        if (length < NlMsgHdr.SIZE + 4)
        {
            throw new NetlinkFormatException(context(segment, offset) + " at offset " + offset + " has " + length +
                " bytes, too few for its error code");
        }
        return segment.get(JAVA_INT_UNALIGNED, offset + NlMsgHdr.SIZE);
    }

    /**
     * @return the error of an NLMSG_DONE (0 when the dump succeeded or the message carries none).
     */
    static int doneError(final MemorySegment segment, final long offset, final int length)
    {
        return length >= NlMsgHdr.SIZE + 4 ? segment.get(JAVA_INT_UNALIGNED, offset + NlMsgHdr.SIZE) : 0;
    }

    /**
     * @return the kernel's explanation in an NLMSG_ERROR (NLMSGERR_ATTR_MSG, with NETLINK_EXT_ACK), or null.
     */
    static String errorText(final MemorySegment segment, final long offset, final int length)
    {
        final int flags = flags(segment, offset);
        if ((flags & Rtnetlink.NLM_F_ACK_TLVS) == 0 || length < NlMsgHdr.SIZE + 4 + NlMsgHdr.SIZE)
        {
            return null;
        }
        // struct nlmsgerr: the error, the request's header, then its payload unless NLM_F_CAPPED, then the TLVs.
        final long echoed = offset + NlMsgHdr.SIZE + 4;
        final long echoedLength = (flags & Rtnetlink.NLM_F_CAPPED) != 0 ? NlMsgHdr.SIZE :
            Rtnetlink.align(segment.get(JAVA_INT_UNALIGNED, echoed + NlMsgHdr.LEN_OFFSET));
        if (echoedLength < NlMsgHdr.SIZE || echoed + echoedLength > offset + length)
        {
            return null;
        }
        final AttributeCursor attributes =
            new AttributeCursor(segment, offset, echoed + echoedLength, offset + length, "NLMSG_ERROR");
        while (attributes.next())
        {
            if (attributes.type() == Rtnetlink.NLMSGERR_ATTR_MSG)
            {
                return attributes.string();
            }
        }
        return null;
    }

    private static InetAddress via(final MemorySegment segment, final AttributeCursor attribute)
    {
        // struct rtvia: a 2-byte family, then that family's address.
        if (attribute.payloadLength() < 2)
        {
            throw new NetlinkFormatException(attribute.where() + " (RTA_VIA) has " + attribute.payloadLength() +
                " bytes, too few for a family");
        }
        final int family = Short.toUnsignedInt(segment.get(JAVA_SHORT_UNALIGNED, attribute.payload()));
        return AttributeCursor.address(segment, attribute.payload() + 2, attribute.payloadLength() - 2, family,
            attribute::where);
    }

    private static List<NextHop> nextHops(final MemorySegment segment, final long base, final int family,
        final AttributeCursor attribute, final String context)
    {
        final List<NextHop> hops = new ArrayList<>(4);
        long position = attribute.payload();
        final long end = position + attribute.payloadLength();
        while (end - position >= RtNextHop.SIZE)
        {
            final int length = Short.toUnsignedInt(segment.get(JAVA_SHORT_UNALIGNED, position + RtNextHop.LEN_OFFSET));
            if (length < RtNextHop.SIZE || length > end - position)
            {
                throw new NetlinkFormatException(context + ": the next hop at offset " + (position - base) +
                    " of RTA_MULTIPATH has length " + length + " but " + (end - position) + " bytes remain");
            }
            final int flags = u8(segment, position + RtNextHop.FLAGS_OFFSET);
            final int weight = u8(segment, position + RtNextHop.HOPS_OFFSET) + 1;
            final int index = segment.get(JAVA_INT_UNALIGNED, position + RtNextHop.IFINDEX_OFFSET);
            InetAddress gateway = null;
            final AttributeCursor attributes = new AttributeCursor(segment, base,
                position + Rtnetlink.align(RtNextHop.SIZE), position + length, context + " next hop");
            while (attributes.next())
            {
                if (attributes.type() == Rtnetlink.RTA_GATEWAY)
                {
                    gateway = attributes.address(family);
                }
                else if (attributes.type() == Rtnetlink.RTA_VIA)
                {
                    gateway = via(segment, attributes);
                }
            }
            hops.add(new NextHop(gateway, index, weight, flags & RTNH_FLAGS));
            position += Rtnetlink.align(length);
        }
        return hops;
    }

    private static long fixedPart(final MemorySegment segment, final long offset, final int length, final int size,
        final String context)
    {
        if (length < NlMsgHdr.SIZE + size)
        {
            throw new NetlinkFormatException(context + " at offset " + offset + " has " + length +
                " bytes, too few for its " + size + "-byte header");
        }
        return offset + NlMsgHdr.SIZE;
    }

    private static int prefixLength(final int family, final int length, final String context)
    {
        final int max = AttributeCursor.addressLength(family) * 8;
        if (length > max)
        {
            throw new NetlinkFormatException(context + ": prefix length " + length + " is more than " + max);
        }
        return length;
    }

    private static String context(final MemorySegment segment, final long offset)
    {
        return Rtnetlink.typeName(type(segment, offset));
    }

    private static int u8(final MemorySegment segment, final long offset)
    {
        return Byte.toUnsignedInt(segment.get(JAVA_BYTE, offset));
    }

    /**
     * @return the any-address of the family (0.0.0.0 or ::), the destination of a route without RTA_DST.
     */
    static InetAddress anyAddress(final int family)
    {
        return family == Sockets.AF_INET ? ANY_V4 : ANY_V6;
    }
}
