package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;

import java.nio.ByteBuffer;

/**
 * Builds test frames byte by byte, with checksums from a plain reference sum (not jvs's Checksums), and
 * reads fields back, so tests check the pipeline against an independent implementation.
 */
final class TestFrames
{
    static final long CLIENT_MAC = 0x02_00_00_00_00_01L;
    static final long ROUTER_MAC = 0x02_00_00_00_00_FEL;
    static final long JVS_MAC = 0x02_00_00_00_00_10L;

    static final int TCP = 6;
    static final int UDP = 17;
    static final int SYN = 0x02;
    static final int ACK = 0x10;
    static final int FIN = 0x01;
    static final int RST = 0x04;

    private TestFrames()
    {
    }

    /** An L4 segment description. */
    record Segment(int protocol, int sourcePort, int destinationPort, int tcpFlags, byte[] payload)
    {
        static Segment tcp(final int sourcePort, final int destinationPort, final int flags, final int payloadLength)
        {
            return new Segment(TCP, sourcePort, destinationPort, flags, TestFrames.payload(payloadLength));
        }

        static Segment udp(final int sourcePort, final int destinationPort, final int payloadLength)
        {
            return new Segment(UDP, sourcePort, destinationPort, 0, TestFrames.payload(payloadLength));
        }

        int length()
        {
            return (protocol == TCP ? 20 : 8) + payload.length;
        }
    }

    static byte[] payload(final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 7 + 3);
        }
        return bytes;
    }

    static byte[] frame(final long dstMac, final long srcMac, final IpAddress source, final IpAddress destination,
        final int ttl, final Segment segment)
    {
        return source.isV6() ? ipv6(dstMac, srcMac, source, destination, ttl, segment) :
            ipv4(dstMac, srcMac, source, destination, ttl, segment, 0x4000, 0x1234);
    }

    static byte[] ipv4(final long dstMac, final long srcMac, final IpAddress source, final IpAddress destination,
        final int ttl, final Segment segment, final int flagsAndFragment, final int identification)
    {
        final int l4Length = segment.length();
        final ByteBuffer frame = ByteBuffer.allocate(14 + 20 + l4Length);
        putMac(frame, dstMac);
        putMac(frame, srcMac);
        frame.putShort((short)0x0800);
        final int ip = frame.position();
        frame.put((byte)0x45).put((byte)0).putShort((short)(20 + l4Length)).putShort((short)identification)
            .putShort((short)flagsAndFragment).put((byte)ttl).put((byte)segment.protocol()).putShort((short)0)
            .putInt(source.v4()).putInt(destination.v4());
        frame.putShort(ip + 10, (short)checksum(frame.array(), ip, 20, 0));
        final int l4 = frame.position();
        putSegment(frame, segment);
        final long pseudo = sumWords(frame.array(), ip + 12, 8) + segment.protocol() + l4Length;
        final int sum = checksum(frame.array(), l4, l4Length, pseudo);
        frame.putShort(l4 + (segment.protocol() == TCP ? 16 : 6), (short)(segment.protocol() == UDP && sum == 0 ? 0xFFFF : sum));
        return frame.array();
    }

    static byte[] ipv6(final long dstMac, final long srcMac, final IpAddress source, final IpAddress destination,
        final int hopLimit, final Segment segment)
    {
        final int l4Length = segment.length();
        final ByteBuffer frame = ByteBuffer.allocate(14 + 40 + l4Length);
        putMac(frame, dstMac);
        putMac(frame, srcMac);
        frame.putShort((short)0x86DD);
        final int ip = frame.position();
        frame.putInt(6 << 28).putShort((short)l4Length).put((byte)segment.protocol()).put((byte)hopLimit)
            .putLong(source.high()).putLong(source.low()).putLong(destination.high()).putLong(destination.low());
        final int l4 = frame.position();
        putSegment(frame, segment);
        final long pseudo = sumWords(frame.array(), ip + 8, 32) + segment.protocol() + l4Length;
        final int sum = checksum(frame.array(), l4, l4Length, pseudo);
        frame.putShort(l4 + (segment.protocol() == TCP ? 16 : 6), (short)(segment.protocol() == UDP && sum == 0 ? 0xFFFF : sum));
        return frame.array();
    }

    /**
     * An IPv4 frame with any payload after the header (a later fragment, an ICMP message).
     */
    static byte[] rawIpv4(final long dstMac, final long srcMac, final IpAddress source, final IpAddress destination,
        final int ttl, final int protocol, final int flagsAndFragment, final int identification, final byte[] payload)
    {
        final ByteBuffer frame = ByteBuffer.allocate(14 + 20 + payload.length);
        putMac(frame, dstMac);
        putMac(frame, srcMac);
        frame.putShort((short)0x0800);
        final int ip = frame.position();
        frame.put((byte)0x45).put((byte)0).putShort((short)(20 + payload.length)).putShort((short)identification)
            .putShort((short)flagsAndFragment).put((byte)ttl).put((byte)protocol).putShort((short)0)
            .putInt(source.v4()).putInt(destination.v4());
        frame.putShort(ip + 10, (short)checksum(frame.array(), ip, 20, 0));
        frame.put(payload);
        return frame.array();
    }

    /**
     * An ICMP error (IPv4) quoting the IP packet of another frame (its first 28 bytes of IP).
     */
    static byte[] icmpErrorV4(final long dstMac, final long srcMac, final IpAddress source,
        final IpAddress destination, final int type, final int code, final byte[] quotedFrame)
    {
        final int quoted = Math.min(28, quotedFrame.length - 14);
        final ByteBuffer icmp = ByteBuffer.allocate(8 + quoted);
        icmp.put((byte)type).put((byte)code).putShort((short)0).putInt(0);
        icmp.put(quotedFrame, 14, quoted);
        icmp.putShort(2, (short)checksum(icmp.array(), 0, icmp.capacity(), 0));
        return rawIpv4(dstMac, srcMac, source, destination, 64, 1, 0, 7, icmp.array());
    }

    /** An ICMPv6 error (type 1 code 4) from {@code from} to {@code to}, quoting the IPv6 packet of a frame. */
    static byte[] icmpErrorV6(final long dstMac, final long srcMac, final IpAddress from, final IpAddress to,
        final byte[] quotedFrame)
    {
        final int quoted = Math.min(48, quotedFrame.length - 14);
        final ByteBuffer icmp = ByteBuffer.allocate(8 + quoted);
        icmp.put((byte)1).put((byte)4).putShort((short)0).putInt(0).put(quotedFrame, 14, quoted);
        final ByteBuffer frame = ByteBuffer.allocate(14 + 40 + icmp.capacity());
        frame.putShort((short)(dstMac >>> 32)).putInt((int)dstMac).putShort((short)(srcMac >>> 32)).putInt((int)srcMac)
            .putShort((short)0x86DD).putInt(0x6000_0000).putShort((short)icmp.capacity()).put((byte)58).put((byte)64)
            .putLong(from.high()).putLong(from.low()).putLong(to.high()).putLong(to.low()).put(icmp.array());
        final byte[] bytes = frame.array();
        final long pseudo = sumWords(bytes, 22, 32) + 58 + icmp.capacity();
        final int sum = checksum(bytes, 54, icmp.capacity(), pseudo);
        bytes[56] = (byte)(sum >>> 8);
        bytes[57] = (byte)sum;
        return bytes;
    }

    /**
     * An IPv6 frame carrying a fragment header (first fragment with its UDP header, or a later one).
     */
    static byte[] ipv6Fragment(final long dstMac, final long srcMac, final IpAddress source,
        final IpAddress destination, final int offsetUnits, final boolean more, final int identification,
        final byte[] upperLayer)
    {
        final ByteBuffer frame = ByteBuffer.allocate(14 + 40 + 8 + upperLayer.length);
        putMac(frame, dstMac);
        putMac(frame, srcMac);
        frame.putShort((short)0x86DD);
        frame.putInt(6 << 28).putShort((short)(8 + upperLayer.length)).put((byte)44).put((byte)64)
            .putLong(source.high()).putLong(source.low()).putLong(destination.high()).putLong(destination.low());
        frame.put((byte)UDP).put((byte)0).putShort((short)(offsetUnits << 3 | (more ? 1 : 0))).putInt(identification);
        frame.put(upperLayer);
        return frame.array();
    }

    /**
     * The UDP header and payload of a datagram (checksum left 0: only the first fragment's ports matter).
     */
    static byte[] udpBytes(final int sourcePort, final int destinationPort, final int payloadLength)
    {
        final ByteBuffer udp = ByteBuffer.allocate(8 + payloadLength);
        udp.putShort((short)sourcePort).putShort((short)destinationPort).putShort((short)(8 + payloadLength))
            .putShort((short)0).put(payload(payloadLength));
        return udp.array();
    }

    private static void putSegment(final ByteBuffer frame, final Segment segment)
    {
        frame.putShort((short)segment.sourcePort()).putShort((short)segment.destinationPort());
        if (segment.protocol() == TCP)
        {
            frame.putInt(1000).putInt(segment.tcpFlags() == SYN ? 0 : 2000).put((byte)0x50)
                .put((byte)segment.tcpFlags()).putShort((short)65535).putShort((short)0).putShort((short)0);
        }
        else
        {
            frame.putShort((short)segment.length()).putShort((short)0);
        }
        frame.put(segment.payload());
    }

    private static void putMac(final ByteBuffer frame, final long mac)
    {
        frame.putShort((short)(mac >>> 32)).putInt((int)mac);
    }

    static long sumWords(final byte[] bytes, final int offset, final int length)
    {
        long sum = 0;
        for (int i = 0; i < length; i += 2)
        {
            final int high = bytes[offset + i] & 0xFF;
            final int low = i + 1 < length ? bytes[offset + i + 1] & 0xFF : 0;
            sum += high << 8 | low;
        }
        return sum;
    }

    /** The one's-complement checksum of a range plus an extra sum (pseudo-header), the field read as is. */
    static int checksum(final byte[] bytes, final int offset, final int length, final long extra)
    {
        long sum = sumWords(bytes, offset, length) + extra;
        while ((sum >>> 16) != 0)
        {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int)(~sum & 0xFFFF);
    }

    /** True when the IPv4 header and the TCP/UDP checksum of an IPv4 frame (no VLAN) verify. */
    static boolean checksumsValidV4(final byte[] frame)
    {
        final int ip = 14;
        final int headerLength = (frame[ip] & 0x0F) * 4;
        if (checksum(frame, ip, headerLength, 0) != 0)
        {
            return false;
        }
        final int total = u16(frame, ip + 2);
        final int protocol = frame[ip + 9] & 0xFF;
        final int l4 = ip + headerLength;
        final int l4Length = total - headerLength;
        if (protocol == UDP && u16(frame, l4 + 6) == 0)
        {
            return true;
        }
        final long pseudo = sumWords(frame, ip + 12, 8) + protocol + l4Length;
        return protocol == 1 ? checksum(frame, l4, l4Length, 0) == 0 : checksum(frame, l4, l4Length, pseudo) == 0;
    }

    /** True when the upper-layer checksum of an IPv6 frame (no extension headers) verifies. */
    static boolean checksumsValidV6(final byte[] frame)
    {
        final int ip = 14;
        final int length = u16(frame, ip + 4);
        final int next = frame[ip + 6] & 0xFF;
        final long pseudo = sumWords(frame, ip + 8, 32) + next + length;
        return checksum(frame, ip + 40, length, pseudo) == 0;
    }

    static int u16(final byte[] bytes, final int offset)
    {
        return (bytes[offset] & 0xFF) << 8 | bytes[offset + 1] & 0xFF;
    }

    static long mac(final byte[] bytes, final int offset)
    {
        return ((long)u16(bytes, offset) << 32) | (ByteBuffer.wrap(bytes, offset + 2, 4).getInt() & 0xFFFF_FFFFL);
    }

    static int i32(final byte[] bytes, final int offset)
    {
        return ByteBuffer.wrap(bytes, offset, 4).getInt();
    }
}
