package io.jvs.forwarder.replay;

import io.jvs.forwarder.synth.SynthSettings;
import io.jvs.forwarder.synth.TraceSynthesizer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A replay allocates while it sets up (tables, rules, report) and once per second of capture time (a
 * sample of each server's connections), never per frame: replaying three times the frames allocates the
 * same, give or take those samples. Forwarded frames are written; decisions and --all are off (they
 * format text per line, by design). With the pipelines on their own thread, the bytes of every thread count
 * (the JVM's total, which keeps those of threads that ended).
 */
class ReplayAllocationTest
{
    @TempDir
    Path dir;

    @ParameterizedTest(name = "pipelines on their own thread: {0}")
    @ValueSource(booleans = {false, true})
    void shouldAllocateNothingPerFrame(final boolean overlapped) throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long[] allocated = new long[2];
        final int[] frames = {100_000, 300_000};
        for (int run = 0; run < 3; run++)
        {
            for (int size = 0; size < 2; size++)
            {
                final SynthSettings settings = SynthSettings.builder().packets(frames[size]).services(2)
                    .serversPerService(4).clients(20_000).seed(5).ratePps(1_000_000).build();
                final Path trace = dir.resolve("trace-" + size + ".pcap");
                if (!Files.exists(trace))
                {
                    TraceSynthesizer.synthesize(settings, trace);
                    Files.writeString(dir.resolve("farm.rules"), TraceSynthesizer.rules(settings));
                }
                final ReplayOptions options = new ReplayOptions(dir.resolve("farm.rules"), null, trace, null,
                    dir.resolve("out.pcap"), false, null, 1, 1 << 18, 0);
                final long before = allocatedBytes(threads, overlapped);
                final ReplayReport report = new Replay(options, overlapped).run();
                allocated[size] = allocatedBytes(threads, overlapped) - before;
                assertThat(report.framesIn()).isEqualTo(frames[size]);
                assertThat(report.forwarded()).isGreaterThan(frames[size] * 9L / 10);
            }
        }
        final double perFrame = (double)(allocated[1] - allocated[0]) / (frames[1] - frames[0]);
        System.out.printf("replay allocated %d B for %d frames and %d B for %d: %.4f B per extra frame%n",
            allocated[0], frames[0], allocated[1], frames[1], perFrame);
        assertThat(perFrame).as("bytes allocated per frame").isLessThan(0.05);
    }

    private static long allocatedBytes(final com.sun.management.ThreadMXBean threads, final boolean everyThread)
    {
        return everyThread ? threads.getTotalThreadAllocatedBytes() : threads.getCurrentThreadAllocatedBytes();
    }
}
