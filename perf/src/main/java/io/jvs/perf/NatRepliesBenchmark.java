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
 * {@link PipelineBenchmark}'s NAT load with the real servers answering: every other frame of a burst is a server's
 * acknowledgement, back through jvs to its client, of a frame jvs forwarded in the burst before. One operation is one
 * packet, either direction.
 * <pre>
 *   java -jar perf/target/benchmarks.jar NatRepliesBenchmark -prof gc
 * </pre>
 * The same load without JMH: {@code tools/jvs bench pipeline --mode nat --scheduler wlc --flows 1000 --replies}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "-Xmx2g",
    HotPath.JVM_OPTIONS, HotPath.COMPILE_COMMANDS})
public class NatRepliesBenchmark
{
    static final int BURST = 32;

    @Param({"wlc"})
    public String scheduler;

    @Param({"1000", "1000000"})
    public int flows;

    private PipelineWorkload workload;

    @Setup(Level.Trial)
    public void setUp()
    {
        HotPath.check();
        workload = PipelineWorkload.withReplies(scheduler, flows, BURST).setUp();
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public int burst()
    {
        return workload.runBurst();
    }
}
