package io.jvs.forwarder.synth;

import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.ParsedBurst;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reassembles every fragmented datagram of a trace and checks it: fragments in order, consecutive and
 * together, and a UDP checksum right over the whole datagram.
 */
class SynthFragmentsTest
{
    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(longs = {8, 9})
    void shouldSendLargeDatagramsAsFragmentsThatReassembleWithARightChecksum(final long seed) throws Exception
    {
        final SynthSettings settings = SynthSettings.builder().seed(seed).packets(30_000).udpShare(0.5)
            .fragmentShare(0.3).ipv6Share(0.5).build();
        final Path file = directory.resolve("trace.pcap");
        final SynthSummary summary = TraceSynthesizer.synthesize(settings, file);
        final List<TraceFrames.Frame> frames = TraceFrames.read(file);
        final ByteBuffer memory = ByteBuffer.allocateDirect(8192);
        final long base = Frames.addressOf(memory);

        int datagrams = 0;
        int v6Datagrams = 0;
        for (int i = 0; i < frames.size(); i++)
        {
            final TraceFrames.Frame first = frames.get(i);
            if (first.verdict() != 0 || first.fragment() != ParsedBurst.FRAGMENT_FIRST)
            {
                continue;
            }
            final int count = FragmentWriter.count(first.isV6());
            final ByteArrayOutputStream datagram = new ByteArrayOutputStream();
            for (int fragment = 0; fragment < count; fragment++)
            {
                final TraceFrames.Frame piece = frames.get(i + fragment);
                assertThat(piece.fragment()).isEqualTo(fragment == 0 ? ParsedBurst.FRAGMENT_FIRST :
                    ParsedBurst.FRAGMENT_LATER);
                assertThat(piece.sourceLow()).isEqualTo(first.sourceLow());
                assertThat(fragmentOffset(piece)).isEqualTo(datagram.size());
                assertThat(moreFragments(piece)).isEqualTo(fragment < count - 1);
                datagram.write(piece.bytes(), piece.l4Offset(), piece.l4Length());
            }
            final byte[] bytes = datagram.toByteArray();
            assertThat(bytes).hasSize(8 + FragmentWriter.LARGE_DATAGRAM_PAYLOAD);
            final int addressLength = first.isV6() ? 32 : 8;
            final int addressOffset = first.l3Offset() + (first.isV6() ? 8 : 12);
            Frames.write(java.util.Arrays.copyOfRange(first.bytes(), addressOffset, addressOffset + addressLength),
                base);
            Frames.write(bytes, base + 64);
            final boolean valid = first.isV6() ?
                Checksums.isTransportChecksumValidV6(base, 17, base + 64, bytes.length) :
                Checksums.isTransportChecksumValidV4(base, 17, base + 64, bytes.length);
            assertThat(valid).as("the UDP checksum of the datagram reassembled at frame %d", i).isTrue();
            datagrams++;
            v6Datagrams += first.isV6() ? 1 : 0;
            i += count - 1;
        }
        assertThat(datagrams * 3L).isEqualTo(summary.fragments());
        assertThat(v6Datagrams).isPositive().isLessThan(datagrams);
    }

    private static int fragmentOffset(final TraceFrames.Frame frame)
    {
        return frame.isV6() ? frame.u16(frame.l3Offset() + 42) & 0xFFF8 :
            (frame.u16(frame.l3Offset() + 6) & 0x1FFF) * 8;
    }

    private static boolean moreFragments(final TraceFrames.Frame frame)
    {
        return frame.isV6() ? (frame.u16(frame.l3Offset() + 42) & 1) != 0 :
            (frame.u16(frame.l3Offset() + 6) & 0x2000) != 0;
    }
}
