package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Frames built and read by hand for the harness's own tests: Ethernet, IPv4 (header checksum, DF), IPv6,
 * UDP and TCP (checksums over the pseudo-header, RFC 768 / RFC 793 / RFC 8200 section 8.1), and IP-in-IP
 * as a TUN director sends it. Byte arrays, no native memory: they are sent with a
 * {@link io.jvs.nativebindings.testing.RawPacketSocket}.
 */
public final class TestPackets
{
    public static final int ETH_P_IPV4 = 0x0800;
    public static final int ETH_P_IPV6 = 0x86dd;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_UDP = 17;
    public static final int TCP_FIN = 0x01;
    public static final int TCP_SYN = 0x02;
    public static final int TCP_RST = 0x04;
    public static final int TCP_ACK = 0x10;
    public static final int ETHERNET_HEADER = 14;

    private TestPackets()
    {
    }

    /** An Ethernet frame: destination, source, EtherType, payload. */
    public static byte[] ethernet(final byte[] destination, final byte[] source, final int etherType,
        final byte[] payload)
    {
        final ByteBuffer frame = ByteBuffer.allocate(ETHERNET_HEADER + payload.length);
        frame.put(destination).put(source).putShort((short)etherType).put(payload);
        return frame.array();
    }

    /** @return the EtherType for a packet of this address family. */
    public static int etherType(final InetAddress address)
    {
        return address instanceof Inet4Address ? ETH_P_IPV4 : ETH_P_IPV6;
    }

    /** An IPv4 or IPv6 packet, by the family of the addresses (which must match), TTL/hop limit 64. */
    public static byte[] ip(final InetAddress source, final InetAddress destination, final int protocol,
        final byte[] payload)
    {
        if (source instanceof Inet4Address source4 && destination instanceof Inet4Address destination4)
        {
            return ipv4(source4, destination4, protocol, 64, payload);
        }
        if (source instanceof Inet6Address source6 && destination instanceof Inet6Address destination6)
        {
            return ipv6(source6, destination6, protocol, 64, payload);
        }
        throw new IllegalArgumentException("addresses of two families: " + source + ", " + destination);
    }

    /** An IPv4 packet without options, DF set, its header checksum filled in. */
    public static byte[] ipv4(final Inet4Address source, final Inet4Address destination, final int protocol,
        final int ttl, final byte[] payload)
    {
        final ByteBuffer packet = ByteBuffer.allocate(20 + payload.length);
        packet.put((byte)0x45).put((byte)0).putShort((short)(20 + payload.length)).putShort((short)0x1234)
            .putShort((short)0x4000).put((byte)ttl).put((byte)protocol).putShort((short)0)
            .put(source.getAddress()).put(destination.getAddress()).put(payload);
        final byte[] bytes = packet.array();
        final int checksum = checksum(0, bytes, 0, 20);
        bytes[10] = (byte)(checksum >>> 8);
        bytes[11] = (byte)checksum;
        return bytes;
    }

    /** An IPv6 packet without extension headers. */
    public static byte[] ipv6(final Inet6Address source, final Inet6Address destination, final int nextHeader,
        final int hopLimit, final byte[] payload)
    {
        final ByteBuffer packet = ByteBuffer.allocate(40 + payload.length);
        packet.putInt(0x6000_0000).putShort((short)payload.length).put((byte)nextHeader).put((byte)hopLimit)
            .put(source.getAddress()).put(destination.getAddress()).put(payload);
        return packet.array();
    }

    /** A UDP datagram with its checksum over the pseudo-header of these addresses. */
    public static byte[] udp(final InetAddress source, final InetAddress destination, final int sourcePort,
        final int destinationPort, final byte[] payload)
    {
        final ByteBuffer datagram = ByteBuffer.allocate(8 + payload.length);
        datagram.putShort((short)sourcePort).putShort((short)destinationPort).putShort((short)(8 + payload.length))
            .putShort((short)0).put(payload);
        final byte[] bytes = datagram.array();
        int checksum = transportChecksum(source, destination, IPPROTO_UDP, bytes);
        // RFC 768: a computed zero is sent as all ones (zero means "no checksum").
        checksum = checksum == 0 ? 0xffff : checksum;
        bytes[6] = (byte)(checksum >>> 8);
        bytes[7] = (byte)checksum;
        return bytes;
    }

    /** A TCP segment without payload: a SYN (with an MSS option of 1400) or any other flags. */
    public static byte[] tcp(final InetAddress source, final InetAddress destination, final int sourcePort,
        final int destinationPort, final long sequence, final long acknowledgement, final int flags)
    {
        final boolean syn = (flags & TCP_SYN) != 0;
        final int headerLength = syn ? 24 : 20;
        final ByteBuffer segment = ByteBuffer.allocate(headerLength);
        segment.putShort((short)sourcePort).putShort((short)destinationPort).putInt((int)sequence)
            .putInt((int)acknowledgement).put((byte)((headerLength / 4) << 4)).put((byte)flags)
            .putShort((short)65535).putShort((short)0).putShort((short)0);
        if (syn)
        {
            segment.put((byte)2).put((byte)4).putShort((short)1400);
        }
        final byte[] bytes = segment.array();
        final int checksum = transportChecksum(source, destination, IPPROTO_TCP, bytes);
        bytes[16] = (byte)(checksum >>> 8);
        bytes[17] = (byte)checksum;
        return bytes;
    }

    /**
     * An inner IP packet inside an outer one, as a TUN director sends it: protocol (next header) 4 for an
     * IPv4 inner packet, 41 for IPv6.
     */
    public static byte[] encapsulate(final InetAddress outerSource, final InetAddress outerDestination,
        final byte[] innerPacket)
    {
        final int version = (innerPacket[0] & 0xff) >>> 4;
        final int protocol = version == 4 ? TunnelDecapsulator.IPPROTO_IPIP : TunnelDecapsulator.IPPROTO_IPV6;
        return ip(outerSource, outerDestination, protocol, innerPacket);
    }

    private static int transportChecksum(final InetAddress source, final InetAddress destination,
        final int protocol, final byte[] segment)
    {
        final byte[] src = source.getAddress();
        final byte[] dst = destination.getAddress();
        int sum = partialSum(0, src, 0, src.length);
        sum = partialSum(sum, dst, 0, dst.length);
        sum += protocol + segment.length;
        return checksum(sum, segment, 0, segment.length);
    }

    /** The ones' complement of the ones' complement sum of {@code bytes[from, from + length)} plus {@code sum}. */
    static int checksum(final int sum, final byte[] bytes, final int from, final int length)
    {
        long folded = partialSum(sum, bytes, from, length) & 0xffffffffL;
        while ((folded >>> 16) != 0)
        {
            folded = (folded & 0xffff) + (folded >>> 16);
        }
        return (int)(~folded & 0xffff);
    }

    private static int partialSum(final int start, final byte[] bytes, final int from, final int length)
    {
        long sum = start & 0xffffffffL;
        for (int i = 0; i < length; i += 2)
        {
            final int high = bytes[from + i] & 0xff;
            final int low = i + 1 < length ? bytes[from + i + 1] & 0xff : 0;
            sum += (high << 8) | low;
        }
        while ((sum >>> 16) != 0)
        {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return (int)sum;
    }

    /**
     * What a frame carries, read from its Ethernet, IP and first transport header; {@code protocol} is the IP
     * protocol (next header) and the ports and flags are zero when it is neither TCP nor UDP.
     */
    public record Frame(byte[] destinationMac, byte[] sourceMac, int etherType, InetAddress source,
                        InetAddress destination, int protocol, int ttl, int sourcePort, int destinationPort,
                        int tcpFlags, byte[] transportPayload)
    {
        /** @return whether the frame's TCP flags include all of {@code flags}. */
        public boolean hasTcpFlags(final int flags)
        {
            return protocol == IPPROTO_TCP && (tcpFlags & flags) == flags;
        }
    }

    /**
     * @return the frame's headers, or null when it is not IPv4 or IPv6 or too short for its headers.
     */
    public static Frame parse(final byte[] frame)
    {
        if (frame.length < ETHERNET_HEADER)
        {
            return null;
        }
        final ByteBuffer bytes = ByteBuffer.wrap(frame);
        final int etherType = bytes.getShort(12) & 0xffff;
        final int network = ETHERNET_HEADER;
        final int protocol;
        final int ttl;
        final InetAddress source;
        final InetAddress destination;
        final int transport;
        final int end;
        if (etherType == ETH_P_IPV4 && frame.length >= network + 20)
        {
            final int headerLength = (frame[network] & 0x0f) * 4;
            protocol = frame[network + 9] & 0xff;
            ttl = frame[network + 8] & 0xff;
            source = address(frame, network + 12, 4);
            destination = address(frame, network + 16, 4);
            transport = network + headerLength;
            end = Math.min(frame.length, network + (bytes.getShort(network + 2) & 0xffff));
        }
        else if (etherType == ETH_P_IPV6 && frame.length >= network + 40)
        {
            protocol = frame[network + 6] & 0xff;
            ttl = frame[network + 7] & 0xff;
            source = address(frame, network + 8, 16);
            destination = address(frame, network + 24, 16);
            transport = network + 40;
            end = Math.min(frame.length, transport + (bytes.getShort(network + 4) & 0xffff));
        }
        else
        {
            return null;
        }
        int sourcePort = 0;
        int destinationPort = 0;
        int flags = 0;
        byte[] payload = new byte[0];
        if (protocol == IPPROTO_UDP && end >= transport + 8)
        {
            sourcePort = bytes.getShort(transport) & 0xffff;
            destinationPort = bytes.getShort(transport + 2) & 0xffff;
            payload = Arrays.copyOfRange(frame, transport + 8, end);
        }
        else if (protocol == IPPROTO_TCP && end >= transport + 20)
        {
            sourcePort = bytes.getShort(transport) & 0xffff;
            destinationPort = bytes.getShort(transport + 2) & 0xffff;
            flags = frame[transport + 13] & 0xff;
            final int dataOffset = ((frame[transport + 12] & 0xff) >>> 4) * 4;
            payload = Arrays.copyOfRange(frame, Math.min(end, transport + dataOffset), end);
        }
        else if (end > transport)
        {
            payload = Arrays.copyOfRange(frame, transport, end);
        }
        return new Frame(Arrays.copyOfRange(frame, 0, 6), Arrays.copyOfRange(frame, 6, 12), etherType, source,
            destination, protocol, ttl, sourcePort, destinationPort, flags, payload);
    }

    private static InetAddress address(final byte[] frame, final int offset, final int length)
    {
        try
        {
            return InetAddress.getByAddress(Arrays.copyOfRange(frame, offset, offset + length));
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("an address of " + length + " bytes is always valid", ex);
        }
    }
}
