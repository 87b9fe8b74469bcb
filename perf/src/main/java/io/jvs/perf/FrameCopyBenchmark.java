package io.jvs.perf;

import io.jvs.core.packet.Frames;
import org.agrona.UnsafeApi;
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

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * A frame copied between two off-heap frames, by {@link Frames#copy} (longs up to its small-copy threshold, the stub
 * beyond it) and by the copy stub alone ({@code UnsafeApi.copyMemory}), at the lengths the data path copies: a
 * minimum frame, the threshold, twice it and a full one. The source sits 14 bytes into its frame and the destination
 * at a frame's headroom, as a captured frame copied into a port's buffer does. The threshold is where the two meet.
 * <pre>
 *   java -jar perf/target/benchmarks.jar FrameCopyBenchmark
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class FrameCopyBenchmark
{
    private static final int FRAME = 2048;
    private static final int FRAMES = 32;

    @Param({"60", "128", "256", "1514"})
    public int length;

    private ByteBuffer buffer;
    private long source;
    private long destination;
    private int next;

    @Setup(Level.Trial)
    public void setUp()
    {
        buffer = ByteBuffer.allocateDirect(2 * FRAMES * FRAME + 4096);
        final long base = (Frames.addressOf(buffer) + 4095) & ~4095L;
        source = base + 14;
        destination = base + (long)FRAMES * FRAME + 256;
        for (int i = 0; i < FRAMES * FRAME; i++)
        {
            Frames.putU8(base + i, i * 31);
        }
    }

    @Benchmark
    public long frames()
    {
        final int frame = next++ & (FRAMES - 1);
        final long to = destination + (long)frame * FRAME;
        Frames.copy(source + (long)frame * FRAME, to, length);
        return to;
    }

    @Benchmark
    public long stub()
    {
        final int frame = next++ & (FRAMES - 1);
        final long to = destination + (long)frame * FRAME;
        UnsafeApi.copyMemory(source + (long)frame * FRAME, to, length);
        return to;
    }
}
