package io.jvs.forwarder.replay;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden replays (see {@code src/test/resources/golden/README.md}): the decisions every scheduler makes for
 * one synthesised trace and how many of its frames took each of the pipeline's paths, fixed in committed files,
 * and the same output bytes on every run.
 */
class GoldenReplayTest
{
    /** {@code -Djvs.golden.update=DIR} writes the expected decisions into DIR instead of comparing. */
    private static final String UPDATE = System.getProperty("jvs.golden.update", "");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rr", "wrr", "lc", "wlc", "sed", "nq", "fo", "ovf", "twos", "lblc", "lblcr", "dh", "sh",
        "mh"})
    void shouldMakeTheGoldenDecisions(final String scheduler) throws Exception
    {
        final Path golden = golden();
        final Path rules = golden.resolve(scheduler + ".rules");
        final Path trace = golden.resolve("trace.pcap");
        final Path decisions = dir.resolve("decisions.csv");
        final Path out = dir.resolve("out.pcap");
        final ReplayOptions options = new ReplayOptions(rules, null, trace, null, out, false, decisions, 1, 4096, 0);
        final ReplayReport report = new Replay(options).run();
        assertThat(report.framesIn()).isEqualTo(600);
        assertThat(report.framesIn()).isEqualTo(report.forwarded() + report.passed() + report.dropped());
        final List<String> lines = Files.readAllLines(decisions);
        assertThat(lines.get(0)).isEqualTo(ReplayOutput.DECISIONS_HEADER);
        final Set<String> servers = Files.readAllLines(rules).stream().filter(line -> line.startsWith("-a"))
            .map(line -> line.split(" ")[4]).collect(Collectors.toSet());
        long refused = 0;
        for (final String line : lines.subList(1, lines.size()))
        {
            final String[] fields = line.split(",", -1);
            if (fields[4].equals("none"))
            {
                assertThat(fields[5]).as("why not: %s", line).isIn("no-server", "conn-table-full", "ttl-expired");
                refused++;
            }
            else
            {
                assertThat(fields[4]).as("a configured server: %s", line).isIn(servers);
                assertThat(fields[5]).isEmpty();
            }
        }
        assertThat(lines.size() - 1L - refused).as("one line per connection").isEqualTo(report.connections());

        // Which of the pipeline's paths each frame took: a change that moves frames between the fast loop and the
        // general path shows here, even when every decision stays (a fast path shaped for one benchmark would).
        final String paths = "fast " + report.fastPathFrames() + ", general " + report.generalPathFrames();
        assertThat(report.fastPathFrames() + report.generalPathFrames()).isEqualTo(report.framesIn());
        if (!UPDATE.isEmpty())
        {
            Files.copy(decisions, Path.of(UPDATE).resolve(scheduler + ".decisions.csv"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.writeString(Path.of(UPDATE).resolve(scheduler + ".paths"), paths + "\n");
            return;
        }
        final List<String> expected = Files.readAllLines(golden.resolve(scheduler + ".decisions.csv"));
        assertThat(lines).as("decisions of %s against %s.decisions.csv", scheduler, scheduler)
            .containsExactlyElementsOf(expected);
        assertThat(paths).as("frames by path of %s against %s.paths", scheduler, scheduler)
            .isEqualTo(Files.readString(golden.resolve(scheduler + ".paths")).strip());

        final byte[] first = Files.readAllBytes(out);
        new Replay(options).run();
        assertThat(Files.readAllBytes(out)).as("a second replay's output").isEqualTo(first);
    }

    private static Path golden() throws URISyntaxException
    {
        return Path.of(GoldenReplayTest.class.getResource("/golden/trace.pcap").toURI()).getParent();
    }
}
