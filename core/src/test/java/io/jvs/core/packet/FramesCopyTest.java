package io.jvs.core.packet;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Frames#copy} must move bytes as {@link System#arraycopy} does within one array (as if through a temporary
 * copy), on both sides of its small-copy threshold, for ranges that overlap either way and for ranges that do not,
 * and must write nothing outside the destination.
 */
class FramesCopyTest
{
    private static final int AREA = 1024;

    @ParameterizedTest
    @ValueSource(longs = {0x636F7079L, 1L, 0xF00DL})
    void shouldCopyEveryLengthAndOverlapAsArraycopyDoes(final long seed)
    {
        final Random random = new Random(seed);
        final ByteBuffer buffer = ByteBuffer.allocateDirect(AREA);
        final long base = Frames.addressOf(buffer);
        final byte[] expected = new byte[AREA];
        final byte[] actual = new byte[AREA];
        for (int length = 0; length <= Frames.SMALL_COPY + 80; length++)
        {
            for (int trial = 0; trial < 40; trial++)
            {
                random.nextBytes(expected);
                for (int i = 0; i < AREA; i++)
                {
                    Frames.putU8(base + i, expected[i]);
                }
                final int from = 8 + random.nextInt(AREA - 16 - 2 * length) + (trial < 20 ? 0 : length / 2);
                // Half the trials overlap: a destination within one length of the source, before or after it.
                final int to = trial % 2 == 0 ?
                    Math.clamp(from + random.nextInt(2 * length + 1) - length, 0, AREA - length) :
                    random.nextInt(AREA - length + 1);
                Frames.copy(base + from, base + to, length);
                System.arraycopy(expected, from, expected, to, length);
                for (int i = 0; i < AREA; i++)
                {
                    actual[i] = (byte)Frames.u8(base + i);
                }
                assertThat(actual).as("length %d from %d to %d", length, from, to).isEqualTo(expected);
            }
        }
    }
}
