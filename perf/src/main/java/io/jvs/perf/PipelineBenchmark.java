package io.jvs.perf;

import io.jvs.forwarder.bench.PipelineWorkload;
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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Issue 3: the whole pipeline on one core, 64-byte TCP frames in bursts of 32, for established flows:
 * parse, classify, connection lookup, state, NAT or DR rewrite, verdict, counters, latency histogram,
 * incremental sweep. The frames of each burst are first written into frame buffers (a 60-byte copy
 * and the flow's address and port), as a NIC would; that is included. One operation is one packet.
 * <pre>
 *   java -jar perf/target/benchmarks.jar PipelineBenchmark -prof gc -rf json -rff /tmp/pipeline.json
 * </pre>
 * The same load without JMH: {@code tools/jvs bench pipeline --mode nat --scheduler rr --flows 1000000}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx2g",
    HotPath.JVM_OPTIONS, HotPath.COMPILE_COMMANDS})
public class PipelineBenchmark
{
    static final int BURST = 32;

    @Param({"NAT", "DR"})
    public PipelineWorkload.Mode mode;

    @Param({"rr", "wlc", "sh", "mh"})
    public String scheduler;

    @Param({"1000", "1000000", "10000000"})
    public int flows;

    private PipelineWorkload workload;

    @Setup(Level.Trial)
    public void setUp()
    {
        HotPath.check();
        workload = new PipelineWorkload(mode, scheduler, flows, false, BURST).setUp();
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public int burst()
    {
        return workload.runBurst();
    }
}
