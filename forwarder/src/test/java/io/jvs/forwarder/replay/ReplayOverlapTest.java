package io.jvs.forwarder.replay;

import io.jvs.forwarder.synth.SynthSettings;
import io.jvs.forwarder.synth.TraceSynthesizer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The replay's two stages on two threads give what one thread gives, byte for byte: the frames written, the
 * decisions logged, every count of the report and its connection samples. The traces are synth's farm
 * traffic, with its malformed frames, fragments, ICMP errors and table-full refusals, long enough to fill the
 * ring of windows many times over and to span several sampling periods.
 */
class ReplayOverlapTest
{
    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed {0}, {1} worker(s), --all {2}")
    @CsvSource({"7, 1, false", "8, 2, false", "9, 2, true"})
    void shouldGiveTheSameOutputOnTwoThreadsAsOnOne(final long seed, final int workers, final boolean all)
        throws Exception
    {
        final SynthSettings settings = SynthSettings.builder().packets(120_000).services(2).serversPerService(3)
            .clients(5_000).seed(seed).ratePps(20_000).build();
        final Path trace = dir.resolve("trace.pcap");
        TraceSynthesizer.synthesize(settings, trace);
        final Path rules = Files.writeString(dir.resolve("farm.rules"), TraceSynthesizer.rules(settings));

        final ReplayReport one = replay(rules, trace, workers, all, false);
        final ReplayReport two = replay(rules, trace, workers, all, true);

        assertThat(Files.mismatch(dir.resolve("out-false"), dir.resolve("out-true"))).as("frames written")
            .isEqualTo(-1L);
        assertThat(Files.mismatch(dir.resolve("decisions-false"), dir.resolve("decisions-true")))
            .as("decisions logged").isEqualTo(-1L);
        assertThat(Files.readAllLines(dir.resolve("decisions-true"))).as("decisions logged").hasSizeGreaterThan(1000);
        assertThat(two.written()).isEqualTo(one.written()).isGreaterThan(100_000L);
        assertThat(withoutTimes(ReplayReportFormat.table(two))).isEqualTo(withoutTimes(ReplayReportFormat.table(one)));
        assertThat(two.dropsByReason()).isEqualTo(one.dropsByReason());
        assertThat(two.services()).isEqualTo(one.services());
        assertThat(two.sampleTimes()).isEqualTo(one.sampleTimes()).hasSizeGreaterThanOrEqualTo(6);
        for (final ReplayReport.ServiceLine service : two.services())
        {
            for (final ReplayReport.ServerLine server : service.servers())
            {
                assertThat(two.samplesOf(server.slot())).as(server.server())
                    .isEqualTo(one.samplesOf(server.slot()));
            }
        }
        assertThat(withoutTimes(ReplayReportFormat.json(two))).isEqualTo(withoutTimes(ReplayReportFormat.json(one)));
    }

    /**
     * The report without what the wall clock measured (the pipeline's time per frame and the rate), its
     * output files named alike.
     */
    private static String withoutTimes(final String report)
    {
        return report.replaceAll("(out|decisions)-(true|false)", "$1").replaceAll("(?s)\"pipeline_ns_per_frame\".*?\"output\"", "\"output\"")
            .replaceAll("(?m)^(pipeline time per frame|rate): .*$", "");
    }

    private ReplayReport replay(final Path rules, final Path trace, final int workers, final boolean all,
        final boolean overlapped) throws Exception
    {
        final ReplayOptions options = new ReplayOptions(rules, null, trace, null, dir.resolve("out-" + overlapped),
            all, dir.resolve("decisions-" + overlapped), workers, 1 << 14, 0);
        final ReplayReport report = new Replay(options, overlapped).run();
        assertThat(report.framesIn()).isEqualTo(120_000);
        return report;
    }
}
