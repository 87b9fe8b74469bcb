package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reads every file of tcpdump's test captures ({@code shared/corpus/tcpdump-tests} beside the
 * repository: 830 captures, many fuzzed, plus a README and a LICENSE). Each file either opens and reads
 * to a recorded end, or is refused at open with a reason; nothing else may happen. Prints what it saw.
 * <p>
 * The expected figures are those of the corpus at tcpdump commit 39b50f76 (its README). With
 * captured-above-original records accepted, the reader delivers exactly the records libpcap 1.10.3
 * delivers, file by file: 10,183, every capture read to its end.
 */
class TcpdumpCorpusTest
{
    private static Path corpus;
    private static List<Path> files;

    @BeforeAll
    static void findCorpus()
    {
        corpus = TcpdumpCorpus.directory();
        files = TcpdumpCorpus.files();
    }

    /** What reading the corpus gave. */
    private static final class Tally
    {
        int opened;
        int refused;
        long records;
        long bytes;
        long aboveSnapLength;
        long capturedAboveOriginal;
        final Map<CaptureFormat, Integer> formats = new EnumMap<>(CaptureFormat.class);
        final Map<EndReason, Integer> ends = new EnumMap<>(EndReason.class);
        final Map<String, String> earlyEnds = new TreeMap<>();
        final Map<String, String> refusals = new TreeMap<>();
        final Map<String, Integer> linkTypes = new TreeMap<>();
        final List<String> unexpected = new ArrayList<>();

        String summary()
        {
            final StringBuilder text = new StringBuilder()
                .append(String.format("%d files: %d opened (%s), %d refused at open%n", opened + refused, opened,
                    formats, refused))
                .append(String.format("%d records, %d captured bytes, %d above their snapshot length,"
                    + " %d captured above original (accepted)%n", records, bytes, aboveSnapLength, capturedAboveOriginal))
                .append(String.format("ends: %s%n", ends))
                .append(String.format("link types (records): %s%n", linkTypes));
            earlyEnds.forEach((file, why) -> text.append(String.format("  ended early: %s: %s%n", file, why)));
            refusals.forEach((file, why) -> text.append(String.format("  refused: %s: %s%n", file, why)));
            return text.toString();
        }
    }

    private static Tally readCorpus(final boolean acceptCapturedAboveOriginal)
    {
        final Tally tally = new Tally();
        for (final Path file : files)
        {
            final String name = file.getFileName().toString();
            final PcapReader reader;
            try
            {
                reader = PcapReader.open(file, PcapReader.DEFAULT_MAX_CAPTURED_LENGTH, acceptCapturedAboveOriginal);
            }
            catch (final PcapFormatException e)
            {
                tally.refused++;
                tally.refusals.put(name, e.reason() + ": " + e.getMessage());
                if (!e.getMessage().contains(file.toString()) || e.reason() == EndReason.NONE)
                {
                    tally.unexpected.add(name + ": unclear refusal " + e);
                }
                continue;
            }
            catch (final Exception e)
            {
                tally.unexpected.add(name + ": open threw " + e);
                continue;
            }
            try (reader)
            {
                tally.opened++;
                tally.formats.merge(reader.format(), 1, Integer::sum);
                long checksum = 0;
                while (reader.next())
                {
                    if (reader.address() < reader.fileAddress()
                        || reader.address() + reader.capturedLength() > reader.fileAddress() + reader.size())
                    {
                        tally.unexpected.add(name + ": record " + reader.records() + " outside the file");
                        break;
                    }
                    // Touch every byte handed out.
                    for (int i = 0; i < reader.capturedLength(); i++)
                    {
                        checksum += Frames.u8(reader.address() + i);
                    }
                    tally.bytes += reader.capturedLength();
                    tally.linkTypes.merge(LinkType.name(reader.linkType()), 1, Integer::sum);
                }
                tally.records += reader.records();
                tally.aboveSnapLength += reader.recordsAboveSnapLength();
                tally.capturedAboveOriginal += reader.recordsCapturedAboveOriginal();
                tally.ends.merge(reader.endReason(), 1, Integer::sum);
                if (reader.endReason() != EndReason.END_OF_FILE)
                {
                    tally.earlyEnds.put(name, reader.endReason() + " at offset " + reader.endOffset() + " after "
                        + reader.records() + " records: " + reader.endDetail());
                }
                if (reader.endReason() == EndReason.NONE || reader.endReason() == EndReason.CLOSED
                    || reader.endOffset() < 0 || checksum < 0)
                {
                    tally.unexpected.add(name + ": no final status " + reader);
                }
            }
            catch (final Exception e)
            {
                tally.unexpected.add(name + ": next() threw " + e);
            }
        }
        return tally;
    }

    @Test
    void shouldOpenAndReadToARecordedEndOrRefuseWithAReasonWhenGivenEveryCorpusFile()
    {
        final Tally tally = readCorpus(false);
        System.out.println("tcpdump corpus " + corpus + ", captured above original ends a file:");
        System.out.print(tally.summary());

        assertThat(tally.unexpected).isEmpty();
        assertThat(files).hasSize(832);
        // The README and the LICENSE; every capture opens.
        assertThat(tally.refusals).containsOnlyKeys("LICENSE", "README.md");
        assertThat(tally.refusals.values()).allMatch(why -> why.startsWith("UNKNOWN_FORMAT") && why.contains("magic"));
        assertThat(tally.opened).isEqualTo(830);
        assertThat(tally.formats).containsEntry(CaptureFormat.PCAPNG, 45)
            .containsEntry(CaptureFormat.PCAP_MICROSECONDS, 783).containsEntry(CaptureFormat.PCAP_NANOSECONDS, 2);
        // Six fuzzed captures hold a record whose captured length is above its original length.
        assertThat(tally.earlyEnds).containsOnlyKeys("aoe-oobr-1.pcap", "icmp-icmp_print-oobr-2.pcap",
            "pim_header_asan-2.pcap", "rsvp-rsvp_obj_print-oobr.pcap", "slip-compressed_sl_print-oobr.pcap",
            "slip-sliplink_print-oobr.pcap");
        assertThat(tally.ends).containsEntry(EndReason.END_OF_FILE, 824)
            .containsEntry(EndReason.CAPTURED_ABOVE_ORIGINAL, 6);
        assertThat(tally.records).isEqualTo(10_174);
        assertThat(tally.aboveSnapLength).isPositive();
    }

    @Test
    void shouldDeliverWhatLibpcapDeliversWhenCapturedAboveOriginalIsAccepted()
    {
        final Tally tally = readCorpus(true);
        System.out.println("tcpdump corpus " + corpus + ", captured above original accepted:");
        System.out.print(tally.summary());

        assertThat(tally.unexpected).isEmpty();
        assertThat(tally.opened).isEqualTo(830);
        assertThat(tally.earlyEnds).isEmpty();
        assertThat(tally.ends).containsOnly(Map.entry(EndReason.END_OF_FILE, 830));
        assertThat(tally.records).isEqualTo(10_183);
        assertThat(tally.capturedAboveOriginal).isEqualTo(7);
    }
}
