package io.jvs.core.pipeline;

import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Verdict;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HexFormat;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The golden frames, in order through one pipeline: each comes out byte for byte as built.
 */
class GoldenFramesTest
{
    @Test
    void shouldTurnEveryGoldenInputIntoItsExpectedOutput()
    {
        final Pipeline pipeline = new Pipeline(GoldenFrames.publisher(), 0, 1024, 1024, 8, 16, 100);
        final ByteBuffer memory = ByteBuffer.allocateDirect(4096);
        final long frame = Frames.addressOf(memory) + 256;
        final FrameBurst burst = new FrameBurst();
        long now = 1_000_000_000L;
        for (final GoldenFrames.GoldenFrame golden : GoldenFrames.CASES)
        {
            final byte[] input = golden.inputBytes();
            Frames.write(input, frame);
            burst.clear();
            burst.add(frame, input.length, 2048, 256, now);
            pipeline.process(burst, now);
            now += 1_000_000;
            assertThat(Verdict.toString(burst.verdict(0))).as(golden.name()).isEqualTo(golden.verdict());
            assertThat(HexFormat.of().formatHex(Frames.read(burst.address(0), burst.length(0))))
                .as(golden.name() + ": " + golden.description()).isEqualTo(golden.output());
        }
    }
}
