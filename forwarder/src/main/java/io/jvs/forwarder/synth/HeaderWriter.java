package io.jvs.forwarder.synth;

import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Ipv6Header;
import io.jvs.core.packet.L4Headers;

/**
 * Writes the headers of synthetic frames at off-heap addresses, every field and checksum set: the
 * building blocks of {@link FrameFactory}. Nothing here allocates or checks bounds.
 */
public final class HeaderWriter
{
    /** Every packet leaves its sender with this TTL or hop limit. */
    public static final int TTL = 64;
    static final int TCP_WINDOW = 64_240;
    /** PSH, which core's L4Headers does not name: the pipeline never looks at it. */
    static final int TCP_PUSH = 0x08;
    /** The TCP header of a SYN: 20 bytes and the MSS option. */
    static final int TCP_SYN_LENGTH = 24;
    /** Ethernet's minimum frame without the FCS, as a capture shows it. */
    public static final int MIN_FRAME_LENGTH = 60;

    private HeaderWriter()
    {
    }

    /**
     * @param vlanId 0..4095 for one 802.1Q tag, -1 for none.
     * @return the offset of the layer-3 header: 14, or 18 when tagged.
     */
    public static int ethernet(final long frame, final int vlanId, final int etherType)
    {
        return ethernet(frame, AddressPlan.BALANCER_MAC, AddressPlan.ROUTER_MAC, vlanId, etherType);
    }

    /**
     * As {@link #ethernet(long, int, int)}, between the given MACs.
     */
    public static int ethernet(final long frame, final long destination, final long source, final int vlanId,
        final int etherType)
    {
        EthernetHeader.destination(frame, destination);
        EthernetHeader.source(frame, source);
        if (vlanId < 0)
        {
            Frames.putU16(frame + EthernetHeader.TYPE_OFFSET, etherType);
            return EthernetHeader.LENGTH;
        }
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET, EthernetHeader.TYPE_VLAN);
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET + 2, vlanId);
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET + 4, etherType);
        return EthernetHeader.LENGTH + EthernetHeader.TAG_LENGTH;
    }

    /**
     * A 20-byte IPv4 header with its checksum.
     *
     * @param fragmentWord the flags and fragment offset word (DF 0x4000, MF 0x2000, offset in 8-byte units).
     */
    public static void ipv4(final long ip, final int totalLength, final int identification, final int fragmentWord,
        final int ttl, final int protocol, final int source, final int destination)
    {
        Frames.putU16(ip, 0x4500);
        Frames.putU16(ip + Ipv4Header.TOTAL_LENGTH_OFFSET, totalLength);
        Frames.putU16(ip + Ipv4Header.IDENTIFICATION_OFFSET, identification);
        Frames.putU16(ip + Ipv4Header.FLAGS_FRAGMENT_OFFSET, fragmentWord);
        Frames.putU8(ip + Ipv4Header.TTL_OFFSET, ttl);
        Frames.putU8(ip + Ipv4Header.PROTOCOL_OFFSET, protocol);
        Frames.putU16(ip + Ipv4Header.CHECKSUM_OFFSET, 0);
        Frames.putI32(ip + Ipv4Header.SOURCE_OFFSET, source);
        Frames.putI32(ip + Ipv4Header.DESTINATION_OFFSET, destination);
        Frames.putU16(ip + Ipv4Header.CHECKSUM_OFFSET, Checksums.ipv4HeaderChecksum(ip));
    }

    /**
     * A 40-byte IPv6 header, addresses as big-endian halves.
     */
    public static void ipv6(final long ip, final int payloadLength, final int nextHeader, final int flowLabel,
        final long sourceHigh, final long sourceLow, final long destinationHigh, final long destinationLow)
    {
        Frames.putI32(ip, 0x6000_0000 | (flowLabel & 0xF_FFFF));
        Frames.putU16(ip + Ipv6Header.PAYLOAD_LENGTH_OFFSET, payloadLength);
        Frames.putU8(ip + Ipv6Header.NEXT_HEADER_OFFSET, nextHeader);
        Frames.putU8(ip + Ipv6Header.HOP_LIMIT_OFFSET, TTL);
        Ipv6Header.source(ip, sourceHigh, sourceLow);
        Ipv6Header.destination(ip, destinationHigh, destinationLow);
    }

    /**
     * A TCP header without its checksum; a SYN gets the MSS option and a 24-byte header.
     *
     * @return the header's length, 20 or {@value #TCP_SYN_LENGTH}.
     */
    public static int tcp(final long tcp, final int sourcePort, final int destinationPort, final int sequence,
        final int acknowledgement, final int flags, final int mss)
    {
        final boolean syn = (flags & L4Headers.TCP_SYN) != 0;
        final int length = syn ? TCP_SYN_LENGTH : L4Headers.TCP_MIN_LENGTH;
        Frames.putU16(tcp, sourcePort);
        Frames.putU16(tcp + 2, destinationPort);
        Frames.putI32(tcp + 4, sequence);
        Frames.putI32(tcp + 8, acknowledgement);
        Frames.putU8(tcp + L4Headers.TCP_DATA_OFFSET_OFFSET, (length >>> 2) << 4);
        Frames.putU8(tcp + L4Headers.TCP_FLAGS_OFFSET, flags);
        Frames.putU16(tcp + 14, TCP_WINDOW);
        Frames.putU16(tcp + L4Headers.TCP_CHECKSUM_OFFSET, 0);
        Frames.putU16(tcp + 18, 0);
        if (syn)
        {
            Frames.putU8(tcp + 20, L4Headers.TCP_OPTION_MSS);
            Frames.putU8(tcp + 21, 4);
            Frames.putU16(tcp + 22, mss);
        }
        return length;
    }

    public static void udp(final long udp, final int sourcePort, final int destinationPort, final int length)
    {
        Frames.putU16(udp, sourcePort);
        Frames.putU16(udp + 2, destinationPort);
        Frames.putU16(udp + L4Headers.UDP_LENGTH_OFFSET, length);
        Frames.putU16(udp + L4Headers.UDP_CHECKSUM_OFFSET, 0);
    }

    /**
     * Sets the checksum of a whole TCP, UDP or ICMP segment behind the IP header at ip.
     *
     * @param length the segment's length, header and payload.
     */
    public static void transportChecksum(final long ip, final boolean v6, final int protocol, final long segment,
        final int length)
    {
        final int field = protocol == Ipv4Header.PROTOCOL_TCP ? L4Headers.TCP_CHECKSUM_OFFSET :
            protocol == Ipv4Header.PROTOCOL_UDP ? L4Headers.UDP_CHECKSUM_OFFSET : L4Headers.ICMP_CHECKSUM_OFFSET;
        Frames.putU16(segment + field, 0);
        final int checksum = v6 ?
            Checksums.transportChecksumV6(ip + Ipv6Header.SOURCE_OFFSET, protocol, segment, length) :
            Checksums.transportChecksumV4(ip + Ipv4Header.SOURCE_OFFSET, protocol, segment, length);
        Frames.putU16(segment + field, checksum);
    }

    /**
     * Zeroes bytes from the end of a frame up to Ethernet's 60-byte minimum, as the sender's NIC pads it.
     *
     * @return the padded length.
     */
    public static int pad(final long frame, final int length)
    {
        for (int at = length; at < MIN_FRAME_LENGTH; at++)
        {
            Frames.putU8(frame + at, 0);
        }
        return Math.max(length, MIN_FRAME_LENGTH);
    }
}
