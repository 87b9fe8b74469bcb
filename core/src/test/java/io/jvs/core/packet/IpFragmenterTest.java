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
 * multiple of 8 bytes unless it is the last, and the fragments put back together give the packet. IPv6 against RFC
 * 8200's: the header kept but for its payload length and next header, a Fragment header naming the packet's next
 * header, one identification per packet and a new one for the next.
 */
class IpFragmenterTest
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

        final IpFragmenter fragmenter = new IpFragmenter(2048);
        final int count = fragmenter.fragmentV4(inAddress, l3Offset, mtu, outAddress, OUT_CAPACITY);

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
        final IpFragmenter again = new IpFragmenter(2048);
        assertThat(again.fragmentV4(inAddress, l3Offset, even, outAddress, OUT_CAPACITY)).isEqualTo(count);
        for (int f = 0; f < count; f++)
        {
            assertThat(Frames.read(again.address(f), again.length(f))).as("fragment %d at MTU %d", f, even)
                .isEqualTo(fragments.get(f));
        }
    }

    @Test
    void shouldRefuseWhatCannotOrNeedNotBeFragmented()
    {
        final IpFragmenter fragmenter = new IpFragmenter(4);
        final byte[] link = new byte[14];
        Frames.write(packet(link, new byte[0], new byte[2000], 0, false, true), inAddress);
        assertThat(fragmenter.fragmentV4(inAddress, 14, 1500, outAddress, OUT_CAPACITY)).as("DF").isEqualTo(-1);
        Frames.write(packet(link, new byte[0], new byte[2000], 0, false, false), inAddress);
        assertThat(fragmenter.fragmentV4(inAddress, 14, 2020, outAddress, OUT_CAPACITY)).as("fits").isEqualTo(-1);
        assertThat(fragmenter.fragmentV4(inAddress, 14, 1500, outAddress, OUT_CAPACITY)).isEqualTo(2);
        assertThat(fragmenter.fragmentV4(inAddress, 14, 500, outAddress, OUT_CAPACITY)).as("5 fragments").isEqualTo(-1);
        assertThat(fragmenter.fragmentV4(inAddress, 14, 1500, outAddress, 1600)).as("no room").isEqualTo(-1);
        // An option whose length runs past the header.
        Frames.write(packet(link, new byte[] {(byte)0x83, 7, 4, 0}, new byte[2000], 0, false, false), inAddress);
        assertThat(fragmenter.fragmentV4(inAddress, 14, 1500, outAddress, OUT_CAPACITY)).isEqualTo(-1);
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

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldSplitAnIpv6PacketIntoFragmentsThatPutBackTogetherGiveIt(final long seed)
    {
        final Random random = new Random(seed);
        final boolean tagged = random.nextBoolean();
        final int l3Offset = tagged ? 18 : 14;
        final byte[] link = new byte[l3Offset];
        random.nextBytes(link);
        link[12] = (byte)(tagged ? 0x81 : 0x86);
        link[13] = (byte)(tagged ? 0x00 : 0xDD);
        if (tagged)
        {
            link[16] = (byte)0x86;
            link[17] = (byte)0xDD;
        }
        final int mtu = 1280 + random.nextInt(8000);
        final byte[] payload = new byte[mtu - 40 + 1 + random.nextInt(20000)];
        random.nextBytes(payload);
        final int nextHeader = random.nextBoolean() ? 4 : 41;
        final byte[] packet = ipv6(link, nextHeader, payload, random);
        Frames.write(packet, inAddress);

        final IpFragmenter fragmenter = new IpFragmenter(2048);
        final int count = fragmenter.fragmentFrame(inAddress, packet.length, mtu, outAddress, OUT_CAPACITY);

        assertThat(count).isGreaterThan(1);
        final ByteArrayOutputStream joined = new ByteArrayOutputStream();
        int identification = 0;
        for (int f = 0; f < count; f++)
        {
            final byte[] fragment = Frames.read(fragmenter.address(f), fragmenter.length(f));
            assertThat((fragmenter.address(f) - outAddress) % 64).as("64-byte aligned").isZero();
            assertThat(Arrays.copyOf(fragment, l3Offset)).as("the link header").isEqualTo(link);
            final ByteBuffer view = ByteBuffer.wrap(fragment);
            final int payloadLength = view.getShort(l3Offset + 4) & 0xFFFF;
            assertThat(40 + payloadLength).as("fits the MTU").isLessThanOrEqualTo(mtu)
                .isEqualTo(fragment.length - l3Offset);
            assertThat(fragment[l3Offset + 6]).as("next header: Fragment").isEqualTo((byte)44);
            for (final int field : new int[] {0, 1, 2, 3, 7})
            {
                assertThat(fragment[l3Offset + field]).as("header byte " + field).isEqualTo(packet[l3Offset + field]);
            }
            assertThat(Arrays.copyOfRange(fragment, l3Offset + 8, l3Offset + 40)).as("addresses")
                .isEqualTo(Arrays.copyOfRange(packet, l3Offset + 8, l3Offset + 40));
            final int header = l3Offset + 40;
            assertThat(fragment[header]).as("the packet's next header").isEqualTo((byte)nextHeader);
            assertThat(fragment[header + 1]).as("reserved").isZero();
            final int offsetAndFlags = view.getShort(header + 2) & 0xFFFF;
            assertThat(offsetAndFlags & 6).as("reserved bits").isZero();
            final boolean last = f == count - 1;
            assertThat((offsetAndFlags & 1) != 0).as("more fragments").isEqualTo(!last);
            assertThat(offsetAndFlags & 0xFFF8).as("offset").isEqualTo(joined.size());
            if (f == 0)
            {
                identification = view.getInt(header + 4);
            }
            assertThat(view.getInt(header + 4)).as("one identification").isEqualTo(identification);
            final int carried = payloadLength - 8;
            if (!last)
            {
                assertThat(carried % 8).isZero();
            }
            joined.write(fragment, header + 8, carried);
        }
        assertThat(joined.toByteArray()).isEqualTo(payload);

        assertThat(fragmenter.fragmentFrame(inAddress, packet.length, mtu & ~1, outAddress, OUT_CAPACITY))
            .as("the even MTU a verdict carries: as many fragments").isEqualTo(count);
        assertThat(ByteBuffer.wrap(Frames.read(fragmenter.address(0), fragmenter.length(0))).getInt(l3Offset + 44))
            .as("the next packet's identification").isNotEqualTo(identification);
    }

    @Test
    void shouldRefuseAnIpv6PacketThatCannotOrNeedNotBeFragmented()
    {
        final IpFragmenter fragmenter = new IpFragmenter(4);
        final byte[] link = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte)0x86, (byte)0xDD};
        final Random random = new Random(7);
        final byte[] packet = ipv6(link, 4, new byte[2000], random);
        Frames.write(packet, inAddress);
        assertThat(fragmenter.fragmentFrame(inAddress, packet.length, 2040, outAddress, OUT_CAPACITY)).as("fits")
            .isEqualTo(-1);
        assertThat(fragmenter.fragmentFrame(inAddress, packet.length, 1500, outAddress, OUT_CAPACITY)).isEqualTo(2);
        assertThat(fragmenter.fragmentFrame(inAddress, packet.length, 1500, outAddress, 1600)).as("no room")
            .isEqualTo(-1);
        assertThat(fragmenter.fragmentFrame(inAddress, packet.length - 1, 1500, outAddress, OUT_CAPACITY))
            .as("the frame shorter than its header says").isEqualTo(-1);
        assertThat(fragmenter.fragmentFrame(inAddress, packet.length, 55, outAddress, OUT_CAPACITY))
            .as("no room for 8 bytes").isEqualTo(-1);
        assertThat(fragmenter.fragmentFrame(inAddress, packet.length, 56, outAddress, OUT_CAPACITY))
            .as("250 fragments").isEqualTo(-1);
        for (final int unfragmentable : new int[] {0, 43, 44, 60})
        {
            Frames.write(ipv6(link, unfragmentable, new byte[2000], random), inAddress);
            assertThat(fragmenter.fragmentFrame(inAddress, packet.length, 1500, outAddress, OUT_CAPACITY))
                .as("next header %d", unfragmentable).isEqualTo(-1);
        }
    }

    private static byte[] ipv6(final byte[] link, final int nextHeader, final byte[] payload, final Random random)
    {
        final ByteBuffer packet = ByteBuffer.allocate(link.length + 40 + payload.length);
        packet.put(link);
        packet.putInt(0x6000_0000 | random.nextInt(1 << 28)).putShort((short)payload.length);
        packet.put((byte)nextHeader).put((byte)(1 + random.nextInt(255)));
        final byte[] addresses = new byte[32];
        random.nextBytes(addresses);
        packet.put(addresses).put(payload);
        return packet.array();
    }
}
