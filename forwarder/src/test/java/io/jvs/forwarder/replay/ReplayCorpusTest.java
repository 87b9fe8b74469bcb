package io.jvs.forwarder.replay;

import io.jvs.core.pcap.PcapFormatException;
import io.jvs.core.pcap.PcapReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every capture of tcpdump's test corpus ({@code shared/corpus/tcpdump-tests}: 830 captures of odd, fuzzed
 * and malformed packets, many link layers) through {@code replay} with services that catch everything:
 * every frame is marked, and the mark is an IPv4 service (wlc: NAT, DR and tunnel servers) and an IPv6
 * one (sh), with two workers and {@code --all}. Nothing may throw, every file must account for every
 * frame (in = forwarded + passed + dropped, records = in + filtered + skipped), and the pcapng written must
 * read back with exactly one record per frame given to the pipeline.
 */
class ReplayCorpusTest
{
    private static final String CORPUS = "shared/corpus/tcpdump-tests";

    @TempDir
    Path dir;

    @Test
    void shouldReplayEveryCorpusCaptureAccountingForEveryFrame() throws Exception
    {
        final Path corpus = corpus();
        final Path rules = Files.write(dir.resolve("catch-all.rules"), List.of(
            "-A -f 1 -s wlc",
            "-a -f 1 -r 198.18.6.2:0 -m", "-a -f 1 -r 198.18.6.3:0 -m -w 2", "-a -f 1 -r 198.18.6.4:0 -g",
            "-a -f 1 -r 198.18.6.5:0 -i",
            "-A -f 1 -6 -s sh",
            "-a -f 1 -6 -r [fd00:6a76:7300::2]:0 -m", "-a -f 1 -6 -r [fd00:6a76:7300::3]:0 -g",
            "-a -f 1 -6 -r [fd00:6a76:7300::4]:0 -i"));
        final Path config = Files.write(dir.resolve("box.conf"), List.of("set sloppy_tcp 1", "set expire_nodest_conn 1"));
        final List<Path> files;
        try (Stream<Path> listing = Files.list(corpus))
        {
            files = listing.filter(Files::isRegularFile).sorted().toList();
        }
        assertThat(files.size()).isGreaterThan(800);
        final List<String> problems = new ArrayList<>();
        final Map<String, String> refused = new TreeMap<>();
        long frames = 0;
        long forwarded = 0;
        long connections = 0;
        long unsupported = 0;
        for (final Path file : files)
        {
            final Path out = dir.resolve("out.pcapng");
            final ReplayOptions options = new ReplayOptions(rules, config, file, null, out, true, null, 2, 4096, 1);
            final ReplayReport report;
            try
            {
                report = new Replay(options).run();
            }
            catch (final PcapFormatException ex)
            {
                refused.put(file.getFileName().toString(), ex.getMessage());
                continue;
            }
            catch (final RuntimeException ex)
            {
                problems.add(file.getFileName() + ": " + ex);
                continue;
            }
            final String name = file.getFileName().toString();
            if (report.framesIn() != report.forwarded() + report.passed() + report.dropped())
            {
                problems.add(name + ": in " + report.framesIn() + " != " + report.forwarded() + " + " +
                    report.passed() + " + " + report.dropped());
            }
            if (report.records() != report.framesIn() + report.filteredOut() + report.outgoingSkipped)
            {
                problems.add(name + ": " + report.records() + " records, " + report.framesIn() + " frames in");
            }
            long written = 0;
            try (PcapReader reader = PcapReader.open(out))
            {
                while (reader.next())
                {
                    written++;
                }
            }
            // A packet forwarded in fragments is written as them.
            final long framed = report.framesIn() - report.unsupported - report.noEthernetForm -
                report.fragmented() + report.fragmentRecords();
            if (written != framed || written != report.written())
            {
                problems.add(name + ": wrote " + written + " records for " + report.framesIn() + " frames in");
            }
            frames += report.framesIn();
            forwarded += report.forwarded();
            connections += report.connections();
            unsupported += report.unsupported;
        }
        System.out.printf("replay of the tcpdump corpus: %d files, %d refused, %d frames in, %d forwarded, " +
            "%d connections, %d of link types with no Ethernet form%n", files.size(), refused.size(), frames,
            forwarded, connections, unsupported);
        assertThat(problems).isEmpty();
        assertThat(refused).as("only the text files are not captures").containsOnlyKeys("LICENSE", "README.md");
        assertThat(frames).isGreaterThan(10_000);
        assertThat(forwarded).isGreaterThan(1_000);
        assertThat(connections).isGreaterThan(500);
        assertThat(unsupported).isPositive();
    }

    static Path corpus()
    {
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent())
        {
            for (final Path candidate : List.of(dir.resolve(CORPUS), dir.resolve("..").resolve(CORPUS)))
            {
                if (Files.isDirectory(candidate))
                {
                    return candidate.normalize();
                }
            }
        }
        throw new AssertionError(CORPUS + " not found above " + System.getProperty("user.dir"));
    }
}
