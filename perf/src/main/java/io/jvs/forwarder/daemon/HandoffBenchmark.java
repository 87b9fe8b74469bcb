package io.jvs.forwarder.daemon;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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

import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;

/**
 * What handing a frame from one worker to another costs ({@link HandoffRing}): the receiving worker copies the
 * frame into a slot ({@code offer}) and publishes once per burst; the owner takes the burst ({@code receive}),
 * reads each frame's first bytes (as its parser will: the line has to come across) and hands the slots back
 * ({@code release}). Frames of 64 and 1500 bytes, copied from {@value #BURST} source frames 2048 bytes apart as
 * in a UMEM.
 * <ul>
 *   <li>{@link #roundTrip}: both sides on one thread, a burst of {@value #BURST} at a time, in ns per frame: the
 *   code path's cost that the two workers pay together, without the cache-line transfers between cores;</li>
 *   <li>{@link #producer} / {@link #consumer}: the two sides on two threads ({@code @Group}), each taking up to a
 *   burst per call; the frames each side moved per microsecond are the aux counters {@code offered} and
 *   {@code received} (ns per frame is their inverse), with the transfers included, on whatever cores the
 *   scheduler gives.</li>
 * </ul>
 * This is the ring's own cost, not a figure of frames on a wire.
 * <pre>
 *   java -jar perf/target/benchmarks.jar HandoffBenchmark -prof gc
 * </pre>
 * The class lives in the daemon's package because the ring is package-private there.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class HandoffBenchmark
{
    public static final int BURST = 32;
    /** As the daemon's rings (its HANDOFF_SLOTS). */
    public static final int SLOTS = 4096;
    private static final int SOURCE_STRIDE = 2048;

    @Param({"64", "1500"})
    public int frameLength;

    private Arena arena;
    private long sources;

    @Setup(Level.Trial)
    public void writeSources()
    {
        arena = Arena.ofShared();
        sources = arena.allocate((long)BURST * SOURCE_STRIDE, 4096).address();
        for (int i = 0; i < BURST; i++)
        {
            for (int b = 0; b < frameLength; b++)
            {
                Frames.putU8(sources + (long)i * SOURCE_STRIDE + b, i + b);
            }
        }
    }

    @TearDown(Level.Trial)
    public void freeSources()
    {
        arena.close();
    }

    /** The ring and the consumer's burst, of one group: the round trip's thread, or the producer and consumer. */
    @State(Scope.Group)
    public static class Ring
    {
        HandoffRing ring;
        final FrameBurst burst = new FrameBurst();

        @Setup(Level.Trial)
        public void open()
        {
            ring = new HandoffRing(SLOTS);
        }

        @TearDown(Level.Trial)
        public void close()
        {
            ring.close();
        }
    }

    /** Frames a side of the two-thread group moved, per the output time unit. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Moved
    {
        public long offered;
        public long received;

        @Setup(Level.Iteration)
        public void reset()
        {
            offered = 0;
            received = 0;
        }
    }

    @Benchmark
    @Group("roundTrip")
    @GroupThreads(1)
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    @OperationsPerInvocation(BURST)
    public long roundTrip(final Ring state)
    {
        final HandoffRing ring = state.ring;
        final int length = frameLength;
        for (int i = 0; i < BURST; i++)
        {
            if (!ring.offer(sources + (long)i * SOURCE_STRIDE, length, 0, 0, i))
            {
                throw new IllegalStateException("ring full in a round trip");
            }
        }
        ring.publish();
        final FrameBurst burst = state.burst;
        burst.clear();
        final int count = ring.receive(burst, BURST);
        long touched = 0;
        for (int i = 0; i < count; i++)
        {
            touched += Frames.i64(burst.address(i));
        }
        ring.release();
        return touched + count;
    }

    @Benchmark
    @Group("pair")
    @GroupThreads(1)
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int producer(final Ring state, final Moved moved)
    {
        final HandoffRing ring = state.ring;
        final int length = frameLength;
        int offered = 0;
        while (offered < BURST && ring.offer(sources + (long)offered * SOURCE_STRIDE, length, 0, 0, offered))
        {
            offered++;
        }
        if (offered == 0)
        {
            Thread.onSpinWait();
            return 0;
        }
        ring.publish();
        moved.offered += offered;
        return offered;
    }

    @Benchmark
    @Group("pair")
    @GroupThreads(1)
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long consumer(final Ring state, final Moved moved)
    {
        final HandoffRing ring = state.ring;
        final FrameBurst burst = state.burst;
        burst.clear();
        final int count = ring.receive(burst, BURST);
        if (count == 0)
        {
            Thread.onSpinWait();
            return 0;
        }
        long touched = 0;
        for (int i = 0; i < count; i++)
        {
            touched += Frames.i64(burst.address(i));
        }
        ring.release();
        moved.received += count;
        return touched;
    }
}
