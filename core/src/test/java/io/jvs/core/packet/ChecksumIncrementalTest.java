package io.jvs.core.packet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.stream.LongStream;

import static io.jvs.core.packet.ChecksumReferenceTest.ICMP;
import static io.jvs.core.packet.ChecksumReferenceTest.ICMPV6;
import static io.jvs.core.packet.ChecksumReferenceTest.TCP;
import static io.jvs.core.packet.ChecksumReferenceTest.UDP;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Incremental updates (RFC 1624) must give exactly what a full recomputation after the change gives, bit for bit,
 * as the oracle computes it and as {@link Checksums} does.
 */
class ChecksumIncrementalTest
{
    /**
     * {@link Checksums#updateUdp} has no branches; this is its rule, written plainly, checked against it for every
     * updated sum with the edge values and a seeded sample of the sums before, and for every sum before with the
     * edge values of the updated one.
     */
    @Test
    void shouldKeepTheUdpRulesOnEveryUpdatedChecksum()
    {
        final Random random = new Random(0x75647000L);
        final int[] edges = {0, 1, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF};
        final int[] befores = new int[edges.length + 32];
        System.arraycopy(edges, 0, befores, 0, edges.length);
        for (int i = edges.length; i < befores.length; i++)
        {
            befores[i] = random.nextInt(0x10000);
        }
        for (final int before : befores)
        {
            for (int updated = 0; updated <= 0xFFFF; updated++)
            {
                assertThat(Checksums.updateUdp(before, updated)).isEqualTo(udpRule(before, updated));
            }
        }
        for (int before = 0; before <= 0xFFFF; before++)
        {
            for (final int updated : edges)
            {
                assertThat(Checksums.updateUdp(before, updated)).isEqualTo(udpRule(before, updated));
            }
        }
    }

    private static int udpRule(final int before, final int updated)
    {
        if (before == 0)
        {
            return 0;
        }
        return updated == 0 ? 0xFFFF : updated;
    }

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
    private final long memory = Frames.addressOf(buffer);

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 100);
    }

    /**
     * NAT of an IPv4 address and port in place ({@link Checksums#natAddressV4}, {@link Checksums#natPortV4}) leaves
     * exactly the bytes a rewrite with both checksums recomputed in full gives: TTL, addresses, ports and checksums.
     */
    @ParameterizedTest
    @MethodSource("seeds")
    void shouldMatchRecomputationWhenNatRewritesAnIpv4AddressAndPort(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 20; i++)
        {
            final int protocol = random.nextBoolean() ? TCP : UDP;
            final byte[] packet = validPacket(random, false, protocol);
            // The caller of the rewrite has checked that the TTL is above 1.
            packet[8] = (byte)(2 + random.nextInt(254));
            ChecksumReferenceTest.putU16(packet, 10, ChecksumReferenceTest.ipv4HeaderChecksum(packet));
            final boolean source = random.nextBoolean();
            final int newAddress = random.nextInt();
            final int newPort = random.nextInt(0x10000);

            final byte[] rewritten = natV4(packet, random, source, protocol, newAddress, newPort);

            final byte[] expected = packet.clone();
            final int header = ChecksumReferenceTest.ipHeaderLength(expected);
            expected[8]--;
            ByteBuffer.wrap(expected).putInt(source ? 12 : 16, newAddress)
                .putShort(header + (source ? 0 : 2), (short)newPort);
            ChecksumReferenceTest.putU16(expected, 10, ChecksumReferenceTest.ipv4HeaderChecksum(expected));
            ChecksumReferenceTest.putU16(expected, header + ChecksumReferenceTest.checksumOffset(protocol),
                recomputed(expected, random));
            assertThat(rewritten).isEqualTo(expected);
        }
    }

    /**
     * The in-place update, taken in the frame's byte order, against RFC 1624's form in network order applied in
     * turn (the address, then the port): the same transport checksum for the edge values that make one's-complement
     * zeros (all-ones and zero addresses, ports and checksums) and a seeded sample, under TCP's and UDP's rules.
     */
    @ParameterizedTest
    @MethodSource("seeds")
    void shouldGiveTheNetworkOrderUpdateWhenNatRewritesAnIpv4Port(final long seed)
    {
        final Random random = new Random(seed);
        final int[] addresses = {0, -1, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_0000, 0x0000_FFFF};
        final int[] sixteen = {0, 1, 0xFFFF, 0xFFFE, 0xFF00, 0x00FF, 0x0100, 0x8000};
        for (int i = 0; i < 2_000; i++)
        {
            final boolean udp = random.nextBoolean();
            final int checksum = i % 4 == 0 ? sixteen[random.nextInt(sixteen.length)] : random.nextInt(0x10000);
            final int oldAddress = i % 3 == 0 ? addresses[random.nextInt(addresses.length)] : random.nextInt();
            final int newAddress = i % 5 == 0 ? addresses[random.nextInt(addresses.length)] : random.nextInt();
            final int oldPort = i % 7 == 0 ? sixteen[random.nextInt(sixteen.length)] : random.nextInt(0x10000);
            final int newPort = i % 2 == 0 ? sixteen[random.nextInt(sixteen.length)] : random.nextInt(0x10000);
            final long header = memory + random.nextInt(16);
            final long l4 = header + 20;
            final long field = l4 + (udp ? 6 : 16);
            Frames.putU8(header + 8, 64);
            Frames.putI32(header + 16, oldAddress);
            Frames.putU16(l4 + 2, oldPort);
            Frames.putU16(field, checksum);

            Checksums.natPortV4(field, udp, l4 + 2, newPort, Checksums.natAddressV4(header, 16, newAddress));

            final int networkOrder =
                Checksums.update16(Checksums.update32(checksum, oldAddress, newAddress), oldPort, newPort);
            assertThat(Frames.u16(field))
                .as("%s checksum %04x, %08x -> %08x, port %04x -> %04x", udp ? "udp" : "tcp", checksum, oldAddress,
                    newAddress, oldPort, newPort)
                .isEqualTo(udp ? Checksums.updateUdp(checksum, networkOrder) : networkOrder);
            assertThat(Frames.i32(header + 16)).isEqualTo(newAddress);
            assertThat(Frames.u16(l4 + 2)).isEqualTo(newPort);
        }
    }

    /**
     * @return the packet's bytes after {@link Checksums#natAddressV4} and {@link Checksums#natPortV4} rewrote its
     *         source or destination, done in memory at a random alignment.
     */
    private byte[] natV4(final byte[] packet, final Random random, final boolean source, final int protocol,
        final int newAddress, final int newPort)
    {
        final long ip = memory + random.nextInt(16);
        Frames.write(packet, ip);
        final long l4 = ip + ChecksumReferenceTest.ipHeaderLength(packet);
        final int change = Checksums.natAddressV4(ip, source ? 12 : 16, newAddress);
        Checksums.natPortV4(l4 + ChecksumReferenceTest.checksumOffset(protocol), protocol == UDP, l4 + (source ? 0 : 2),
            newPort, change);
        return Frames.read(ip, packet.length);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldMatchRecomputationWhenNatRewritesAnIpv6AddressAndPort(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 20; i++)
        {
            final int protocol = random.nextBoolean() ? TCP : UDP;
            final byte[] packet = validPacket(random, true, protocol);
            final boolean source = random.nextBoolean();
            final int addressOffset = source ? 8 : 24;
            final int portOffset = 40 + (source ? 0 : 2);
            final ByteBuffer view = ByteBuffer.wrap(packet);
            final long oldHigh = view.getLong(addressOffset);
            final long oldLow = view.getLong(addressOffset + 8);
            final int oldPort = view.getShort(portOffset) & 0xFFFF;
            final int oldChecksum = ChecksumReferenceTest.transportField(packet);
            final long newHigh = random.nextLong();
            final long newLow = random.nextInt(4) == 0 ? oldLow : random.nextLong();
            final int newPort = random.nextInt(4) == 0 ? oldPort : random.nextInt(0x10000);
            view.putLong(addressOffset, newHigh).putLong(addressOffset + 8, newLow);
            view.putShort(portOffset, (short)newPort);

            final int updated = protocol == TCP ?
                Checksums.updateTcpV6(oldChecksum, oldHigh, oldLow, newHigh, newLow, oldPort, newPort) :
                Checksums.updateUdpV6(oldChecksum, oldHigh, oldLow, newHigh, newLow, oldPort, newPort);
            assertThat(updated).isEqualTo(recomputed(packet, random));
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldMatchRecomputationWhenOnlyAPortChanges(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 20; i++)
        {
            final int protocol = random.nextBoolean() ? TCP : UDP;
            final byte[] packet = validPacket(random, random.nextBoolean(), protocol);
            final int portOffset = ChecksumReferenceTest.ipHeaderLength(packet) + 2 * random.nextInt(2);
            final int oldPort = ChecksumReferenceTest.u16(packet, portOffset);
            final int oldChecksum = ChecksumReferenceTest.transportField(packet);
            final int newPort = random.nextInt(0x10000);
            ChecksumReferenceTest.putU16(packet, portOffset, newPort);

            final int updated = Checksums.update16(oldChecksum, oldPort, newPort);
            assertThat(protocol == UDP ? Checksums.updateUdp(oldChecksum, updated) : updated)
                .isEqualTo(recomputed(packet, random));
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldMatchRecomputationWhenIcmpChanges(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 20; i++)
        {
            final boolean v6 = random.nextBoolean();
            final byte[] packet = validPacket(random, v6, v6 ? ICMPV6 : ICMP);
            final int header = ChecksumReferenceTest.ipHeaderLength(packet);
            final int oldChecksum = ChecksumReferenceTest.transportField(packet);
            final ByteBuffer view = ByteBuffer.wrap(packet);
            final int expected;
            if (v6)
            {
                // ICMPv6 covers the pseudo-header: an address rewrite must be carried into it.
                final int addressOffset = random.nextBoolean() ? 8 : 24;
                final long oldHigh = view.getLong(addressOffset);
                final long oldLow = view.getLong(addressOffset + 8);
                final long newHigh = random.nextLong();
                final long newLow = random.nextLong();
                view.putLong(addressOffset, newHigh).putLong(addressOffset + 8, newLow);
                expected = Checksums.update128(oldChecksum, oldHigh, oldLow, newHigh, newLow);
            }
            else
            {
                // ICMP over IPv4 does not: only the echo identifier rewrite (bytes 4-5) changes its checksum.
                view.putInt(16, random.nextInt());
                final int oldIdentifier = view.getShort(header + 4) & 0xFFFF;
                final int newIdentifier = random.nextInt(0x10000);
                view.putShort(header + 4, (short)newIdentifier);
                expected = Checksums.update16(oldChecksum, oldIdentifier, newIdentifier);
            }
            assertThat(expected).isEqualTo(recomputed(packet, random));
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldKeepNoChecksumWhenNatRewritesAUdpDatagramWithoutOne(final long seed)
    {
        final Random random = new Random(seed);
        final byte[] datagram = validPacket(random, false, UDP);
        final int header = ChecksumReferenceTest.ipHeaderLength(datagram);
        ChecksumReferenceTest.putU16(datagram, header + 6, 0);
        final byte[] rewritten = natV4(datagram, random, random.nextBoolean(), UDP, random.nextInt(),
            random.nextInt(0x10000));
        assertThat(ChecksumReferenceTest.u16(rewritten, header + 6)).isZero();
        assertThat(Checksums.updateUdpV6(0, random.nextLong(), random.nextLong(), random.nextLong(),
            random.nextLong(), random.nextInt(0x10000), random.nextInt(0x10000))).isZero();
        assertThat(Checksums.updateUdp(0, Checksums.update16(0, random.nextInt(0x10000), random.nextInt(0x10000))))
            .isZero();
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldWriteFfffWhenAUdpUpdateYieldsZero(final long seed)
    {
        final Random random = new Random(seed);
        final boolean v6 = (seed & 1) == 0;
        final byte[] packet = validPacket(random, v6, UDP);
        final int header = ChecksumReferenceTest.ipHeaderLength(packet);
        final int addressOffset = v6 ? 24 : 16;
        final ByteBuffer view = ByteBuffer.wrap(packet);
        final long oldHigh = v6 ? view.getLong(addressOffset) : 0;
        final long oldLow = v6 ? view.getLong(addressOffset + 8) : view.getInt(addressOffset);
        final int oldPort = ChecksumReferenceTest.u16(packet, header + 2);
        // Rewrite the destination, then pick the new port so that the rewritten datagram's checksum computes to 0.
        final long newHigh = random.nextLong();
        final long newLow = random.nextLong();
        if (v6)
        {
            view.putLong(addressOffset, newHigh).putLong(addressOffset + 8, newLow);
        }
        else
        {
            view.putInt(addressOffset, (int)newLow);
        }
        ChecksumReferenceTest.tune(packet, header + 2, ChecksumReferenceTest::transportSum, 0xFFFF);
        final int newPort = ChecksumReferenceTest.u16(packet, header + 2);
        final int oldChecksum = ChecksumReferenceTest.transportField(packet);

        final int updated;
        if (v6)
        {
            updated = Checksums.updateUdpV6(oldChecksum, oldHigh, oldLow, newHigh, newLow, oldPort, newPort);
        }
        else
        {
            // In place, from the datagram as it was before the rewrite above.
            final byte[] before = packet.clone();
            ByteBuffer.wrap(before).putInt(addressOffset, (int)oldLow).putShort(header + 2, (short)oldPort);
            ChecksumReferenceTest.putU16(before, header + 6, oldChecksum);
            before[8] = 64;
            updated = ChecksumReferenceTest.u16(natV4(before, random, false, UDP, (int)newLow, newPort), header + 6);
        }
        assertThat(updated).isEqualTo(0xFFFF).isEqualTo(recomputed(packet, random));
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldMatchRecomputationWhenTheTtlIsDecremented(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 20; i++)
        {
            final byte[] packet = validPacket(random, false, random.nextBoolean() ? TCP : UDP);
            packet[8] = (byte)(2 + random.nextInt(254));
            ChecksumReferenceTest.putU16(packet, 10, ChecksumReferenceTest.ipv4HeaderChecksum(packet));
            assertDecrementMatchesRecomputation(random, packet);
        }
    }

    /**
     * Checksums whose rise by 0x0100 carries out of 16 bits, or lands on 0xFFFF, the -0 a full computation
     * never gives.
     */
    @ParameterizedTest
    @ValueSource(ints = {0x0000, 0x0001, 0x00FF, 0xFEFE, 0xFEFF, 0xFF00, 0xFF01, 0xFFFE})
    void shouldMatchRecomputationWhenTheTtlDecrementCarries(final int checksum)
    {
        final Random random = new Random(checksum);
        final byte[] packet = validPacket(random, false, TCP);
        packet[8] = 64;
        // Tune the identification so that the header's checksum is the one under test.
        ChecksumReferenceTest.tune(packet, 4, ChecksumReferenceTest::ipv4HeaderSum, ~checksum & 0xFFFF);
        ChecksumReferenceTest.putU16(packet, 10, checksum);
        assertDecrementMatchesRecomputation(random, packet);
    }

    @Test
    void shouldDecrementTheRealHeaderAsTheKernelDoes()
    {
        Frames.write(ChecksumReferenceTest.realIpv4Header(), memory + 1);
        assertThat(Checksums.decrementTtl(memory + 1)).isEqualTo(63);
        assertThat(Frames.u16(memory + 1 + 10)).isEqualTo(0xb961);
        assertThat(Checksums.isIpv4HeaderChecksumValid(memory + 1)).isTrue();
    }

    private void assertDecrementMatchesRecomputation(final Random random, final byte[] packet)
    {
        final int ttl = packet[8] & 0xFF;
        final long header = memory + random.nextInt(16);
        Frames.write(packet, header);

        assertThat(Checksums.decrementTtl(header)).isEqualTo(ttl - 1);

        packet[8] = (byte)(ttl - 1);
        final int expected = ChecksumReferenceTest.ipv4HeaderChecksum(packet);
        assertThat(Frames.u8(header + 8)).isEqualTo(ttl - 1);
        assertThat(Frames.u16(header + 10)).as("checksum %04x", ChecksumReferenceTest.u16(packet, 10))
            .isEqualTo(expected).isEqualTo(Checksums.ipv4HeaderChecksum(header));
        assertThat(Checksums.isIpv4HeaderChecksumValid(header)).isTrue();
    }

    /**
     * @return a random packet whose transport checksum (and IPv4 header checksum) is correct.
     */
    private static byte[] validPacket(final Random random, final boolean v6, final int protocol)
    {
        final int minimum = ChecksumReferenceTest.minimumLength(protocol);
        final byte[] packet = ChecksumReferenceTest.randomPacket(
            random, v6, protocol, minimum + random.nextInt(1501 - minimum));
        final int header = ChecksumReferenceTest.ipHeaderLength(packet);
        ChecksumReferenceTest.putU16(packet, header + ChecksumReferenceTest.checksumOffset(protocol),
            ChecksumReferenceTest.transportChecksum(packet));
        if (!v6)
        {
            ChecksumReferenceTest.putU16(packet, 10, ChecksumReferenceTest.ipv4HeaderChecksum(packet));
        }
        return packet;
    }

    /**
     * @return the transport checksum of the changed packet by full recomputation, asserting that the oracle and
     * {@link Checksums} agree on it.
     */
    private int recomputed(final byte[] packet, final Random random)
    {
        final long ip = memory + random.nextInt(16);
        Frames.write(packet, ip);
        final int expected = ChecksumReferenceTest.transportChecksum(packet);
        assertThat(new ChecksumFullTest.Layout(packet, ip).compute()).isEqualTo(expected);
        return expected;
    }

    /**
     * The one update NAT makes of an IPv4 header's checksum for its TTL and an address gives, for any checksum, TTL
     * and addresses (including the all-ones and zero ones that make one's-complement zeros), exactly the checksum the
     * two updates in turn give, in network order.
     */
    @ParameterizedTest
    @MethodSource("seeds")
    void shouldGiveTheTwoStepChecksumWhenTtlAndAnAddressChangeInOneUpdate(final long seed)
    {
        final Random random = new Random(seed);
        final int[] edges = {0, 1, 0xFFFF, 0xFEFF, 0xFF00, 0x00FF, 0x0100, 0xFFFE};
        final int[] addresses = {0, -1, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_0000, 0x0000_FFFF};
        for (int i = 0; i < 2_000; i++)
        {
            final int checksum = i < edges.length * 4 ? edges[i % edges.length] : random.nextInt(0x10000);
            final int ttl = 2 + random.nextInt(254);
            final int protocol = random.nextInt(256);
            final int oldAddress = i % 3 == 0 ? addresses[random.nextInt(addresses.length)] : random.nextInt();
            final int newAddress = i % 7 == 0 ? addresses[random.nextInt(addresses.length)] : random.nextInt();
            final long twoStep = memory;
            final long oneStep = memory + 64 + random.nextInt(8);
            for (final long header : new long[] {twoStep, oneStep})
            {
                Frames.putU8(header + 8, ttl);
                Frames.putU8(header + 9, protocol);
                Frames.putU16(header + 10, checksum);
                Frames.putI32(header + 16, oldAddress);
            }

            Checksums.decrementTtl(twoStep);
            Frames.putU16(twoStep + 10, Checksums.update32(Frames.u16(twoStep + 10), oldAddress, newAddress));
            Checksums.natAddressV4(oneStep, 16, newAddress);

            assertThat(Frames.u16(oneStep + 10))
                .as("checksum %04x ttl %d %08x -> %08x", checksum, ttl, oldAddress, newAddress)
                .isEqualTo(Frames.u16(twoStep + 10));
            assertThat(Frames.u8(oneStep + 8)).isEqualTo(ttl - 1);
            assertThat(Frames.u8(oneStep + 9)).isEqualTo(protocol);
            assertThat(Frames.i32(oneStep + 16)).isEqualTo(newAddress);
        }
    }
}
