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
 * Issue 3: the new-connection rate. Every frame is a SYN from a client never seen before: scheduled,
 * counted on its server, entered in the connection table. SYN_RECV lasts 1 s and the virtual clock steps
 * 500 ns per connection at the 4M capacity (near real time), so the table holds about 3.3M entries and they are
 * swept as fast as they are made: the cost of ending connections is included. One operation is one new connection.
 * <pre>
 *   java -jar perf/target/benchmarks.jar NewConnectionBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
    HotPath.JVM_OPTIONS, HotPath.COMPILE_COMMANDS})
public class NewConnectionBenchmark
{
    static final int BURST = 32;

    @Param({"NAT", "DR"})
    public PipelineWorkload.Mode mode;

    @Param({"rr", "wlc", "sh", "mh"})
    public String scheduler;

    /** The connection table's capacity. */
    @Param({"4000000"})
    public int capacity;

    private PipelineWorkload workload;

    @Setup(Level.Trial)
    public void setUp()
    {
        HotPath.check();
        workload = new PipelineWorkload(mode, scheduler, capacity, true, BURST).setUp();
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public int burst()
    {
        return workload.runBurst();
    }
}
