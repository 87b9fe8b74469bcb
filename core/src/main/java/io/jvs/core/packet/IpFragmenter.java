package io.jvs.core.packet;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Splits a packet too big for its path into fragments that fit an MTU, as the kernel's IP output does for a packet
 * it forwards or sends.
 * <p>
 * IPv4 (DF clear), as ip_do_fragment does for a forwarded packet (RFC 791, section "Fragmentation"): every fragment
 * but the last carries a multiple of 8 payload bytes; the first keeps all of the header's options, the others only
 * those whose copied flag is set; the offsets continue the packet's own (a fragment may be fragmented again) and
 * its last fragment keeps the packet's more-fragments flag. Each fragment gets its own header checksum.
 * <p>
 * IPv6, as ip6_fragment does for a packet its source sends (RFC 8200, section 4.5): jvs is the source only of the
 * outer header of a tunnelled packet, so the packet's fixed header must be followed directly by its fragmentable part
 * (no hop-by-hop, routing or destination options header, and not a fragment already). Each fragment is that header,
 * its payload length adjusted and its next header a Fragment header naming the original one, with an identification
 * shared by the packet's fragments and hard to guess from the packets before (RFC 7739), then a multiple of 8 bytes
 * of the rest unless it is the last.
 * <p>
 * Either way each fragment gets the frame's link header (the bytes before the IP header), and the payload, transport
 * header and checksum included, is copied unchanged.
 * <p>
 * Allocation-free: the caller gives the memory the fragments are written to. Not thread-safe (one per worker).
 */
public final class IpFragmenter
{
    /** {@link #fragment}'s answer when the packet cannot be split as asked. */
    public static final int CANNOT = -1;

    private static final int COPIED_FLAG = 0x80;
    private static final int OPTION_END = 0;
    private static final int OPTION_NOP = 1;
    private static final int MAX_HEADER = 60;

    /** The header of the fragments after the first: the fixed part and the copied options, padded. */
    private final byte[] laterOptions = new byte[MAX_HEADER];
    private final int[] lengths;
    private final long[] addresses;
    /** IPv6 fragments' identifications: a counter from a random start, scrambled so one does not tell the next. */
    private final long identificationKey = ThreadLocalRandom.current().nextLong() | 1;
    private long identificationCounter = ThreadLocalRandom.current().nextLong();

    /**
     * @param maxFragments the most fragments one packet may be split into.
     */
    public IpFragmenter(final int maxFragments)
    {
        this.lengths = new int[maxFragments];
        this.addresses = new long[maxFragments];
    }

    /**
     * {@link #fragmentV4} or {@link #fragmentV6} for an Ethernet frame, its IP header after up to
     * {@link EthernetHeader#MAX_TAGS} VLAN tags.
     *
     * @param frame  the frame's address.
     * @param length its length.
     */
    public int fragmentFrame(final long frame, final int length, final int mtu, final long out, final int capacity)
    {
        int l3Offset = EthernetHeader.LENGTH;
        int type = Frames.u16(frame + EthernetHeader.TYPE_OFFSET);
        for (int tags = 0; EthernetHeader.isVlanTag(type) && tags < EthernetHeader.MAX_TAGS; tags++)
        {
            if (l3Offset + EthernetHeader.TAG_LENGTH > length)
            {
                return CANNOT;
            }
            type = Frames.u16(frame + l3Offset + 2);
            l3Offset += EthernetHeader.TAG_LENGTH;
        }
        if (type == EthernetHeader.TYPE_IPV6)
        {
            if (l3Offset + Ipv6Header.LENGTH > length ||
                l3Offset + Ipv6Header.LENGTH + Ipv6Header.payloadLength(frame + l3Offset) > length)
            {
                return CANNOT;
            }
            return fragmentV6(frame, l3Offset, mtu, out, capacity);
        }
        if (type != EthernetHeader.TYPE_IPV4 || l3Offset + Ipv4Header.MIN_LENGTH > length ||
            l3Offset + Ipv4Header.totalLength(frame + l3Offset) > length)
        {
            return CANNOT;
        }
        return fragmentV4(frame, l3Offset, mtu, out, capacity);
    }

    /**
     * Writes the fragments of an IPv4 packet one after the other into {@code out}, each starting at an address that is
     * a multiple of 64 bytes past {@code out}.
     *
     * @param frame    the frame's address.
     * @param l3Offset where its IPv4 header starts (the link header before it is copied into every fragment).
     * @param mtu      the largest IP packet the fragments may be (68 or more).
     * @param out      where to write the fragments.
     * @param capacity how many bytes {@code out} holds.
     * @return how many fragments were written ({@link #address} and {@link #length} tell where), or {@link #CANNOT}
     *         when the packet has DF set, is not longer than the MTU, has malformed options, or would need more
     *         fragments or memory than given.
     */
    public int fragmentV4(final long frame, final int l3Offset, final int mtu, final long out, final int capacity)
    {
        final long ip = frame + l3Offset;
        final int headerLength = Ipv4Header.headerLength(ip);
        final int totalLength = Ipv4Header.totalLength(ip);
        final int flags = Ipv4Header.flagsAndFragment(ip);
        if ((flags & Ipv4Header.FLAG_DONT_FRAGMENT) != 0 || totalLength <= mtu ||
            headerLength < Ipv4Header.MIN_LENGTH || totalLength < headerLength || mtu < 68)
        {
            return CANNOT;
        }
        final int laterHeaderLength = copiedOptions(ip, headerLength);
        if (laterHeaderLength < 0)
        {
            return CANNOT;
        }
        final int payloadLength = totalLength - headerLength;
        final int offsetUnits = flags & Ipv4Header.FRAGMENT_OFFSET_MASK;
        final boolean moreAfter = (flags & Ipv4Header.FLAG_MORE_FRAGMENTS) != 0;
        final int keptFlags = flags & ~(Ipv4Header.FRAGMENT_OFFSET_MASK | Ipv4Header.FLAG_MORE_FRAGMENTS);
        int done = 0;
        int count = 0;
        long at = out;
        final long end = out + capacity;
        while (done < payloadLength)
        {
            final int header = count == 0 ? headerLength : laterHeaderLength;
            final int room = (mtu - header) & ~7;
            final int part = Math.min(room, payloadLength - done);
            final boolean last = done + part == payloadLength;
            final int length = l3Offset + header + part;
            if (count == lengths.length || at + length > end)
            {
                return CANNOT;
            }
            Frames.copy(frame, at, l3Offset);
            final long fragmentIp = at + l3Offset;
            if (count == 0)
            {
                Frames.copy(ip, fragmentIp, headerLength);
            }
            else
            {
                Frames.copy(ip, fragmentIp, Ipv4Header.MIN_LENGTH);
                for (int b = Ipv4Header.MIN_LENGTH; b < laterHeaderLength; b++)
                {
                    Frames.putU8(fragmentIp + b, laterOptions[b]);
                }
                Frames.putU8(fragmentIp, 0x40 | laterHeaderLength >>> 2);
            }
            Frames.copy(ip + headerLength + done, fragmentIp + header, part);
            Frames.putU16(fragmentIp + Ipv4Header.TOTAL_LENGTH_OFFSET, header + part);
            Frames.putU16(fragmentIp + Ipv4Header.FLAGS_FRAGMENT_OFFSET, keptFlags |
                (!last || moreAfter ? Ipv4Header.FLAG_MORE_FRAGMENTS : 0) | (offsetUnits + (done >>> 3)));
            Ipv4Header.checksum(fragmentIp, Checksums.ipv4HeaderChecksum(fragmentIp));
            at = written(count++, at, length);
            done += part;
        }
        return count;
    }

    /**
     * Writes the fragments of an IPv6 packet one after the other into {@code out}, each starting at an address that is
     * a multiple of 64 bytes past {@code out}.
     *
     * @param frame    the frame's address.
     * @param l3Offset where its IPv6 header starts (the link header before it is copied into every fragment).
     * @param mtu      the largest IP packet the fragments may be (56 or more: room for 8 bytes of payload).
     * @param out      where to write the fragments.
     * @param capacity how many bytes {@code out} holds.
     * @return how many fragments were written ({@link #address} and {@link #length} tell where), or {@link #CANNOT}
     *         when the packet is not longer than the MTU, has an extension header of the unfragmentable part or is a
     *         fragment, or would need more fragments or memory than given.
     */
    public int fragmentV6(final long frame, final int l3Offset, final int mtu, final long out, final int capacity)
    {
        final long ip = frame + l3Offset;
        final int payloadLength = Ipv6Header.payloadLength(ip);
        final int nextHeader = Ipv6Header.nextHeader(ip);
        final int room = (mtu - Ipv6Header.LENGTH - Ipv6Header.FRAGMENT_HEADER_LENGTH) & ~7;
        if (Ipv6Header.LENGTH + payloadLength <= mtu || room < 8 || nextHeader == Ipv6Header.NEXT_HOP_BY_HOP ||
            nextHeader == Ipv6Header.NEXT_ROUTING || nextHeader == Ipv6Header.NEXT_DESTINATION_OPTIONS ||
            nextHeader == Ipv6Header.NEXT_FRAGMENT)
        {
            return CANNOT;
        }
        final int identification = nextIdentification();
        int done = 0;
        int count = 0;
        long at = out;
        final long end = out + capacity;
        while (done < payloadLength)
        {
            final int part = Math.min(room, payloadLength - done);
            final boolean last = done + part == payloadLength;
            final int length = l3Offset + Ipv6Header.LENGTH + Ipv6Header.FRAGMENT_HEADER_LENGTH + part;
            if (count == lengths.length || at + length > end)
            {
                return CANNOT;
            }
            Frames.copy(frame, at, l3Offset + Ipv6Header.LENGTH);
            final long fragmentIp = at + l3Offset;
            Ipv6Header.payloadLength(fragmentIp, Ipv6Header.FRAGMENT_HEADER_LENGTH + part);
            Frames.putU8(fragmentIp + Ipv6Header.NEXT_HEADER_OFFSET, Ipv6Header.NEXT_FRAGMENT);
            final long fragmentHeader = fragmentIp + Ipv6Header.LENGTH;
            Frames.putU8(fragmentHeader, nextHeader);
            Frames.putU8(fragmentHeader + 1, 0);
            Frames.putU16(fragmentHeader + 2, done | (last ? 0 : Ipv6Header.FRAGMENT_MORE));
            Frames.putI32(fragmentHeader + 4, identification);
            Frames.copy(ip + Ipv6Header.LENGTH + done, fragmentHeader + Ipv6Header.FRAGMENT_HEADER_LENGTH, part);
            at = written(count++, at, length);
            done += part;
        }
        return count;
    }

    /** Records where fragment {@code fragment} was written. @return where the next one starts: 64-byte aligned. */
    private long written(final int fragment, final long at, final int length)
    {
        addresses[fragment] = at;
        lengths[fragment] = length;
        return at + ((length + 63) & ~63);
    }

    private int nextIdentification()
    {
        long z = (identificationCounter++) * identificationKey;
        z = (z ^ (z >>> 32)) * 0xD6E8_FEB8_6659_FD93L;
        final int identification = (int)(z ^ (z >>> 32));
        return identification != 0 ? identification : 1;
    }

    /** @return where the fragment was written. */
    public long address(final int fragment)
    {
        return addresses[fragment];
    }

    /** @return the fragment's frame length, link header included. */
    public int length(final int fragment)
    {
        return lengths[fragment];
    }

    /**
     * Gathers the options a later fragment carries (those with the copied flag) into {@link #laterOptions}.
     *
     * @return the later fragments' header length, padded to 4 bytes, or -1 for malformed options.
     */
    private int copiedOptions(final long ip, final int headerLength)
    {
        int write = Ipv4Header.MIN_LENGTH;
        int read = Ipv4Header.MIN_LENGTH;
        while (read < headerLength)
        {
            final int type = Frames.u8(ip + read);
            if (type == OPTION_END)
            {
                break;
            }
            if (type == OPTION_NOP)
            {
                read++;
                continue;
            }
            if (read + 1 >= headerLength)
            {
                return -1;
            }
            final int length = Frames.u8(ip + read + 1);
            if (length < 2 || read + length > headerLength)
            {
                return -1;
            }
            if ((type & COPIED_FLAG) != 0)
            {
                for (int b = 0; b < length; b++)
                {
                    laterOptions[write++] = (byte)Frames.u8(ip + read + b);
                }
            }
            read += length;
        }
        while ((write & 3) != 0)
        {
            laterOptions[write++] = OPTION_END;
        }
        return write;
    }
}
