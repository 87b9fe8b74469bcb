package io.jvs.core.packet;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.function.ToIntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The oracle the other checksum tests compare {@link Checksums} with: RFC 1071 written as plainly as possible,
 * a 16-bit word at a time with the carry added back after every word, over heap byte arrays built with
 * {@link ByteBuffer}. It shares no code with {@link Checksums}; the tests here check it against the published
 * vectors, and it also builds the random packets.
 */
class ChecksumReferenceTest
{
    static final int ICMP = 1;
    static final int TCP = 6;
    static final int UDP = 17;
    static final int ICMPV6 = 58;

    @Test
    void shouldReproduceTheRfc1071ExampleWhenSummingItsBytes()
    {
        final byte[] bytes = bytes(0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7);
        assertThat(sum(bytes)).isEqualTo(0xddf2);
        assertThat(checksum(bytes)).isEqualTo(0x220d);
    }

    @Test
    void shouldReproduceARealIpv4HeaderChecksumWhenTheFieldIsZeroed()
    {
        final byte[] header = realIpv4Header();
        assertThat(ipv4HeaderChecksum(header)).isEqualTo(0xb861);
        assertThat(sum(header)).isEqualTo(0xFFFF);
    }

    @Test
    void shouldPadAnOddLastByteWithZeroWhenSumming()
    {
        assertThat(sum(bytes(0x12, 0x34, 0x56))).isEqualTo(0x1234 + 0x5600);
        assertThat(sum(bytes(0xFF, 0xFF, 0x00, 0x01))).as("end-around carry").isEqualTo(0x0001);
        assertThat(sum(new byte[0])).isZero();
    }

    /**
     * 45 00 00 73 00 00 40 00 40 11 b8 61 c0 a8 00 01 c0 a8 00 c7: 192.168.0.1 to 192.168.0.199, UDP, TTL 64.
     */
    static byte[] realIpv4Header()
    {
        return bytes(0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61,
            0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7);
    }

    static byte[] bytes(final int... values)
    {
        final byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++)
        {
            bytes[i] = (byte)values[i];
        }
        return bytes;
    }

    static int sum(final byte[] bytes)
    {
        int sum = 0;
        for (int i = 0; i < bytes.length; i += 2)
        {
            final int high = bytes[i] & 0xFF;
            final int low = i + 1 < bytes.length ? bytes[i + 1] & 0xFF : 0;
            sum += (high << 8) | low;
            if (sum > 0xFFFF)
            {
                sum = (sum & 0xFFFF) + 1;
            }
        }
        return sum;
    }

    static int checksum(final byte[] bytes)
    {
        return ~sum(bytes) & 0xFFFF;
    }

    static boolean isV6(final byte[] packet)
    {
        return (packet[0] & 0xF0) == 0x60;
    }

    static int ipHeaderLength(final byte[] packet)
    {
        return isV6(packet) ? 40 : (packet[0] & 0xF) * 4;
    }

    static int protocol(final byte[] packet)
    {
        return packet[isV6(packet) ? 6 : 9] & 0xFF;
    }

    static int checksumOffset(final int protocol)
    {
        return protocol == TCP ? 16 : protocol == UDP ? 6 : 2;
    }

    static int u16(final byte[] packet, final int offset)
    {
        return ByteBuffer.wrap(packet).getShort(offset) & 0xFFFF;
    }

    static void putU16(final byte[] packet, final int offset, final int value)
    {
        ByteBuffer.wrap(packet).putShort(offset, (short)value);
    }

    /**
     * @return the checksum field of the packet's layer-4 header.
     */
    static int transportField(final byte[] packet)
    {
        return u16(packet, ipHeaderLength(packet) + checksumOffset(protocol(packet)));
    }

    static int ipv4HeaderChecksum(final byte[] packet)
    {
        return ~ipv4HeaderSum(packet) & 0xFFFF;
    }

    /**
     * @return the sum of the IPv4 header with its checksum field zeroed.
     */
    static int ipv4HeaderSum(final byte[] packet)
    {
        final int length = ipHeaderLength(packet);
        final byte[] header = ByteBuffer.allocate(length).put(packet, 0, length).array();
        putU16(header, 10, 0);
        return sum(header);
    }

    /**
     * @param packet an IPv4 or IPv6 header (no extension headers) and a TCP, UDP, ICMP or ICMPv6 segment.
     * @return the checksum to write, computed with the field zeroed, the pseudo-header built byte by byte
     * and UDP's computed 0 sent as 0xFFFF.
     */
    static int transportChecksum(final byte[] packet)
    {
        final int checksum = ~transportSum(packet) & 0xFFFF;
        return protocol(packet) == UDP && checksum == 0 ? 0xFFFF : checksum;
    }

    /**
     * @return the sum of the pseudo-header (if any) and the segment with its checksum field zeroed.
     */
    static int transportSum(final byte[] packet)
    {
        final boolean v6 = isV6(packet);
        final int headerLength = ipHeaderLength(packet);
        final int protocol = protocol(packet);
        final int length = packet.length - headerLength;
        final byte[] segment = ByteBuffer.allocate(length).put(packet, headerLength, length).array();
        putU16(segment, checksumOffset(protocol), 0);
        final ByteBuffer pseudo;
        if (v6)
        {
            pseudo = ByteBuffer.allocate(40 + length)
                .put(packet, 8, 16).put(packet, 24, 16).putInt(length).put(new byte[3]).put((byte)protocol);
        }
        else if (protocol == ICMP)
        {
            pseudo = ByteBuffer.allocate(length);
        }
        else
        {
            pseudo = ByteBuffer.allocate(12 + length)
                .put(packet, 12, 4).put(packet, 16, 4).put((byte)0).put((byte)protocol).putShort((short)length);
        }
        return sum(pseudo.put(segment).array());
    }

    /**
     * @return a packet with random fields, including a random checksum field, IPv4 options when IPv4.
     */
    static byte[] randomPacket(final Random random, final boolean v6, final int protocol, final int segmentLength)
    {
        final int headerLength = v6 ? 40 : 4 * (5 + (random.nextBoolean() ? 0 : random.nextInt(11)));
        final byte[] packet = randomBytes(random, headerLength + segmentLength);
        final ByteBuffer buffer = ByteBuffer.wrap(packet);
        if (v6)
        {
            buffer.put(0, (byte)0x60).putShort(4, (short)segmentLength).put(6, (byte)protocol);
        }
        else
        {
            buffer.put(0, (byte)(0x40 | headerLength / 4)).putShort(2, (short)(headerLength + segmentLength))
                .put(9, (byte)protocol);
        }
        return packet;
    }

    /**
     * @return random bytes, sometimes uniform and sometimes mostly 0x00 or mostly 0xFF, which drives sums
     * to the 0 and 0xFFFF edges.
     */
    static byte[] randomBytes(final Random random, final int length)
    {
        final byte[] bytes = new byte[length];
        final int style = random.nextInt(4);
        for (int i = 0; i < length; i++)
        {
            final boolean mostly = random.nextInt(16) != 0;
            bytes[i] = (byte)(style == 1 && mostly ? 0xFF : style == 2 && mostly ? 0x00 : random.nextInt(256));
        }
        return bytes;
    }

    /**
     * @return the smallest layer-4 length the protocol's header needs.
     */
    static int minimumLength(final int protocol)
    {
        return protocol == TCP ? 20 : 8;
    }

    /**
     * Sets a 16-bit word of the packet so that whatever sum the function takes comes out at the target.
     *
     * @param offset an even offset inside the part the function sums.
     * @param target 1..0xFFFF.
     */
    static void tune(final byte[] packet, final int offset, final ToIntFunction<byte[]> sum, final int target)
    {
        putU16(packet, offset, 0);
        final int word = target + (~sum.applyAsInt(packet) & 0xFFFF);
        putU16(packet, offset, (word & 0xFFFF) + (word >>> 16));
        assertThat(sum.applyAsInt(packet)).isEqualTo(target);
    }
}
