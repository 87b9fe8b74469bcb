package io.jvs.forwarder.port.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FrameTemplates}' memory lives as long as the source: its templates are in an automatic arena, which frees a
 * segment once nothing reaches it, and the source copies frames from raw addresses. With a template of a megabyte
 * (which the C library maps on its own, and unmaps when freed) memory freed too early is gone at once: the child JVM
 * that delivers it after the collector ran would crash, where a smaller template would come back changed, as
 * WorkerTest's SYNs once did (arriving as something else, one in a few hundred runs).
 */
class FrameTemplatesLifetimeTest
{
    private static final int TEMPLATE_BYTES = 1 << 20;

    @Test
    void shouldDeliverItsTemplatesUnchangedAfterTheCollectorRan() throws Exception
    {
        final String launcher = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process child = new ProcessBuilder(launcher, "--enable-native-access=ALL-UNNAMED", "--add-exports",
            "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=/dev/null", "-cp", System.getProperty("java.class.path"),
            FrameTemplatesLifetimeTest.class.getName()).redirectErrorStream(true).start();
        final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor()).as(output).isZero();
        assertThat(output).contains("10 rounds, every frame as its template");
    }

    /** The child: delivers the template after each of ten collections and compares. */
    public static void main(final String[] arguments) throws InterruptedException
    {
        final byte[] template = new byte[TEMPLATE_BYTES];
        Arrays.fill(template, (byte)0x5A);
        final FrameTemplates source = FrameTemplates.repeating(template);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment frame = arena.allocate(TEMPLATE_BYTES, 64);
            for (int round = 0; round < 10; round++)
            {
                System.gc();
                Thread.sleep(50);
                frame.fill((byte)0);
                if (source.next(frame.address(), TEMPLATE_BYTES) != TEMPLATE_BYTES ||
                    !Arrays.equals(frame.toArray(ValueLayout.JAVA_BYTE), template))
                {
                    System.out.println("round " + round + ": the frame is not its template");
                    System.exit(1);
                }
            }
        }
        System.out.println("10 rounds, every frame as its template");
    }
}
