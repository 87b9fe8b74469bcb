package io.jvs.core.pipeline;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The burst's frame records: every field keeps what it is given over its whole range, no field of one frame's
 * record reaches into another field or another frame's record, adding a frame resets what the last burst left in
 * its record, and an index outside the burst throws.
 */
class FrameBurstTest
{
    private static final int FRAMES = 6;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x6A76_7300L})
    void shouldKeepEveryFieldOfEveryRecordApart(final long seed)
    {
        final FrameBurst burst = new FrameBurst();
        final SplittableRandom random = new SplittableRandom(seed);
        final Fields[] written = new Fields[FRAMES];
        for (int round = 0; round < 200; round++)
        {
            // Each round rewrites the records in a random order, so a field that spilled into a neighbour would be
            // seen whichever was written last.
            for (int n = 0; n < FRAMES; n++)
            {
                final int i = random.nextInt(FRAMES);
                written[i] = Fields.random(random);
                written[i].writeTo(burst, i);
            }
            for (int i = 0; i < FRAMES; i++)
            {
                if (written[i] != null)
                {
                    assertThat(Fields.readFrom(burst, i)).as("record %d, round %d", i, round).isEqualTo(written[i]);
                }
            }
        }
    }

    @Test
    void shouldKeepEachFieldsExtremes()
    {
        final FrameBurst burst = new FrameBurst();
        final Fields largest = new Fields(-1L, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE,
            -1, -1, -1L, true);
        final Fields smallest = new Fields(Long.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE,
            Long.MIN_VALUE, Integer.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE, false);
        largest.writeTo(burst, FrameBurst.MAX_FRAMES - 1);
        smallest.writeTo(burst, 0);
        assertThat(Fields.readFrom(burst, FrameBurst.MAX_FRAMES - 1)).isEqualTo(largest);
        assertThat(Fields.readFrom(burst, 0)).isEqualTo(smallest);
    }

    @Test
    void shouldResetWhatTheLastBurstLeftWhenAFrameIsAdded()
    {
        final FrameBurst burst = new FrameBurst();
        new Fields(1, 2, 3, 4, 5, 6, 7, 8, true).writeTo(burst, 0);
        burst.count = 0;

        assertThat(burst.add(0x1000, 60, 2048, 256, 99, 42)).isEqualTo(0);
        assertThat(burst.add(0x2000, 1500, 64, 0, 100)).isEqualTo(1);

        assertThat(burst.count).isEqualTo(2);
        assertThat(Fields.readFrom(burst, 0)).isEqualTo(new Fields(0x1000, 60, 2048, 256, 99, 0, 0, 42, false));
        // The capacity is at least the frame's length; a frame added without a handle has handle 0.
        assertThat(Fields.readFrom(burst, 1)).isEqualTo(new Fields(0x2000, 1500, 1500, 0, 100, 0, 0, 0, false));
    }

    @Test
    void shouldRefuseAFrameBeyondTheLargestBurst()
    {
        final FrameBurst burst = new FrameBurst();
        for (int i = 0; i < FrameBurst.MAX_FRAMES; i++)
        {
            burst.add(i * 64L, 60, 64, 0, 0);
        }
        assertThatThrownBy(() -> burst.add(0, 60, 64, 0, 0)).isInstanceOf(IllegalStateException.class);
        assertThat(burst.count).isEqualTo(FrameBurst.MAX_FRAMES);
        burst.clear();
        assertThat(burst.count).isZero();
    }

    @Test
    void shouldKnowTheReceiveTimeAllItsFramesShare()
    {
        final FrameBurst burst = new FrameBurst();
        assertThat(burst.commonReceiveTimeNs()).as("empty").isEqualTo(FrameBurst.MIXED_RECEIVE_TIMES);
        burst.add(0x1000, 60, 2048, 0, 500);
        burst.add(0x2000, 60, 2048, 0, 500);
        assertThat(burst.commonReceiveTimeNs()).isEqualTo(500);
        burst.add(0x3000, 60, 2048, 0, 501);
        assertThat(burst.commonReceiveTimeNs()).as("a third frame a nanosecond later").isEqualTo(
            FrameBurst.MIXED_RECEIVE_TIMES);
        burst.add(0x4000, 60, 2048, 0, 500);
        assertThat(burst.commonReceiveTimeNs()).as("mixed stays mixed").isEqualTo(FrameBurst.MIXED_RECEIVE_TIMES);

        burst.receiveTimeNsOfAll(700);
        assertThat(burst.commonReceiveTimeNs()).as("all set at once").isEqualTo(700);
        for (int i = 0; i < burst.count; i++)
        {
            assertThat(burst.receiveTimeNs(i)).isEqualTo(700);
        }
        burst.receiveTimeNs(2, 700);
        assertThat(burst.commonReceiveTimeNs()).as("one set to the same time").isEqualTo(700);
        burst.receiveTimeNs(2, 699);
        assertThat(burst.commonReceiveTimeNs()).as("one set to another time").isEqualTo(
            FrameBurst.MIXED_RECEIVE_TIMES);
        burst.receiveTimeNs(2, 700);
        assertThat(burst.commonReceiveTimeNs()).as("set back: not known without looking").isEqualTo(
            FrameBurst.MIXED_RECEIVE_TIMES);

        burst.clear();
        assertThat(burst.commonReceiveTimeNs()).as("emptied").isEqualTo(FrameBurst.MIXED_RECEIVE_TIMES);
        burst.receiveTimeNsOfAll(800);
        assertThat(burst.commonReceiveTimeNs()).as("no frame to share a time").isEqualTo(
            FrameBurst.MIXED_RECEIVE_TIMES);
        burst.add(0x1000, 60, 2048, 0, 900);
        burst.receiveTimeNs(0, 901);
        assertThat(burst.commonReceiveTimeNs()).as("the only frame's time changed").isEqualTo(901);
        burst.add(0x2000, 60, 2048, 0, Long.MIN_VALUE);
        assertThat(burst.commonReceiveTimeNs()).isEqualTo(FrameBurst.MIXED_RECEIVE_TIMES);
    }

    @Test
    void shouldRefuseAnIndexOutsideTheBurst()
    {
        final FrameBurst burst = new FrameBurst();
        assertThatThrownBy(() -> burst.address(FrameBurst.MAX_FRAMES)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> burst.verdict(-1, 7)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> burst.taken(Integer.MAX_VALUE, true)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    private record Fields(long address, int length, int capacity, int headroom, long receiveTimeNs, int firewallMark,
        int verdict, long handle, boolean taken)
    {
        static Fields random(final SplittableRandom random)
        {
            return new Fields(random.nextLong(), random.nextInt(), random.nextInt(), random.nextInt(),
                random.nextLong(), random.nextInt(), random.nextInt(), random.nextLong(), random.nextBoolean());
        }

        void writeTo(final FrameBurst burst, final int i)
        {
            burst.address(i, address);
            burst.length(i, length);
            burst.capacity(i, capacity);
            burst.headroom(i, headroom);
            burst.receiveTimeNs(i, receiveTimeNs);
            burst.firewallMark(i, firewallMark);
            burst.verdict(i, verdict);
            burst.handle(i, handle);
            burst.taken(i, taken);
        }

        static Fields readFrom(final FrameBurst burst, final int i)
        {
            return new Fields(burst.address(i), burst.length(i), burst.capacity(i), burst.headroom(i),
                burst.receiveTimeNs(i), burst.firewallMark(i), burst.verdict(i), burst.handle(i), burst.taken(i));
        }
    }
}
