package io.jvs.perf;

import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.forwarder.l2.MemoryForwardingPair;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The L2 forwarding loop of {@code bench l2fwd} over memory ports: one poll is a burst of 64 synthetic 60-byte
 * frames received, both MACs rewritten, transmitted zero-copy and recycled. What the loop itself costs per
 * frame, and proof that it allocates nothing (run with {@code -prof gc}); the kernel ports' costs are in the
 * wire benchmark.
 * <pre>
 *   java -jar perf/target/benchmarks.jar L2ForwardBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class L2ForwardBenchmark
{
    private static final int BURST = 64;
    private static final byte[] DESTINATION = {2, (byte)0xb0, 0, 0, 1, 2};
    private static final byte[] SOURCE = {2, (byte)0xb0, 0, 0, 1, 1};

    private MemoryForwardingPair pair;
    private MacRewriteLoop loop;
    private long now;

    @Setup
    public void setUp()
    {
        pair = new MemoryForwardingPair();
        loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(), DESTINATION, SOURCE);
    }

    @TearDown
    public void tearDown()
    {
        pair.close();
    }

    /** Per frame: one call forwards a burst of 64. */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public int forwardBurst()
    {
        return loop.poll(++now);
    }
}
