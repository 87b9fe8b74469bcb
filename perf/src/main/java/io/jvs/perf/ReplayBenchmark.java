package io.jvs.perf;

import io.jvs.forwarder.replay.Replay;
import io.jvs.forwarder.replay.ReplayOptions;
import io.jvs.forwarder.replay.ReplayReport;
import io.jvs.forwarder.synth.SynthSettings;
import io.jvs.forwarder.synth.TraceSynthesizer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * {@code tools/jvs replay} end to end on one thread: a synthesised capture of {@link #FRAMES} frames read
 * from the page cache, framed, dispatched, run through the pipeline and the forwarded frames written to
 * a pcap in /tmp. One operation is one frame; set-up (tables, rules) is inside the measured invocation but
 * amortised over the million frames. Two capture shapes: synth's default farm traffic at 100 k and at 1 M
 * frames per second of capture time (the connection tables are swept once per second of capture time, so
 * a slower capture costs more sweeping per frame), and the same capture with rules that match nothing
 * (read, parse, classify and pass only); each with the forwarded frames written to a pcap, and without.
 * Set-up allocations (tables, rules, the report) are counted in B/op: about a megabyte per invocation.
 * <pre>
 *   java -jar perf/target/benchmarks.jar ReplayBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
    HotPath.JVM_OPTIONS, HotPath.COMPILE_COMMANDS})
public class ReplayBenchmark
{
    public static final int FRAMES = 1_000_000;

    /** Frames per second of capture time. */
    @Param({"100000", "1000000"})
    public long rate;

    /** "farm": synth's rules for the capture; "none": one service the capture never addresses. */
    @Param({"farm", "none"})
    public String rules;

    /** Whether the forwarded frames are written to a pcap in /tmp (the output is as big as the capture). */
    @Param({"true", "false"})
    public boolean output;

    private Path dir;
    private ReplayOptions options;

    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        HotPath.check();
        dir = Files.createTempDirectory("jvs-replay-bench-");
        final SynthSettings settings = SynthSettings.builder().packets(FRAMES).ratePps(rate).services(2)
            .serversPerService(4).clients(100_000).seed(11).build();
        final Path trace = dir.resolve("trace.pcap");
        TraceSynthesizer.synthesize(settings, trace);
        final Path rulesFile = dir.resolve("trace.rules");
        Files.writeString(rulesFile, rules.equals("farm") ? TraceSynthesizer.rules(settings) : "-A -t 10.9.9.9:80 -s rr\n");
        options = new ReplayOptions(rulesFile, null, trace, null, output ? dir.resolve("out.pcap") : null, false, null, 1,
            1 << 19, 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        try (var files = Files.list(dir))
        {
            for (final Path file : files.toList())
            {
                Files.delete(file);
            }
        }
        Files.delete(dir);
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long replay() throws Exception
    {
        final ReplayReport report = new Replay(options).run();
        if (report.framesIn() != FRAMES)
        {
            throw new IllegalStateException(report.framesIn() + " frames in");
        }
        return report.forwarded();
    }
}
