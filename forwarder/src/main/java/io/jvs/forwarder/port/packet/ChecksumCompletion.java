package io.jvs.forwarder.port.packet;

import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;

/**
 * Completes the transport checksum of a frame the kernel marked TP_STATUS_CSUMNOTREADY: a sender on this
 * host (a veth peer with tx-checksumming on, the default) left the checksum to "hardware", so the field holds
 * only the pseudo-header sum. Forwarded as it is, the frame would arrive corrupt. The checksum is computed
 * again in full (the field treated as zero), so whatever partial value the sender left does not matter.
 * <p>
 * Handles TCP and UDP over IPv4 and IPv6 behind at most one VLAN tag; IPv6 extension headers and IPv4
 * fragments are not followed (a partial checksum is never left on them by Linux) and are reported as not
 * completed. Allocates nothing; checks every length against the frame before it reads.
 */
final class ChecksumCompletion
{
    private static final int ETHERNET_HEADER = 14;
    private static final int VLAN_TAG = 4;
    private static final int TYPE_IPV4 = 0x0800;
    private static final int TYPE_IPV6 = 0x86DD;
    private static final int TYPE_VLAN = 0x8100;
    private static final int TYPE_QINQ = 0x88A8;
    private static final int IPV4_MIN_HEADER = 20;
    private static final int IPV6_HEADER = 40;
    private static final int PROTOCOL_TCP = 6;
    private static final int PROTOCOL_UDP = 17;
    private static final int TCP_MIN_HEADER = 20;
    private static final int TCP_CHECKSUM = 16;
    private static final int UDP_HEADER = 8;
    private static final int UDP_CHECKSUM = 6;
    private static final int FRAGMENT_BITS = 0x3FFF;

    private ChecksumCompletion()
    {
    }

    /**
     * @param frame  the Ethernet frame's first byte.
     * @param length its length.
     * @return whether a TCP or UDP checksum was written; false leaves the frame as it was.
     */
    static boolean complete(final long frame, final int length)
    {
        if (length < ETHERNET_HEADER)
        {
            return false;
        }
        int l3Offset = ETHERNET_HEADER;
        int type = Frames.u16(frame + 12);
        if (type == TYPE_VLAN || type == TYPE_QINQ)
        {
            if (length < ETHERNET_HEADER + VLAN_TAG)
            {
                return false;
            }
            type = Frames.u16(frame + 16);
            l3Offset += VLAN_TAG;
        }
        final long ip = frame + l3Offset;
        final int l3Room = length - l3Offset;
        if (type == TYPE_IPV4)
        {
            return completeIpv4(ip, l3Room);
        }
        if (type == TYPE_IPV6)
        {
            return completeIpv6(ip, l3Room);
        }
        return false;
    }

    private static boolean completeIpv4(final long ip, final int room)
    {
        if (room < IPV4_MIN_HEADER)
        {
            return false;
        }
        final int headerLength = (Frames.u8(ip) & 0xF) << 2;
        final int totalLength = Frames.u16(ip + 2);
        if (headerLength < IPV4_MIN_HEADER || totalLength < headerLength || totalLength > room ||
            (Frames.u16(ip + 6) & FRAGMENT_BITS) != 0)
        {
            return false;
        }
        final int protocol = Frames.u8(ip + 9);
        final long segment = ip + headerLength;
        final int segmentLength = totalLength - headerLength;
        if (!fits(protocol, segmentLength))
        {
            return false;
        }
        write(protocol, segment, Checksums.transportChecksumV4(ip + 12, protocol, segment, segmentLength));
        return true;
    }

    private static boolean completeIpv6(final long ip, final int room)
    {
        if (room < IPV6_HEADER)
        {
            return false;
        }
        final int payloadLength = Frames.u16(ip + 4);
        final int nextHeader = Frames.u8(ip + 6);
        if (payloadLength > room - IPV6_HEADER || !fits(nextHeader, payloadLength))
        {
            return false;
        }
        final long segment = ip + IPV6_HEADER;
        write(nextHeader, segment, Checksums.transportChecksumV6(ip + 8, nextHeader, segment, payloadLength));
        return true;
    }

    private static boolean fits(final int protocol, final int segmentLength)
    {
        return (protocol == PROTOCOL_TCP && segmentLength >= TCP_MIN_HEADER) ||
            (protocol == PROTOCOL_UDP && segmentLength >= UDP_HEADER);
    }

    private static void write(final int protocol, final long segment, final int checksum)
    {
        Frames.putU16(segment + (protocol == PROTOCOL_TCP ? TCP_CHECKSUM : UDP_CHECKSUM), checksum);
    }
}
