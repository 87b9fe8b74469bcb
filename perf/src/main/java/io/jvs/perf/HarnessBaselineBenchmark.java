package io.jvs.perf;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.sched.SchedulingContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The harness overhead included in every {@link SchedulerBenchmark} figure: the same flow selection
 * and clock step, no scheduling. What {@code schedule} costs on top of this is the decision itself.
 * <pre>
 *   java -jar perf/target/benchmarks.jar HarnessBaselineBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class HarnessBaselineBenchmark
{
    private FlowTuple[] flows;
    private SchedulingContext context;
    private int next;

    @Setup(Level.Trial)
    public void setUp()
    {
        flows = SchedulerFixture.flows(SchedulerBenchmark.FLOWS, SchedulerBenchmark.DESTINATIONS);
        context = new SchedulingContext(0, SchedulerFixture.SEED);
        context.nowNs(1_000_000_000L);
    }

    /**
     * Selects the tuple and steps the clock exactly as {@link SchedulerBenchmark#schedule} does.
     *
     * @return the flow, consumed by JMH.
     */
    @Benchmark
    public FlowTuple baseline()
    {
        final FlowTuple flow = flows[next++ & (SchedulerBenchmark.FLOWS - 1)];
        final SchedulingContext context = this.context;
        context.nowNs(context.nowNs() + SchedulerBenchmark.CLOCK_STEP_NS);
        return flow;
    }
}
