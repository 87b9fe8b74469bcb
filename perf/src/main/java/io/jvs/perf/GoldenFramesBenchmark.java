package io.jvs.perf;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.pipeline.GoldenFrames;
import io.jvs.core.pipeline.Pipeline;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The golden frames (every kind of verdict: NAT both ways, DR, TUN, IPv6, an ICMP answer, passes and
 * drops) replayed as one burst: what a mixed burst costs per packet, beside the uniform loads of
 * {@link PipelineBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class GoldenFramesBenchmark
{
    private static final int FRAMES = 12;
    private static final int STRIDE = 2048;
    private static final int HEADROOM = 128;

    private Pipeline pipeline;
    private final FrameBurst burst = new FrameBurst();
    private long templates;
    private long frames;
    private int[] lengths;
    private long now = 1_000_000_000L;

    @Setup(Level.Trial)
    public void setUp()
    {
        pipeline = new Pipeline(GoldenFrames.publisher(), 0, 4096, 4096, 8, 16, 1_000_000);
        final ByteBuffer memory = ByteBuffer.allocateDirect(2 * FRAMES * STRIDE);
        templates = Frames.addressOf(memory);
        frames = templates + (long)FRAMES * STRIDE;
        lengths = new int[FRAMES];
        for (int i = 0; i < FRAMES; i++)
        {
            final byte[] input = GoldenFrames.CASES.get(i).inputBytes();
            Frames.write(input, templates + (long)i * STRIDE);
            lengths[i] = input.length;
        }
        burst();
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public int burst()
    {
        burst.clear();
        for (int i = 0; i < FRAMES; i++)
        {
            final long frame = frames + (long)i * STRIDE + HEADROOM;
            Frames.copy(templates + (long)i * STRIDE, frame, lengths[i]);
            burst.add(frame, lengths[i], STRIDE - HEADROOM, HEADROOM, now);
        }
        now += 1_000;
        pipeline.process(burst, now);
        return burst.verdict(FRAMES - 1);
    }
}
