package io.jvs.core.packet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fragments against RFC 791's rules, over random packets (options copied or not, packets that are fragments
 * themselves, link headers with a VLAN tag or without) and MTUs: each fits, has a valid header checksum, carries a
 * multiple of 8 bytes unless it is the last, and the fragments put back together give the packet.
 */
class Ipv4FragmenterTest
{
    private static final int OUT_CAPACITY = 1 << 18;
    private final ByteBuffer in = ByteBuffer.allocateDirect(1 << 17);
    private final ByteBuffer out = ByteBuffer.allocateDirect(OUT_CAPACITY);
    private final long inAddress = Frames.addressOf(in);
    private final long outAddress = Frames.addressOf(out);

    static LongStream seeds()
    {
        return LongStream.range(1, 301);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldSplitAPacketIntoFragmentsThatPutBackTogetherGiveIt(final long seed)
    {
        final Random random = new Random(seed);
        final int l3Offset = random.nextBoolean() ? 14 : 18;
        final byte[] link = new byte[l3Offset];
        random.nextBytes(link);
        final byte[] options = options(random);
        final int headerLength = 20 + options.length;
        final int mtu = 68 + random.nextInt(1500);
        final int payloadLength = mtu - headerLength + 1 + random.nextInt(9000);
        final byte[] payload = new byte[payloadLength];
        random.nextBytes(payload);
        final int ownOffset = random.nextBoolean() ? 0 : random.nextInt(1000);
        final boolean ownMore = random.nextBoolean();
        final byte[] packet = packet(link, options, payload, ownOffset, ownMore, false);
        Frames.write(packet, inAddress);

        final Ipv4Fragmenter fragmenter = new Ipv4Fragmenter(2048);
        final int count = fragmenter.fragment(inAddress, l3Offset, mtu, outAddress, OUT_CAPACITY);

        assertThat(count).isGreaterThan(1);
        final ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (int f = 0; f < count; f++)
        {
            final byte[] fragment = Frames.read(fragmenter.address(f), fragmenter.length(f));
            assertThat((fragmenter.address(f) - outAddress) % 64).as("64-byte aligned").isZero();
            assertThat(Arrays.copyOf(fragment, l3Offset)).as("the link header").isEqualTo(link);
            final long ip = fragmenter.address(f) + l3Offset;
            final int fragmentHeader = Ipv4Header.headerLength(ip);
            final int total = Ipv4Header.totalLength(ip);
            assertThat(total).as("fits the MTU").isLessThanOrEqualTo(mtu).isEqualTo(fragment.length - l3Offset);
            assertThat(Checksums.isIpv4HeaderChecksumValid(ip)).isTrue();
            final int flags = Ipv4Header.flagsAndFragment(ip);
            assertThat(flags & Ipv4Header.FLAG_DONT_FRAGMENT).isZero();
            final boolean last = f == count - 1;
            assertThat((flags & Ipv4Header.FLAG_MORE_FRAGMENTS) != 0).isEqualTo(!last || ownMore);
            assertThat((flags & Ipv4Header.FRAGMENT_OFFSET_MASK) * 8).as("offset")
                .isEqualTo(ownOffset * 8 + joined.size());
            final int carried = total - fragmentHeader;
            if (!last)
            {
                assertThat(carried % 8).isZero();
            }
            final byte[] fragmentOptions = Arrays.copyOfRange(fragment, l3Offset + 20, l3Offset + fragmentHeader);
            assertThat(fragmentOptions).isEqualTo(f == 0 ? options : copiedOnly(options));
            // Everything else of the fixed header as the packet had it.
            for (final int field : new int[] {1, 4, 5, 8, 9, 12, 13, 14, 15, 16, 17, 18, 19})
            {
                assertThat(fragment[l3Offset + field]).as("header byte " + field).isEqualTo(packet[l3Offset + field]);
            }
            joined.write(fragment, l3Offset + fragmentHeader, carried);
        }
        assertThat(joined.toByteArray()).isEqualTo(payload);

        // A verdict carries the MTU halved (Verdict.transmitInFragments): the even MTU below an odd one must split
        // the packet into the same fragments.
        final int even = mtu & ~1;
        final List<byte[]> fragments = new ArrayList<>();
        for (int f = 0; f < count; f++)
        {
            fragments.add(Frames.read(fragmenter.address(f), fragmenter.length(f)));
        }
        final Ipv4Fragmenter again = new Ipv4Fragmenter(2048);
        assertThat(again.fragment(inAddress, l3Offset, even, outAddress, OUT_CAPACITY)).isEqualTo(count);
        for (int f = 0; f < count; f++)
        {
            assertThat(Frames.read(again.address(f), again.length(f))).as("fragment %d at MTU %d", f, even)
                .isEqualTo(fragments.get(f));
        }
    }

    @Test
    void shouldRefuseWhatCannotOrNeedNotBeFragmented()
    {
        final Ipv4Fragmenter fragmenter = new Ipv4Fragmenter(4);
        final byte[] link = new byte[14];
        Frames.write(packet(link, new byte[0], new byte[2000], 0, false, true), inAddress);
        assertThat(fragmenter.fragment(inAddress, 14, 1500, outAddress, OUT_CAPACITY)).as("DF").isEqualTo(-1);
        Frames.write(packet(link, new byte[0], new byte[2000], 0, false, false), inAddress);
        assertThat(fragmenter.fragment(inAddress, 14, 2020, outAddress, OUT_CAPACITY)).as("fits").isEqualTo(-1);
        assertThat(fragmenter.fragment(inAddress, 14, 1500, outAddress, OUT_CAPACITY)).isEqualTo(2);
        assertThat(fragmenter.fragment(inAddress, 14, 500, outAddress, OUT_CAPACITY)).as("5 fragments").isEqualTo(-1);
        assertThat(fragmenter.fragment(inAddress, 14, 1500, outAddress, 1600)).as("no room").isEqualTo(-1);
        // An option whose length runs past the header.
        Frames.write(packet(link, new byte[] {(byte)0x83, 7, 4, 0}, new byte[2000], 0, false, false), inAddress);
        assertThat(fragmenter.fragment(inAddress, 14, 1500, outAddress, OUT_CAPACITY)).isEqualTo(-1);
    }

    private static byte[] packet(final byte[] link, final byte[] options, final byte[] payload, final int offset,
        final boolean more, final boolean dontFragment)
    {
        final int headerLength = 20 + options.length;
        final ByteBuffer packet = ByteBuffer.allocate(link.length + headerLength + payload.length);
        packet.put(link);
        packet.put((byte)(0x40 | headerLength / 4)).put((byte)0x28).putShort((short)(headerLength + payload.length));
        packet.putShort((short)0x1234);
        packet.putShort((short)((dontFragment ? 0x4000 : 0) | (more ? 0x2000 : 0) | offset));
        packet.put((byte)63).put((byte)17).putShort((short)0);
        packet.putInt(0xC0A80101).putInt(0x0A000064);
        packet.put(options).put(payload);
        final byte[] bytes = packet.array();
        final ByteBuffer header = ByteBuffer.allocateDirect(headerLength);
        header.put(bytes, link.length, headerLength);
        final long address = Frames.addressOf(header);
        final int checksum = Checksums.ipv4HeaderChecksum(address);
        bytes[link.length + 10] = (byte)(checksum >>> 8);
        bytes[link.length + 11] = (byte)checksum;
        return bytes;
    }

    /** Options of up to 40 bytes: NOPs and options with the copied flag set or clear, padded with EOL. */
    private static byte[] options(final Random random)
    {
        final int length = 4 * random.nextInt(11);
        final byte[] options = new byte[length];
        int at = 0;
        while (at < length)
        {
            final int left = length - at;
            final int choice = random.nextInt(4);
            if (choice == 0 || left < 3)
            {
                options[at++] = 1;
                continue;
            }
            if (choice == 1 && left < length)
            {
                // End of options: the rest stays zero.
                break;
            }
            final int size = 2 + random.nextInt(Math.min(left - 1, 10));
            options[at] = (byte)((random.nextBoolean() ? 0x80 : 0) | 0x05 | random.nextInt(0x1F) << 0);
            options[at + 1] = (byte)size;
            for (int b = 2; b < size; b++)
            {
                options[at + b] = (byte)random.nextInt(256);
            }
            at += size;
        }
        return options;
    }

    /** The options a later fragment carries: those with the copied flag, padded with EOL to 4 bytes. */
    private static byte[] copiedOnly(final byte[] options)
    {
        final ByteArrayOutputStream copied = new ByteArrayOutputStream();
        int at = 0;
        while (at < options.length)
        {
            final int type = options[at] & 0xFF;
            if (type == 0)
            {
                break;
            }
            if (type == 1)
            {
                at++;
                continue;
            }
            final int size = options[at + 1] & 0xFF;
            if ((type & 0x80) != 0)
            {
                copied.write(options, at, size);
            }
            at += size;
        }
        while (copied.size() % 4 != 0)
        {
            copied.write(0);
        }
        return copied.toByteArray();
    }
}
