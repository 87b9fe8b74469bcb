package io.jvs.core.packet;

/**
 * Splits an IPv4 packet that may be fragmented (DF clear) into fragments that fit an MTU, as the kernel's
 * ip_do_fragment does for a forwarded packet too big for its route (RFC 791, section "Fragmentation"): every fragment
 * but the last carries a multiple of 8 payload bytes; the first keeps all of the header's options, the others only
 * those whose copied flag is set; the offsets continue the packet's own (a fragment may be fragmented again) and
 * its last fragment keeps the packet's more-fragments flag. Each fragment gets the frame's link header (the bytes
 * before the IP header) and its own header checksum; the payload, transport header and checksum included, is
 * copied unchanged.
 * <p>
 * Allocation-free: the caller gives the memory the fragments are written to. Not thread-safe (one per worker).
 */
public final class Ipv4Fragmenter
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

    /**
     * @param maxFragments the most fragments one packet may be split into.
     */
    public Ipv4Fragmenter(final int maxFragments)
    {
        this.lengths = new int[maxFragments];
        this.addresses = new long[maxFragments];
    }

    /**
     * {@link #fragment(long, int, int, long, int)} for an Ethernet frame, its IPv4 header after up to
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
        if (type != EthernetHeader.TYPE_IPV4 || l3Offset + Ipv4Header.MIN_LENGTH > length ||
            l3Offset + Ipv4Header.totalLength(frame + l3Offset) > length)
        {
            return CANNOT;
        }
        return fragment(frame, l3Offset, mtu, out, capacity);
    }

    /**
     * Writes the fragments of the packet one after the other into {@code out}, each starting at an address that is a
     * multiple of 64 bytes past {@code out}.
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
    public int fragment(final long frame, final int l3Offset, final int mtu, final long out, final int capacity)
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
            addresses[count] = at;
            lengths[count] = length;
            count++;
            done += part;
            at += (length + 63) & ~63;
        }
        return count;
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
