package io.jvs.core.packet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.stream.LongStream;

import static io.jvs.core.packet.ChecksumReferenceTest.ICMP;
import static io.jvs.core.packet.ChecksumReferenceTest.ICMPV6;
import static io.jvs.core.packet.ChecksumReferenceTest.TCP;
import static io.jvs.core.packet.ChecksumReferenceTest.UDP;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Full checksums: {@link Checksums} against {@link ChecksumReferenceTest}'s oracle on random packets placed at
 * random (often odd) addresses, and on the published vectors.
 */
class ChecksumFullTest
{
    private static final int[] V4_PROTOCOLS = {TCP, UDP, ICMP};
    private static final int[] V6_PROTOCOLS = {TCP, UDP, ICMPV6};

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
    private final long memory = Frames.addressOf(buffer);

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 100);
    }

    @Test
    void shouldGiveTheRfc1071ExampleSumWhenSummingItsBytes()
    {
        final byte[] bytes = ChecksumReferenceTest.bytes(0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7);
        Frames.write(bytes, memory);
        assertThat(Checksums.sum(memory, bytes.length)).isEqualTo(0xddf2);
        assertThat(Checksums.checksum(memory, bytes.length)).isEqualTo(0x220d);
    }

    @Test
    void shouldGiveTheRealHeaderChecksumWhenComputingAnIpv4Header()
    {
        final byte[] header = ChecksumReferenceTest.realIpv4Header();
        Frames.write(header, memory + 1);
        assertThat(Checksums.ipv4HeaderChecksum(memory + 1)).isEqualTo(0xb861);
        assertThat(Checksums.isIpv4HeaderChecksumValid(memory + 1)).isTrue();
        Frames.putU16(memory + 1 + 10, 0xb862);
        assertThat(Checksums.isIpv4HeaderChecksumValid(memory + 1)).isFalse();
        assertThat(Checksums.ipv4HeaderChecksum(memory + 1)).as("the field is treated as zero").isEqualTo(0xb861);
    }

    @Test
    void shouldSumToZeroOnlyWhenEveryByteIsZero()
    {
        Frames.write(new byte[64], memory);
        assertThat(Checksums.sum(memory, 0)).isZero();
        assertThat(Checksums.sum(memory, 64)).isZero();
        assertThat(Checksums.checksum(memory, 64)).isEqualTo(0xFFFF);
        Frames.write(ChecksumReferenceTest.bytes(0xFF, 0xFF), memory + 10);
        assertThat(Checksums.sum(memory, 64)).isEqualTo(0xFFFF);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldSumAsTheReferenceWhenBytesAreRandom(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 20; i++)
        {
            final int length = random.nextInt(1501);
            final long address = memory + random.nextInt(16);
            final byte[] bytes = ChecksumReferenceTest.randomBytes(random, length);
            Frames.write(bytes, address);
            assertThat(Checksums.sum(address, length)).as("length %d", length)
                .isEqualTo(ChecksumReferenceTest.sum(bytes));
            assertThat(Checksums.checksum(address, length)).as("length %d", length)
                .isEqualTo(ChecksumReferenceTest.checksum(bytes));
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldComputeIpv4HeaderChecksumAsTheReferenceWhenTheHeaderIsRandom(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 20; i++)
        {
            final byte[] packet = ChecksumReferenceTest.randomPacket(random, false, TCP, 20);
            final int headerLength = ChecksumReferenceTest.ipHeaderLength(packet);
            final long header = memory + random.nextInt(16);
            Frames.write(packet, header);
            final int expected = ChecksumReferenceTest.ipv4HeaderChecksum(packet);
            assertThat(Checksums.ipv4HeaderChecksum(header)).isEqualTo(expected);
            assertThat(Checksums.isIpv4HeaderChecksumValid(header))
                .isEqualTo(ChecksumReferenceTest.u16(packet, 10) == expected);

            Frames.putU16(header + 10, expected);
            assertThat(Checksums.isIpv4HeaderChecksumValid(header)).isTrue();
            flipBit(random, header, 1, headerLength);
            assertThat(Checksums.isIpv4HeaderChecksumValid(header)).isFalse();
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldComputeTransportChecksumsAsTheReferenceWhenPacketsAreRandom(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 24; i++)
        {
            final boolean v6 = random.nextBoolean();
            final int protocol = (v6 ? V6_PROTOCOLS : V4_PROTOCOLS)[random.nextInt(3)];
            final int minimum = ChecksumReferenceTest.minimumLength(protocol);
            final int length = minimum + random.nextInt(1501 - minimum);
            final byte[] packet = ChecksumReferenceTest.randomPacket(random, v6, protocol, length);
            final long ip = memory + random.nextInt(16);
            Frames.write(packet, ip);
            final Layout layout = new Layout(packet, ip);

            final int expected = ChecksumReferenceTest.transportChecksum(packet);
            assertThat(layout.compute()).as("%s protocol %d length %d", v6 ? "v6" : "v4", protocol, length)
                .isEqualTo(expected);

            if (protocol == UDP)
            {
                Frames.putU16(layout.field, 0);
                assertThat(layout.isValid()).as("UDP 0 is 'no checksum' over IPv4, invalid over IPv6").isEqualTo(!v6);
            }
            Frames.putU16(layout.field, expected);
            assertThat(layout.isValid()).isTrue();
            if (protocol == UDP)
            {
                // A bit flip could turn the UDP checksum into 0, "none", which is valid over IPv4: flip elsewhere.
                flipBit(random, layout.segment, 0, 6);
            }
            else
            {
                flipBit(random, layout.segment, 0, length);
            }
            assertThat(layout.isValid()).isFalse();

            Frames.write(packet, ip);
            Frames.putU16(layout.field, expected);
            flipBit(random, ip + (v6 ? 8 : 12), 0, v6 ? 32 : 8);
            assertThat(layout.isValid()).as("ICMP over IPv4 has no pseudo-header").isEqualTo(protocol == ICMP);
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldSendZeroAsFfffAndTreatAZeroFieldPerFamilyWhenUdpSumsToFfff(final long seed)
    {
        final Random random = new Random(seed);
        final boolean v6 = (seed & 1) == 0;
        final int length = 8 + 2 * random.nextInt(700) + random.nextInt(2);
        final byte[] packet = ChecksumReferenceTest.randomPacket(random, v6, UDP, length);
        final int headerLength = ChecksumReferenceTest.ipHeaderLength(packet);
        ChecksumReferenceTest.putU16(packet, headerLength + 6, 0);
        // The source port is the word to tune: whatever else is random, the computed checksum is 0.
        ChecksumReferenceTest.tune(packet, headerLength, ChecksumReferenceTest::transportSum, 0xFFFF);
        final long ip = memory + random.nextInt(16);
        Frames.write(packet, ip);
        final Layout layout = new Layout(packet, ip);

        assertThat(layout.compute()).isEqualTo(0xFFFF);
        assertThat(layout.isValid()).as("0 over IPv4 is 'no checksum'; over IPv6 it is invalid").isEqualTo(!v6);
        Frames.putU16(layout.field, 0xFFFF);
        assertThat(layout.isValid()).isTrue();
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldGiveTheSameResultsWhenTheFrameStartsAtAnyAddress(final long seed)
    {
        final Random random = new Random(seed);
        final boolean v6 = random.nextBoolean();
        final int protocol = (v6 ? V6_PROTOCOLS : V4_PROTOCOLS)[random.nextInt(3)];
        final byte[] packet = ChecksumReferenceTest.randomPacket(random, v6, protocol, 20 + random.nextInt(200));
        final int expected = ChecksumReferenceTest.transportChecksum(packet);
        final int expectedHeader = v6 ? 0 : ChecksumReferenceTest.ipv4HeaderChecksum(packet);
        // 14 and 18: the IP header after an untagged and a VLAN-tagged Ethernet header in an aligned frame.
        for (int offset = 0; offset < 24; offset++)
        {
            final long ip = memory + offset;
            Frames.write(packet, ip);
            final Layout layout = new Layout(packet, ip);
            assertThat(layout.compute()).as("offset %d", offset).isEqualTo(expected);
            if (!v6)
            {
                assertThat(Checksums.ipv4HeaderChecksum(ip)).as("offset %d", offset).isEqualTo(expectedHeader);
            }
            assertThat(Checksums.sum(ip, packet.length)).as("offset %d", offset)
                .isEqualTo(ChecksumReferenceTest.sum(packet));
        }
    }

    private static void flipBit(final Random random, final long address, final int from, final int to)
    {
        final long at = address + from + random.nextInt(to - from);
        Frames.putU8(at, Frames.u8(at) ^ (1 << random.nextInt(8)));
    }

    /**
     * Where a test packet's fields are once it is in memory, and the {@link Checksums} calls for its family.
     */
    static final class Layout
    {
        final boolean v6;
        final int protocol;
        final long addresses;
        final long segment;
        final int length;
        final long field;

        Layout(final byte[] packet, final long ip)
        {
            v6 = ChecksumReferenceTest.isV6(packet);
            protocol = ChecksumReferenceTest.protocol(packet);
            addresses = ip + (v6 ? 8 : 12);
            segment = ip + ChecksumReferenceTest.ipHeaderLength(packet);
            length = packet.length - ChecksumReferenceTest.ipHeaderLength(packet);
            field = segment + ChecksumReferenceTest.checksumOffset(protocol);
        }

        int compute()
        {
            return v6 ?
                Checksums.transportChecksumV6(addresses, protocol, segment, length) :
                Checksums.transportChecksumV4(addresses, protocol, segment, length);
        }

        boolean isValid()
        {
            return v6 ?
                Checksums.isTransportChecksumValidV6(addresses, protocol, segment, length) :
                Checksums.isTransportChecksumValidV4(addresses, protocol, segment, length);
        }
    }
}
