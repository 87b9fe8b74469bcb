package io.jvs.perf;

import io.jvs.core.net.FlowTuple;
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
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.util.concurrent.TimeUnit;

/**
 * Issue 2: the cost of one scheduling decision, for every scheduler ({@link SchedulerKind#values()}: the
 * {@code scheduler} parameter is the enum, and JMH expands an enum parameter with no values to all its
 * constants, so a scheduler added later is measured without editing this file) at 10, 100 and 1000
 * real servers.
 * <p>
 * What one operation is: pick the next of 4096 pre-built {@link FlowTuple}s, advance the worker's
 * scheduling clock by 1 us, and call {@link VirtualService#schedule}, the call a worker makes for a new
 * connection. The chosen server is returned, so JMH consumes it. Nothing is allocated in the measured
 * method; {@code -prof gc} checks that the schedulers do not either.
 * <ul>
 *   <li>Pure decision cost: no connection is bound per decision, so the counters stay as the fixture set
 *       them (see {@link SchedulerFixture}) and the least-connection schedulers make the same kind of
 *       comparisons in every iteration instead of drifting as counts grow.</li>
 *   <li>The flows have 4096 distinct client addresses (sh and mh hash the source) and cycle through a
 *       working set of 1024 destination addresses (dh, lblc and lblcr key on the destination).</li>
 *   <li>lblc/lblcr: {@link #setUp} makes one decision per flow before measuring, binding each chosen
 *       server and then unbinding them all, so every one of the 1024 destinations has a table entry,
 *       spread over the servers as a loaded service would spread them, and the counters are back to the
 *       fixture's. The measured figure is therefore the table-hit path; the miss path (lookup miss, the
 *       wlc pass over all servers, and a failed insert) is measured by {@link LocalityMissBenchmark}.</li>
 *   <li>The clock step makes lblc/lblcr's {@code touch} store fire on every hit (each destination comes
 *       back every 1024 decisions = 1.024 ms of scheduling time, over its 1 ms threshold): the
 *       pessimistic case. The step itself costs every scheduler the same add and store;
 *       {@link HarnessBaselineBenchmark} measures that harness overhead alone.</li>
 *   <li>One fork per case, so each JIT sees one scheduler class at the {@code schedule} call site
 *       (monomorphic). A worker serving services with several scheduler kinds would pay a megamorphic
 *       dispatch on top.</li>
 * </ul>
 * Run (the java must be JDK 25; the default java on PATH here is 17):
 * <pre>
 *   java -jar perf/target/benchmarks.jar SchedulerBenchmark -prof gc -rf json -rff /tmp/sched.json
 * </pre>
 * or {@code java -cp perf/target/benchmarks.jar io.jvs.perf.SchedulerBenchmark}, which runs the same
 * (see {@link #main}). One case: {@code -p scheduler=MH -p servers=1000}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class SchedulerBenchmark
{
    /** Distinct client addresses, a power of two. */
    static final int FLOWS = 4096;
    /** Distinct destination addresses: the lblc/lblcr working set (1024 entries; the table's cap is 16384). */
    static final int DESTINATIONS = 1024;
    /** Scheduling time per decision: a worker making 1 M decisions a second. */
    static final long CLOCK_STEP_NS = 1_000;

    /** Every scheduler (no values: JMH uses all the enum's constants). */
    @Param
    public SchedulerKind scheduler;

    @Param({"10", "100", "1000"})
    public int servers;

    private VirtualService service;
    private FlowTuple[] flows;
    private SchedulingContext context;
    private int next;

    @Setup(Level.Trial)
    public void setUp()
    {
        service = SchedulerFixture.service(scheduler, servers);
        flows = SchedulerFixture.flows(FLOWS, DESTINATIONS);
        context = new SchedulingContext(0, SchedulerFixture.SEED);
        context.nowNs(1_000_000_000L);
        // One decision per flow, each bound, then all unbound: fills lblc/lblcr tables with a spread of
        // servers (as a loaded service spreads them) and leaves every counter as the fixture set it.
        // (ovf may find no server here once the binds fill every server past its weight.)
        final RealServer[] chosen = new RealServer[FLOWS];
        for (int i = 0; i < FLOWS; i++)
        {
            context.nowNs(context.nowNs() + CLOCK_STEP_NS);
            chosen[i] = service.schedule(flows[i], context);
            if (chosen[i] != null)
            {
                chosen[i].bindConnection(false);
            }
        }
        for (final RealServer server : chosen)
        {
            if (server != null)
            {
                server.unbindConnection(false);
            }
        }
        // Every flow must get a server in the measured state, or the figure would time a "no server" exit.
        for (int i = 0; i < FLOWS; i++)
        {
            context.nowNs(context.nowNs() + CLOCK_STEP_NS);
            if (service.schedule(flows[i], context) == null)
            {
                throw new IllegalStateException(scheduler + " found no server for flow " + i);
            }
        }
        next = 0;
    }

    @Benchmark
    public RealServer schedule()
    {
        final FlowTuple flow = flows[next++ & (FLOWS - 1)];
        final SchedulingContext context = this.context;
        context.nowNs(context.nowNs() + CLOCK_STEP_NS);
        return service.schedule(flow, context);
    }

    /**
     * Runs the full matrix with the gc profiler and writes JSON to /tmp/sched.json (or to args[0]).
     *
     * @param args optional: the JSON output file.
     * @throws RunnerException if JMH fails.
     */
    public static void main(final String[] args) throws RunnerException
    {
        final Options options = new OptionsBuilder()
            .include("\\." + SchedulerBenchmark.class.getSimpleName() + "\\.")
            .addProfiler(GCProfiler.class)
            .resultFormat(ResultFormatType.JSON)
            .result(args.length > 0 ? args[0] : "/tmp/sched.json")
            .build();
        new Runner(options).run();
    }
}
