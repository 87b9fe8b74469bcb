package io.jvs.core.packet;

import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapFormatException;
import io.jvs.core.pcap.PcapReader;
import io.jvs.core.pcap.TcpdumpCorpus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.zip.Adler32;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Crc32c} against the JDK's {@link CRC32C} over random off-heap bytes at every alignment, against
 * the standard check values, and against the SCTP checksums that real hosts put on the wire: every SCTP
 * packet of tcpdump's test captures ({@code shared/corpus/tcpdump-tests}). The last pins down the byte order
 * in which {@link Crc32c#updateSctp} stores the CRC.
 */
class Crc32cTest
{
    private static final int SCTP = 132;

    private static Path corpus;

    @BeforeAll
    static void findCorpus()
    {
        corpus = TcpdumpCorpus.directory();
    }

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 200);
    }

    private static int jdk(final byte[] bytes, final int offset, final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int)crc.getValue();
    }

    /** A direct buffer of random bytes, so that a read past either end of the range changes the result. */
    private static ByteBuffer noise(final SplittableRandom random, final int capacity)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(capacity);
        final byte[] bytes = new byte[capacity];
        random.nextBytes(bytes);
        buffer.put(0, bytes);
        return buffer;
    }

    private static byte[] bytesOf(final ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.capacity()];
        buffer.get(0, bytes);
        return bytes;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldMatchTheJdkWhenBytesOfARandomLengthLieAtARandomOffset(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int length = random.nextInt(2001);
        final int offset = random.nextInt(16);
        final ByteBuffer buffer = noise(random, offset + length + 16);
        final byte[] before = bytesOf(buffer);

        final int crc = Crc32c.compute(Frames.addressOf(buffer) + offset, length);

        assertThat(crc).as("length %d at offset %d", length, offset).isEqualTo(jdk(before, offset, length));
        assertThat(bytesOf(buffer)).as("compute writes nothing").isEqualTo(before);
    }

    @Test
    void shouldMatchTheJdkWhenTheLengthIsShortAtEveryAlignment()
    {
        final SplittableRandom random = new SplittableRandom(42);
        final ByteBuffer buffer = noise(random, 64);
        final byte[] bytes = bytesOf(buffer);
        for (int offset = 0; offset < 8; offset++)
        {
            for (int length = 0; length <= 40; length++)
            {
                assertThat(Crc32c.compute(Frames.addressOf(buffer) + offset, length))
                    .as("length %d at offset %d", length, offset).isEqualTo(jdk(bytes, offset, length));
            }
        }
    }

    @Test
    void shouldGiveTheStandardCheckValuesWhenGivenTheReferenceVectors()
    {
        final byte[] ascending = new byte[32];
        final byte[] descending = new byte[32];
        final byte[] ones = new byte[32];
        for (int i = 0; i < 32; i++)
        {
            ascending[i] = (byte)i;
            descending[i] = (byte)(31 - i);
            ones[i] = (byte)0xFF;
        }
        // The CRC catalogue's check value, and RFC 3720 appendix B.4.
        final Map<byte[], Integer> vectors = Map.of(
            "123456789".getBytes(StandardCharsets.US_ASCII), 0xE306_9283,
            new byte[32], 0x8A91_36AA,
            ones, 0x62A8_AB43,
            ascending, 0x46DD_794E,
            descending, 0x113F_DB5C);
        vectors.forEach((bytes, expected) ->
        {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(bytes.length + 1).put(1, bytes);
            assertThat(Crc32c.compute(Frames.addressOf(buffer) + 1, bytes.length))
                .as("CRC-32C of %d bytes", bytes.length).isEqualTo(expected);
        });
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldStoreTheCrcOfThePacketWithAZeroFieldLittleEndianWhenUpdatingAnSctpPacket(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int length = L4Headers.SCTP_COMMON_LENGTH + random.nextInt(1500);
        final int offset = random.nextInt(16);
        final ByteBuffer buffer = noise(random, offset + length + 16);
        final byte[] before = bytesOf(buffer);

        Crc32c.updateSctp(Frames.addressOf(buffer) + offset, length);

        final byte[] zeroed = before.clone();
        java.util.Arrays.fill(zeroed, offset + 8, offset + 12, (byte)0);
        final int crc = jdk(zeroed, offset, length);
        final byte[] after = bytesOf(buffer);
        assertThat(ByteBuffer.wrap(after, offset + 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt())
            .as("the checksum field, read little-endian").isEqualTo(crc);
        // Nothing else changed.
        System.arraycopy(before, offset + 8, after, offset + 8, 4);
        assertThat(after).isEqualTo(before);
    }

    // -----------------------------------------------------------------------------------------------------
    // Real packets

    /** What became of the SCTP packets of the corpus. */
    private static final class Tally
    {
        /** The stored checksum is what updateSctp writes. */
        int matches;
        /** The stored checksum is the CRC-32C, but big-endian: updateSctp would have the byte order wrong. */
        int bigEndian;
        /** The stored checksum is Adler-32 (RFC 2960's, before RFC 3309 replaced it with CRC-32C). */
        int adler32;
        /** Neither. */
        int other;
        /** Cut short by the snapshot length, or a fragment: no checksum to check. */
        int incomplete;
        final Map<String, int[]> files = new TreeMap<>();
        final List<String> mismatches = new ArrayList<>();
    }

    @Test
    void shouldReproduceTheStoredChecksumWhenGivenTheSctpPacketsOfTheCorpus() throws IOException
    {
        final List<Path> files = TcpdumpCorpus.files();
        final Tally tally = new Tally();
        final ByteBuffer buffer = ByteBuffer.allocateDirect(PcapReader.DEFAULT_MAX_CAPTURED_LENGTH + 16);
        // An odd address, so the word reads are unaligned.
        final long copy = Frames.addressOf(buffer) + 3;
        for (final Path file : files)
        {
            final PcapReader reader;
            try
            {
                reader = PcapReader.open(file, PcapReader.DEFAULT_MAX_CAPTURED_LENGTH, true);
            }
            catch (final PcapFormatException e)
            {
                continue;
            }
            try (reader)
            {
                while (reader.next())
                {
                    final byte[] frame = Frames.read(reader.address(), reader.capturedLength());
                    final int[] sctp = sctp(frame, reader.linkType());
                    if (sctp == null)
                    {
                        continue;
                    }
                    final String name = file.getFileName().toString();
                    final int[] counts = tally.files.computeIfAbsent(name, key -> new int[5]);
                    if (sctp[1] < 0)
                    {
                        tally.incomplete++;
                        counts[4]++;
                        continue;
                    }
                    final int start = sctp[0];
                    final int length = sctp[1];
                    Frames.write(java.util.Arrays.copyOfRange(frame, start, start + length), copy);
                    Crc32c.updateSctp(copy, length);
                    final byte[] stored = java.util.Arrays.copyOfRange(frame, start + 8, start + 12);
                    final byte[] computed = Frames.read(copy + 8, 4);
                    final byte[] zeroed = java.util.Arrays.copyOfRange(frame, start, start + length);
                    java.util.Arrays.fill(zeroed, 8, 12, (byte)0);
                    final int storedBigEndian = ByteBuffer.wrap(stored).getInt();
                    final Adler32 adler = new Adler32();
                    adler.update(zeroed);
                    if (java.util.Arrays.equals(stored, computed))
                    {
                        tally.matches++;
                        counts[0]++;
                    }
                    else if (storedBigEndian == jdk(zeroed, 0, length))
                    {
                        tally.bigEndian++;
                        counts[1]++;
                    }
                    else if (storedBigEndian == (int)adler.getValue())
                    {
                        tally.adler32++;
                        counts[2]++;
                    }
                    else
                    {
                        tally.other++;
                        counts[3]++;
                    }
                    if (!java.util.Arrays.equals(stored, computed))
                    {
                        tally.mismatches.add(String.format("%s packet %d: stored %s, updateSctp wrote %s", name,
                            reader.records(), java.util.HexFormat.of().formatHex(stored),
                            java.util.HexFormat.of().formatHex(computed)));
                    }
                }
            }
        }
        System.out.printf("SCTP packets of the corpus: %d reproduced by updateSctp, %d CRC-32C stored big-endian,"
            + " %d Adler-32, %d neither, %d incomplete%n", tally.matches, tally.bigEndian, tally.adler32, tally.other,
            tally.incomplete);
        tally.files.forEach((name, counts) -> System.out.printf("  %s: crc %d, big-endian %d, adler-32 %d, other %d,"
            + " incomplete %d%n", name, counts[0], counts[1], counts[2], counts[3], counts[4]));
        tally.mismatches.forEach(mismatch -> System.out.println("  not reproduced: " + mismatch));

        // Every SCTP packet that carries a CRC-32C (the Linux ForCES captures) is reproduced byte for byte;
        // none would be with the bytes the other way round.
        assertThat(tally.bigEndian).isZero();
        assertThat(tally.other).isZero();
        assertThat(tally.matches).isEqualTo(20 + 75 + 154);
        assertThat(tally.files).containsOnlyKeys("forces1.pcap", "forces2.pcap", "forces3.pcap", "isup.pcap");
        assertThat(tally.files.get("forces1.pcap")[0]).isEqualTo(20);
        assertThat(tally.files.get("forces2.pcap")[0]).isEqualTo(75);
        assertThat(tally.files.get("forces3.pcap")[0]).isEqualTo(154);
        // isup.pcap predates RFC 3309: its six packets carry RFC 2960's Adler-32.
        assertThat(tally.files.get("isup.pcap")[2]).isEqualTo(6);
        assertThat(tally.adler32).isEqualTo(6);
    }

    /**
     * Finds an SCTP packet in a frame.
     *
     * @return null if the frame holds none; else {start, length} of the SCTP packet, or {start, -1} if the
     * IP packet is cut short or a fragment.
     */
    private static int[] sctp(final byte[] frame, final int linkType)
    {
        int offset;
        int etherType;
        switch (linkType)
        {
            case LinkType.ETHERNET ->
            {
                offset = 12;
                if (frame.length < 14)
                {
                    return null;
                }
                etherType = u16(frame, offset);
                while ((etherType == 0x8100 || etherType == 0x88A8 || etherType == 0x9100) && offset + 6 <= frame.length)
                {
                    offset += 4;
                    etherType = u16(frame, offset);
                }
                offset += 2;
            }
            case LinkType.LINUX_SLL ->
            {
                if (frame.length < 16)
                {
                    return null;
                }
                etherType = u16(frame, 14);
                offset = 16;
            }
            case LinkType.LINUX_SLL2 ->
            {
                if (frame.length < 20)
                {
                    return null;
                }
                etherType = u16(frame, 0);
                offset = 20;
            }
            case LinkType.RAW, LinkType.IPV4, LinkType.IPV6, LinkType.NULL, LinkType.LOOP ->
            {
                offset = linkType == LinkType.NULL || linkType == LinkType.LOOP ? 4 : 0;
                if (frame.length <= offset)
                {
                    return null;
                }
                etherType = (frame[offset] & 0xF0) == 0x60 ? 0x86DD : 0x0800;
            }
            default ->
            {
                return null;
            }
        }
        if (etherType == 0x0800 && offset + 20 <= frame.length && (frame[offset] & 0xF0) == 0x40)
        {
            final int headerLength = (frame[offset] & 0x0F) * 4;
            if (headerLength < 20 || (frame[offset + 9] & 0xFF) != SCTP)
            {
                return null;
            }
            final int total = u16(frame, offset + 2);
            final boolean fragment = (u16(frame, offset + 6) & 0x3FFF) != 0;
            final int start = offset + headerLength;
            return fragment || total < headerLength + L4Headers.SCTP_COMMON_LENGTH || offset + total > frame.length
                ? new int[] {start, -1} : new int[] {start, total - headerLength};
        }
        if (etherType == 0x86DD && offset + 40 <= frame.length && (frame[offset] & 0xF0) == 0x60)
        {
            final int end = offset + 40 + u16(frame, offset + 4);
            int next = frame[offset + 6] & 0xFF;
            int at = offset + 40;
            // Hop-by-hop, routing and destination options; a fragment header makes it incomplete.
            while ((next == 0 || next == 43 || next == 60 || next == 44) && at + 8 <= frame.length)
            {
                if (next == 44)
                {
                    return frame[at] == SCTP ? new int[] {at + 8, -1} : null;
                }
                final int length = ((frame[at + 1] & 0xFF) + 1) * 8;
                next = frame[at] & 0xFF;
                at += length;
            }
            if (next != SCTP)
            {
                return null;
            }
            return end > frame.length || at + L4Headers.SCTP_COMMON_LENGTH > end ? new int[] {at, -1}
                : new int[] {at, end - at};
        }
        return null;
    }

    private static int u16(final byte[] bytes, final int offset)
    {
        return (bytes[offset] & 0xFF) << 8 | bytes[offset + 1] & 0xFF;
    }
}
