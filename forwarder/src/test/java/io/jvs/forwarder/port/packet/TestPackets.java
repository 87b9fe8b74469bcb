package io.jvs.forwarder.port.packet;

import java.nio.ByteBuffer;

/**
 * Frames for the AF_PACKET tests, built byte by byte, and a reference Internet checksum that shares no code
 * with {@link io.jvs.core.packet.Checksums}: 16-bit words summed one at a time, as RFC 1071 describes.
 */
final class TestPackets
{
    static final int ETH_P_EXPERIMENTAL = 0x88B5;
    static final byte[] GENERATOR_MAC = {2, 0, 0, 0, 0, (byte)0x61};
    static final byte[] FORWARDER_MAC = {2, 0, 0, 0, 0, (byte)0xFA};
    static final byte[] NEW_DESTINATION = {2, 0, 0, 0, 0, (byte)0xD1};
    static final byte[] NEW_SOURCE = {2, 0, 0, 0, 0, (byte)0x51};

    private TestPackets()
    {
    }

    /** A frame of the experimental EtherType, which no stack handles, carrying its sequence number. */
    static byte[] experimental(final int sequence, final int length)
    {
        final ByteBuffer frame = ByteBuffer.allocate(length);
        frame.put(FORWARDER_MAC).put(GENERATOR_MAC).putShort((short)ETH_P_EXPERIMENTAL).putInt(sequence);
        while (frame.hasRemaining())
        {
            frame.put((byte)(sequence * 31 + frame.position()));
        }
        return frame.array();
    }

    /** An IPv4 UDP frame with a correct checksum. */
    static byte[] udpV4(final int sourcePort, final int destinationPort, final int payloadLength)
    {
        final int ipLength = 20 + 8 + payloadLength;
        final ByteBuffer frame = ByteBuffer.allocate(14 + ipLength);
        frame.put(FORWARDER_MAC).put(GENERATOR_MAC).putShort((short)0x0800);
        frame.put((byte)0x45).put((byte)0).putShort((short)ipLength).putShort((short)1).putShort((short)0x4000)
            .put((byte)64).put((byte)17).putShort((short)0).put(new byte[] {10, 77, 1, 1}).put(new byte[] {10, 77, 1, 2});
        frame.putShort(14 + 10, (short)ipv4HeaderChecksum(frame.array(), 14));
        frame.putShort((short)sourcePort).putShort((short)destinationPort).putShort((short)(8 + payloadLength))
            .putShort((short)0);
        for (int i = 0; i < payloadLength; i++)
        {
            frame.put((byte)(i + sourcePort));
        }
        final byte[] bytes = frame.array();
        ByteBuffer.wrap(bytes).putShort(14 + 20 + 6, (short)referenceTransportChecksum(bytes, 14));
        return bytes;
    }

    static int ipv4HeaderChecksum(final byte[] bytes, final int ip)
    {
        long sum = 0;
        for (int i = 0; i < 20; i += 2)
        {
            sum += i == 10 ? 0 : word(bytes, ip + i);
        }
        return ~fold(sum) & 0xFFFF;
    }

    /**
     * The checksum a TCP or UDP segment must carry, over IPv4 or IPv6 (read from the frame), its own field
     * counted as zero; a UDP result of 0 is sent as 0xFFFF.
     *
     * @param ip where the IP header starts in the frame.
     */
    static int referenceTransportChecksum(final byte[] bytes, final int ip)
    {
        final boolean v6 = (bytes[ip] & 0xF0) == 0x60;
        final int protocol = v6 ? bytes[ip + 6] & 0xFF : bytes[ip + 9] & 0xFF;
        final int l4 = v6 ? ip + 40 : ip + ((bytes[ip] & 0xF) << 2);
        final int l4Length = v6 ? word(bytes, ip + 4) : word(bytes, ip + 2) - (l4 - ip);
        final int field = l4 + (protocol == 6 ? 16 : 6);
        long sum = 0;
        final int addressStart = v6 ? ip + 8 : ip + 12;
        final int addressBytes = v6 ? 32 : 8;
        for (int i = 0; i < addressBytes; i += 2)
        {
            sum += word(bytes, addressStart + i);
        }
        sum += protocol + l4Length;
        for (int i = 0; i < l4Length; i += 2)
        {
            final int at = l4 + i;
            if (at == field)
            {
                continue;
            }
            sum += i + 1 < l4Length ? word(bytes, at) : (bytes[at] & 0xFF) << 8;
        }
        final int checksum = ~fold(sum) & 0xFFFF;
        return protocol == 17 && checksum == 0 ? 0xFFFF : checksum;
    }

    /** The folded, not complemented, pseudo-header sum: what a sender leaves in the field for offload. */
    static int pseudoHeaderSum(final byte[] bytes, final int ip)
    {
        final boolean v6 = (bytes[ip] & 0xF0) == 0x60;
        final int protocol = v6 ? bytes[ip + 6] & 0xFF : bytes[ip + 9] & 0xFF;
        final int l4Length = v6 ? word(bytes, ip + 4) : word(bytes, ip + 2) - ((bytes[ip] & 0xF) << 2);
        long sum = protocol + l4Length;
        final int addressStart = v6 ? ip + 8 : ip + 12;
        for (int i = 0; i < (v6 ? 32 : 8); i += 2)
        {
            sum += word(bytes, addressStart + i);
        }
        return fold(sum);
    }

    static int word(final byte[] bytes, final int at)
    {
        return ((bytes[at] & 0xFF) << 8) | (bytes[at + 1] & 0xFF);
    }

    private static int fold(final long sum)
    {
        long folded = sum;
        while (folded > 0xFFFF)
        {
            folded = (folded & 0xFFFF) + (folded >>> 16);
        }
        return (int)folded;
    }
}
