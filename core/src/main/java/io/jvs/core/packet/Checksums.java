package io.jvs.core.packet;

import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * The Internet checksum (RFC 1071) over off-heap frames, its pseudo-header forms for TCP, UDP, ICMP and
 * ICMPv6, and the incremental updates (RFC 1624) that NAT and forwarding need.
 * <p>
 * A 16-bit checksum or field is a plain int 0..0xFFFF, as {@link Frames#u16} reads it and {@link Frames#putU16}
 * writes it. Nothing here allocates, throws or checks bounds: the caller has checked that every byte named is
 * inside the frame, and that a layer-4 length covers at least the layer-4 header.
 * <p>
 * The sum: bytes are read 8 at a time and both 32-bit halves added into a 64-bit accumulator, which cannot
 * overflow below 2^31 bytes. As 2^16 = 1 modulo 0xFFFF, the sum of 32-bit big-endian chunks folds to the
 * one's-complement sum of the RFC's 16-bit words, and it stays the plain arithmetic sum of the chunks: so a
 * checksum field can be "treated as zero" exactly, by subtracting its share, without writing to the frame.
 * Every fold gives 0 only for all-zero input and otherwise the one value in 1..0xFFFF with the right residue,
 * which is why full and incremental results agree bit for bit.
 * <p>
 * Offload: the pipeline always treats a checksum field as a full, complemented checksum. A field a sender left
 * "partial" (CHECKSUM_PARTIAL: the folded pseudo-header sum, not complemented) is not fixed up here.
 */
public final class Checksums
{
    private static final int PROTOCOL_ICMP = 1;
    private static final int PROTOCOL_TCP = 6;
    private static final int PROTOCOL_UDP = 17;
    private static final int IPV4_TTL_OFFSET = 8;
    private static final int IPV4_CHECKSUM_OFFSET = 10;
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    /** ~m + m' of RFC 1624 eqn. 3 for the TTL's decrement, in the frame's byte order (see {@link #natAddressV4}). */
    private static final int TTL_DECREMENT = LITTLE_ENDIAN ? 0xFFFE : 0xFEFF;

    private Checksums()
    {
    }

    /**
     * @param length bytes from the address, any number; an odd last byte is padded with a zero byte.
     * @return the 16-bit one's-complement sum, 0..0xFFFF; 0 only when every byte is zero.
     */
    public static int sum(final long address, final int length)
    {
        return fold(add(address, length));
    }

    /**
     * @return the Internet checksum of the bytes: the complement of {@link #sum}.
     */
    public static int checksum(final long address, final int length)
    {
        return ~fold(add(address, length)) & 0xFFFF;
    }

    /**
     * @param header an IPv4 header whose IHL has been checked (5..15).
     * @return the checksum of its IHL*4 bytes with the checksum field treated as zero, to write there.
     */
    public static int ipv4HeaderChecksum(final long header)
    {
        // The field is at offset 10, the low half of its chunk.
        return ~fold(addIpv4Header(header) - Frames.u16(header + IPV4_CHECKSUM_OFFSET)) & 0xFFFF;
    }

    /**
     * @param header an IPv4 header whose IHL has been checked (5..15).
     * @return whether its IHL*4 bytes, checksum included, sum to 0xFFFF.
     */
    public static boolean isIpv4HeaderChecksumValid(final long header)
    {
        return fold(addIpv4Header(header)) == 0xFFFF;
    }

    /**
     * The checksum of a TCP or UDP segment with the IPv4 pseudo-header, or of an ICMP message (none).
     *
     * @param addresses the IPv4 source address field, followed by the destination (IPv4 header + 12).
     * @param protocol  TCP (6), UDP (17) or ICMP (1); nothing else.
     * @param segment   the layer-4 header.
     * @param length    layer-4 header and payload, in bytes.
     * @return the checksum with the field treated as zero, to write there; for UDP a computed 0 is 0xFFFF.
     */
    public static int transportChecksumV4(
        final long addresses, final int protocol, final long segment, final int length)
    {
        return complement(sumV4(addresses, protocol, segment, length), protocol, segment);
    }

    /**
     * As {@link #transportChecksumV4} with the IPv6 pseudo-header.
     *
     * @param addresses  the IPv6 source address field, followed by the destination (IPv6 header + 8).
     * @param nextHeader TCP (6), UDP (17) or ICMPv6 (58): the last next header, after any extension headers.
     */
    public static int transportChecksumV6(
        final long addresses, final int nextHeader, final long segment, final int length)
    {
        return complement(sumV6(addresses, nextHeader, segment, length), nextHeader, segment);
    }

    /**
     * Arguments as {@link #transportChecksumV4}. A UDP field of 0 means the sender computed no checksum, which
     * IPv4 allows: true.
     *
     * @return whether the segment and pseudo-header, checksum included, sum to 0xFFFF.
     */
    public static boolean isTransportChecksumValidV4(
        final long addresses, final int protocol, final long segment, final int length)
    {
        return (protocol == PROTOCOL_UDP && Frames.u16(segment + 6) == 0) ||
            fold(sumV4(addresses, protocol, segment, length)) == 0xFFFF;
    }

    /**
     * Arguments as {@link #transportChecksumV6}. A UDP field of 0 is invalid over IPv6 (RFC 8200 8.1): false,
     * even where 0 and 0xFFFF would sum alike; the zero-checksum tunnels of RFC 6935 are not accepted.
     *
     * @return whether the segment and pseudo-header, checksum included, sum to 0xFFFF.
     */
    public static boolean isTransportChecksumValidV6(
        final long addresses, final int nextHeader, final long segment, final int length)
    {
        return (nextHeader != PROTOCOL_UDP || Frames.u16(segment + 6) != 0) &&
            fold(sumV6(addresses, nextHeader, segment, length)) == 0xFFFF;
    }

    /**
     * RFC 1624 equation 3, HC' = ~(~HC + ~m + m'), for one 16-bit field. On a UDP checksum, pass the result
     * through {@link #updateUdp}.
     *
     * @param checksum the checksum before.
     * @param oldValue the field before, 0..0xFFFF.
     * @param newValue the field after, 0..0xFFFF.
     * @return the checksum after.
     */
    public static int update16(final int checksum, final int oldValue, final int newValue)
    {
        return ~fold((~checksum & 0xFFFF) + (~oldValue & 0xFFFF) + newValue) & 0xFFFF;
    }

    /**
     * As {@link #update16} for a 32-bit field, such as an IPv4 address in the IPv4 header checksum.
     */
    public static int update32(final int checksum, final int oldValue, final int newValue)
    {
        return ~fold((~checksum & 0xFFFF) + (~oldValue & 0xFFFF_FFFFL) + (newValue & 0xFFFF_FFFFL)) & 0xFFFF;
    }

    /**
     * As {@link #update16} for a 128-bit field given as big-endian halves, such as an IPv6 address in an
     * ICMPv6 checksum.
     */
    public static int update128(
        final int checksum, final long oldHigh, final long oldLow, final long newHigh, final long newLow)
    {
        return ~fold((~checksum & 0xFFFF) + difference128(oldHigh, oldLow, newHigh, newLow)) & 0xFFFF;
    }

    /**
     * A TCP checksum after NAT rewrote an IPv6 address (source or destination: the pseudo-header holds both), given
     * as big-endian halves, and the port beside it, in one step.
     */
    public static int updateTcpV6(
        final int checksum, final long oldHigh, final long oldLow, final long newHigh, final long newLow,
        final int oldPort, final int newPort)
    {
        return ~fold((~checksum & 0xFFFF) + difference128(oldHigh, oldLow, newHigh, newLow) +
            (~oldPort & 0xFFFF) + newPort) & 0xFFFF;
    }

    /**
     * As {@link #updateTcpV6} with the rules of {@link #updateUdp}, which keep an invalid 0 as 0.
     */
    public static int updateUdpV6(
        final int checksum, final long oldHigh, final long oldLow, final long newHigh, final long newLow,
        final int oldPort, final int newPort)
    {
        return updateUdp(checksum, updateTcpV6(checksum, oldHigh, oldLow, newHigh, newLow, oldPort, newPort));
    }

    /**
     * The UDP rules (RFC 768) on an updated checksum: a field of 0, "no checksum", stays 0, and an update that
     * yields 0 is written as 0xFFFF, its other one's-complement form. Over IPv6 a 0 is invalid, yet it also
     * stays 0, as Linux NAT leaves it: the datagram goes on exactly as bad as it came (an RFC 8200 receiver
     * drops it, an RFC 6935 tunnel endpoint takes it) instead of gaining a checksum nobody computed.
     *
     * @param before  the UDP checksum before the update.
     * @param updated what {@link #update16}, {@link #update32} or {@link #update128} returned for it.
     * @return the UDP checksum to write.
     */
    public static int updateUdp(final int before, final int updated)
    {
        // Without branches, so that its speed does not hang on what the JIT saw: compiled after datagrams that all
        // had checksums, a branch on "before == 0" was left out, and the first datagram without one deoptimized
        // the loop it is inlined into. updated - 1 is negative only for 0, which then becomes 0xFFFF; before - 1
        // is negative only for 0, whose mask clears the result. Both are 16-bit values.
        final int written = updated | (updated - 1) >>> 16 & 0xFFFF;
        return written & ~((before - 1) >> 31);
    }

    /**
     * Decrements the TTL of an IPv4 header and updates its checksum in place, as Linux ip_decrease_ttl does:
     * the TTL is the high byte of the word TTL|protocol, so that word drops by 0x0100 and the checksum rises by
     * 0x0100, with end-around carry. The caller has checked that the TTL is above 1.
     *
     * @param header an IPv4 header.
     * @return the new TTL.
     */
    public static int decrementTtl(final long header)
    {
        final int ttl = Frames.u8(header + IPV4_TTL_OFFSET) - 1;
        final int check = Frames.u16(header + IPV4_CHECKSUM_OFFSET) + 0x0100;
        // >= rather than >: 0xFFFF (-0) becomes 0x0000, the form a full computation gives.
        Frames.putU16(header + IPV4_CHECKSUM_OFFSET, check + (check >= 0xFFFF ? 1 : 0));
        Frames.putU8(header + IPV4_TTL_OFFSET, ttl);
        return ttl;
    }

    /**
     * NAT's rewrite of an IPv4 address in place: decrements the TTL of a header whose TTL the caller has checked is
     * above 1, writes the new address at {@code addressOffset} (the source's 12 or the destination's 16) and updates
     * the header checksum for both in one step (RFC 1624, eqn. 3, as Linux's ip_decrease_ttl and
     * inet_proto_csum_replace4 would in turn). For the transport checksum, pass what it returns to {@link #natPortV4}.
     * <p>
     * The sums are taken on the fields as a native load gives them, without swapping their bytes, and stored back
     * the same way: swapping a 16-bit word's bytes multiplies it by 256 modulo 0xFFFF, so a one's-complement sum
     * taken in either byte order is the other's swapped (RFC 1071, section 2(B)), zeros included, as both sums are
     * positive. In that order the TTL's word (TTL, protocol) loses 1 on a little-endian machine, not 0x0100.
     *
     * @param newAddress the address, as {@link Frames#i32} reads one.
     * @return the address change's share of a checksum, unfolded (below 2^18), in the frame's byte order.
     */
    public static int natAddressV4(final long header, final int addressOffset, final int newAddress)
    {
        final long field = header + addressOffset;
        final int oldValue = UnsafeApi.getIntUnaligned(null, field);
        final int newValue = LITTLE_ENDIAN ? Integer.reverseBytes(newAddress) : newAddress;
        final int change = (~oldValue & 0xFFFF) + (~oldValue >>> 16) + (newValue & 0xFFFF) + (newValue >>> 16);
        final long checksum = header + IPV4_CHECKSUM_OFFSET;
        UnsafeApi.putShortUnaligned(null, checksum, (short)~foldSmall(
            (~UnsafeApi.getShortUnaligned(null, checksum) & 0xFFFF) + change + TTL_DECREMENT));
        UnsafeApi.putByte(header + IPV4_TTL_OFFSET, (byte)(UnsafeApi.getByte(header + IPV4_TTL_OFFSET) - 1));
        UnsafeApi.putIntUnaligned(null, field, newValue);
        return change;
    }

    /**
     * The transport half of {@link #natAddressV4}: writes the new port at {@code port} and updates the TCP or UDP
     * checksum at {@code checksum} for the port and the address in one step, in the frame's byte order as there.
     *
     * @param udp           whether UDP's rules ({@link #updateUdp}, which hold in either byte order) apply.
     * @param newPort       0..0xFFFF.
     * @param addressChange what {@link #natAddressV4} returned.
     */
    public static void natPortV4(
        final long checksum, final boolean udp, final long port, final int newPort, final int addressChange)
    {
        final int oldValue = UnsafeApi.getShortUnaligned(null, port) & 0xFFFF;
        final int newValue = LITTLE_ENDIAN ? Integer.reverseBytes(newPort) >>> 16 : newPort;
        final int before = UnsafeApi.getShortUnaligned(null, checksum) & 0xFFFF;
        final int after = ~foldSmall((~before & 0xFFFF) + addressChange + (~oldValue & 0xFFFF) + newValue) & 0xFFFF;
        UnsafeApi.putShortUnaligned(null, checksum, (short)(udp ? updateUdp(before, after) : after));
        UnsafeApi.putShortUnaligned(null, port, (short)newValue);
    }

    /**
     * Folds a sum below 2^20 to 16 bits with end-around carry: the low 16 bits of the result are the folded sum
     * (the first step leaves at most 0xFFFF + 0xF, whose carry the second adds back without carrying again).
     */
    private static int foldSmall(final int sum)
    {
        final int once = (sum & 0xFFFF) + (sum >>> 16);
        return once + (once >>> 16);
    }

    /**
     * Takes the checksum field's share out of a plain sum and complements. The field is in the high half of its
     * 32-bit chunk for TCP (offset 16), in the low half for UDP (6), ICMP and ICMPv6 (2).
     */
    private static int complement(final long sum, final int protocol, final long segment)
    {
        final long field = protocol == PROTOCOL_TCP ?
            (long)Frames.u16(segment + 16) << 16 : Frames.u16(segment + (protocol == PROTOCOL_UDP ? 6 : 2));
        final int checksum = ~fold(sum - field) & 0xFFFF;
        return protocol == PROTOCOL_UDP && checksum == 0 ? 0xFFFF : checksum;
    }

    private static long sumV4(final long addresses, final int protocol, final long segment, final int length)
    {
        if (protocol == PROTOCOL_ICMP)
        {
            return add(segment, length);
        }
        final long both = Frames.i64(addresses);
        return add(segment, length) + (both >>> 32) + (both & 0xFFFF_FFFFL) + protocol + length;
    }

    private static long sumV6(final long addresses, final int nextHeader, final long segment, final int length)
    {
        // The 32-bit length as a whole chunk: the same as its two words.
        return add(segment, length) + add(addresses, 32) + (length & 0xFFFF_FFFFL) + nextHeader;
    }

    private static long addIpv4Header(final long header)
    {
        final int length = (Frames.u8(header) & 0xF) << 2;
        if (length != 20)
        {
            return add(header, length);
        }
        // No options, nearly always: straight-line code beats the loop here (ChecksumBenchmark).
        final long first = Frames.i64(header);
        final long second = Frames.i64(header + 8);
        return (first >>> 32) + (first & 0xFFFF_FFFFL) + (second >>> 32) + (second & 0xFFFF_FFFFL) +
            (Frames.i32(header + 16) & 0xFFFF_FFFFL);
    }

    /**
     * @return the plain sum of the 32-bit big-endian chunks of [address, address + length), counted from the
     * address.
     */
    private static long add(final long address, final int length)
    {
        // Keep this loop this simple: C2 vectorizes it (-XX:-UseSuperWord makes 1500 bytes 3x slower). In a JMH
        // comparison, unrolling by hand or adding whole 64-bit words with a carry test stopped that and ran 3 to
        // 6 times slower; native-order reads saved nothing. ChecksumBenchmark.words16 is the 16-bit baseline.
        long sum = 0;
        long at = address;
        final long end = address + (length & ~7);
        while (at < end)
        {
            final long word = Frames.i64(at);
            sum += (word >>> 32) + (word & 0xFFFF_FFFFL);
            at += 8;
        }
        if ((length & 4) != 0)
        {
            sum += Frames.i32(at) & 0xFFFF_FFFFL;
            at += 4;
        }
        if ((length & 2) != 0)
        {
            sum += (long)Frames.u16(at) << 16;
            at += 2;
        }
        if ((length & 1) != 0)
        {
            // The high byte of a zero-padded word. Its place in the chunk does not matter (<< 8 and << 24 are
            // congruent modulo 0xFFFF) as long as it is never a checksum field's, and it never is.
            sum += (long)Frames.u8(at) << 8;
        }
        return sum;
    }

    /**
     * ~old + new over eight 16-bit words, as 32-bit chunks: ~x of a chunk is 0xFFFFFFFF - x, and 0xFFFFFFFF is
     * 0 modulo 0xFFFF, so it negates both words of the chunk at once.
     */
    private static long difference128(final long oldHigh, final long oldLow, final long newHigh, final long newLow)
    {
        return (~oldHigh >>> 32) + (~oldHigh & 0xFFFF_FFFFL) + (~oldLow >>> 32) + (~oldLow & 0xFFFF_FFFFL) +
            (newHigh >>> 32) + (newHigh & 0xFFFF_FFFFL) + (newLow >>> 32) + (newLow & 0xFFFF_FFFFL);
    }

    /**
     * Folds a non-negative sum below 2^63 to 16 bits with end-around carry.
     */
    private static int fold(final long sum)
    {
        long folded = (sum >>> 32) + (sum & 0xFFFF_FFFFL);
        folded = (folded >>> 32) + (folded & 0xFFFF_FFFFL);
        final int result = (int)(folded >>> 16) + (int)(folded & 0xFFFF);
        return (result >>> 16) + (result & 0xFFFF);
    }
}
