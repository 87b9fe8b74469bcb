package io.jvs.perf;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.Protocol;
import io.jvs.core.sched.SchedulerKind;
import io.jvs.core.sched.SchedulingContext;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The lblc/lblcr miss path, which {@link SchedulerBenchmark} (table hits) does not measure.
 * <p>
 * Every decision is for a destination out of 2^22 distinct ones, cycled, so the table (1024 buckets,
 * capped at 16 * 1024 = 16384 entries as the kernel caps it) is full after the setup and about 0.4 % of
 * lookups hit. Steady state: a lookup that scans the whole live part of its bucket (16 ways on average)
 * and misses, the wlc pass over all the servers' counters, then an insert attempt that scans the bucket
 * again and gives up because the table is at its cap (the collector, which would make room, does not run
 * here). It is the worst steady-state miss; a miss that does insert is a miss plus one compare-and-set
 * and four stores. The tuple is refilled in place (one {@code setV4}, no allocation), which is included.
 * <pre>
 *   java -jar perf/target/benchmarks.jar LocalityMissBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class LocalityMissBenchmark
{
    /** Distinct destinations, a power of two far above the table's cap. */
    static final int DESTINATIONS = 1 << 22;

    @Param({"LBLC", "LBLCR"})
    public SchedulerKind scheduler;

    @Param({"10", "100", "1000"})
    public int servers;

    private VirtualService service;
    private final FlowTuple flow = new FlowTuple();
    private SchedulingContext context;
    private int next;

    @Setup(Level.Trial)
    public void setUp()
    {
        service = SchedulerFixture.service(scheduler, servers);
        context = new SchedulingContext(0, SchedulerFixture.SEED);
        context.nowNs(1_000_000_000L);
        // Fill the table to its cap.
        for (int i = 0; i < 1 << 16; i++)
        {
            if (schedule() == null)
            {
                throw new IllegalStateException(scheduler + " found no server");
            }
        }
    }

    @Benchmark
    public RealServer schedule()
    {
        // Multiplying by an odd constant is a bijection mod 2^32: 2^22 distinct, scattered addresses.
        final int destination = ((next++ & (DESTINATIONS - 1)) + 1) * 0x9E37_79B1;
        final FlowTuple flow = this.flow.setV4(Protocol.TCP, 0x6440_0001, 40000, destination, SchedulerFixture.PORT);
        final SchedulingContext context = this.context;
        context.nowNs(context.nowNs() + SchedulerBenchmark.CLOCK_STEP_NS);
        return service.schedule(flow, context);
    }
}
