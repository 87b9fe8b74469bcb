package io.jvs.forwarder.daemon;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The hand-off ring on one thread (capacity, order, what a frame carries across, the port runs a receive keeps
 * to, release, refusals) and between two threads under a seeded schedule of batch and burst sizes, where every
 * frame must arrive exactly once, in order, with its bytes and metadata as offered.
 */
class HandoffRingTest
{
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment source = arena.allocate(9216, 64);

    @AfterEach
    void closeArena()
    {
        arena.close();
    }

    @Test
    void shouldRefuseASizeThatIsNotAPowerOfTwo()
    {
        assertThatThrownBy(() -> new HandoffRing(12)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("12 slots");
        assertThatThrownBy(() -> new HandoffRing(1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new HandoffRing(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldBeFullExactlyAtItsCapacity()
    {
        try (HandoffRing ring = new HandoffRing(8))
        {
            for (int i = 0; i < 8; i++)
            {
                assertThat(ring.offer(frame(i, 64), 64, 0, 0, i)).as("offer %d", i).isTrue();
            }
            assertThat(ring.offer(frame(8, 64), 64, 0, 0, 8)).as("offer beyond capacity").isFalse();
            ring.publish();
            final FrameBurst burst = new FrameBurst();
            assertThat(ring.receive(burst, FrameBurst.MAX_FRAMES)).isEqualTo(8);
            // Lent, not released: the slots are still the consumer's.
            assertThat(ring.offer(frame(8, 64), 64, 0, 0, 8)).isFalse();
            ring.release();
            for (int i = 0; i < 8; i++)
            {
                assertThat(ring.offer(frame(100 + i, 64), 64, 0, 0, i)).as("offer %d after release", i).isTrue();
            }
            assertThat(ring.offer(frame(108, 64), 64, 0, 0, 8)).isFalse();
        }
    }

    @Test
    void shouldShowNothingUntilPublished()
    {
        try (HandoffRing ring = new HandoffRing(4))
        {
            final FrameBurst burst = new FrameBurst();
            assertThat(ring.hasFrames()).isFalse();
            assertThat(ring.offer(frame(1, 60), 60, 0, 0, 0)).isTrue();
            assertThat(ring.hasFrames()).isFalse();
            assertThat(ring.receive(burst, FrameBurst.MAX_FRAMES)).isZero();
            ring.publish();
            assertThat(ring.hasFrames()).isTrue();
            assertThat(ring.receive(burst, FrameBurst.MAX_FRAMES)).isEqualTo(1);
            // Received (lent) frames are no longer waiting.
            assertThat(ring.hasFrames()).isFalse();
            ring.release();
            assertThat(ring.hasFrames()).isFalse();
        }
    }

    @Test
    void shouldCarryBytesLengthPortMarkAndReceiveTimeInOrder()
    {
        try (HandoffRing ring = new HandoffRing(16))
        {
            final int[] lengths = {60, 1, 1500, HandoffRing.MAX_FRAME, 333};
            for (int i = 0; i < lengths.length; i++)
            {
                assertThat(ring.offer(frame(i, lengths[i]), lengths[i], 3, 0x100 + i, 1_000_000L * i + 7)).isTrue();
            }
            ring.publish();
            final FrameBurst burst = new FrameBurst();
            burst.ingressPort = -1;
            assertThat(ring.receive(burst, FrameBurst.MAX_FRAMES)).isEqualTo(lengths.length);
            assertThat(burst.count).isEqualTo(lengths.length);
            assertThat(burst.ingressPort).isEqualTo(3);
            for (int i = 0; i < lengths.length; i++)
            {
                assertThat(burst.length(i)).isEqualTo(lengths[i]);
                assertThat(Frames.read(burst.address(i), lengths[i])).as("bytes of frame %d", i)
                    .isEqualTo(expected(i, lengths[i]));
                assertThat(burst.firewallMark(i)).isEqualTo(0x100 + i);
                assertThat(burst.receiveTimeNs(i)).isEqualTo(1_000_000L * i + 7);
                // Room to grow in place: headroom before the frame, a slot's worth after.
                assertThat(burst.headroom(i)).isEqualTo(HandoffRing.HEADROOM);
                assertThat(burst.capacity(i)).isEqualTo(HandoffRing.MAX_FRAME);
                assertThat(burst.handle(i)).isEqualTo(i);
                assertThat(burst.verdict(i)).isZero();
                assertThat(burst.taken(i)).isFalse();
            }
            ring.release();
        }
    }

    @Test
    void shouldStopAReceiveWhereTheIngressPortChanges()
    {
        try (HandoffRing ring = new HandoffRing(16))
        {
            final int[] ports = {0, 0, 0, 1, 1, 0, 2};
            for (int i = 0; i < ports.length; i++)
            {
                ring.offer(frame(i, 64), 64, ports[i], 0, i);
            }
            ring.publish();
            final int[][] runs = {{0, 3}, {1, 2}, {0, 1}, {2, 1}};
            int next = 0;
            for (final int[] run : runs)
            {
                final FrameBurst burst = new FrameBurst();
                assertThat(ring.receive(burst, FrameBurst.MAX_FRAMES)).as("run of port %d", run[0]).isEqualTo(run[1]);
                assertThat(burst.ingressPort).isEqualTo(run[0]);
                for (int i = 0; i < burst.count; i++)
                {
                    assertThat(Frames.read(burst.address(i), 64)).isEqualTo(expected(next++, 64));
                }
            }
            assertThat(ring.receive(new FrameBurst(), FrameBurst.MAX_FRAMES)).isZero();
            // One release hands back every slot lent by the four receives.
            ring.release();
            for (int i = 0; i < 16; i++)
            {
                assertThat(ring.offer(frame(i, 64), 64, 0, 0, i)).isTrue();
            }
        }
    }

    @Test
    void shouldStopAReceiveAtTheBurstLimit()
    {
        try (HandoffRing ring = new HandoffRing(16))
        {
            for (int i = 0; i < 10; i++)
            {
                ring.offer(frame(i, 64), 64, 0, 0, i);
            }
            ring.publish();
            final FrameBurst burst = new FrameBurst();
            assertThat(ring.receive(burst, 4)).isEqualTo(4);
            burst.clear();
            assertThat(ring.receive(burst, 4)).isEqualTo(4);
            assertThat(Frames.read(burst.address(0), 64)).isEqualTo(expected(4, 64));
            burst.clear();
            assertThat(ring.receive(burst, 4)).isEqualTo(2);
            assertThat(Frames.read(burst.address(1), 64)).isEqualTo(expected(9, 64));
            ring.release();
        }
    }

    @Test
    void shouldRefuseAFrameLongerThanASlotWithoutUsingOne()
    {
        try (HandoffRing ring = new HandoffRing(2))
        {
            assertThat(ring.offer(frame(0, HandoffRing.MAX_FRAME + 1), HandoffRing.MAX_FRAME + 1, 0, 0, 0)).isFalse();
            assertThat(ring.offer(frame(1, 9000), 9000, 0, 0, 0)).isFalse();
            assertThat(ring.offer(frame(2, 64), 64, 0, 0, 0)).isTrue();
            assertThat(ring.offer(frame(3, HandoffRing.MAX_FRAME), HandoffRing.MAX_FRAME, 0, 0, 0)).isTrue();
            ring.publish();
            final FrameBurst burst = new FrameBurst();
            assertThat(ring.receive(burst, FrameBurst.MAX_FRAMES)).isEqualTo(2);
            assertThat(Frames.read(burst.address(0), 64)).isEqualTo(expected(2, 64));
            assertThat(burst.length(1)).isEqualTo(HandoffRing.MAX_FRAME);
            ring.release();
        }
    }

    @Test
    void shouldWrapAroundManyTimesOnOneThread()
    {
        try (HandoffRing ring = new HandoffRing(4))
        {
            final FrameBurst burst = new FrameBurst();
            for (int round = 0; round < 1000; round++)
            {
                final int count = 1 + round % 4;
                for (int i = 0; i < count; i++)
                {
                    assertThat(ring.offer(frame(round * 4 + i, 80), 80, 0, round, round)).isTrue();
                }
                ring.publish();
                burst.clear();
                assertThat(ring.receive(burst, FrameBurst.MAX_FRAMES)).isEqualTo(count);
                for (int i = 0; i < count; i++)
                {
                    assertThat(Frames.i32(burst.address(i))).isEqualTo(round * 4 + i);
                }
                ring.release();
            }
        }
    }

    // -----------------------------------------------------------------------------------------------------
    // Two threads

    private static final long STRESS_FRAMES = 2_000_000L;
    private static final int STRESS_SLOTS = 256;

    /**
     * A producer offers frames whose bytes, length, port, mark and time are functions of their sequence number
     * and publishes after batches of random size; a consumer receives bursts of random size, sometimes twice
     * before releasing. The consumer checks each frame against its sequence number as it comes.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2})
    void shouldDeliverEveryFrameOnceInOrderAcrossThreads(final long seed) throws Exception
    {
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        try (HandoffRing ring = new HandoffRing(STRESS_SLOTS))
        {
            final SplittableRandom producerRandom = new SplittableRandom(seed);
            final SplittableRandom consumerRandom = producerRandom.split();
            final long[] received = new long[1];
            final Thread producer = Thread.ofPlatform().name("handoff-producer").unstarted(() ->
            {
                try (Arena memory = Arena.ofConfined())
                {
                    final long frame = memory.allocate(HandoffRing.MAX_FRAME, 64).address();
                    long sequence = 0;
                    while (sequence < STRESS_FRAMES && failure.get() == null)
                    {
                        final int batch = 1 + producerRandom.nextInt(48);
                        int offered = 0;
                        while (offered < batch && sequence < STRESS_FRAMES)
                        {
                            final int length = lengthOf(sequence);
                            write(frame, sequence, length);
                            if (!ring.offer(frame, length, portOf(sequence), markOf(sequence), sequence * 3))
                            {
                                // Full: show what there is, then wait for the consumer.
                                ring.publish();
                                backOff();
                                if (failure.get() != null)
                                {
                                    return;
                                }
                                continue;
                            }
                            offered++;
                            sequence++;
                        }
                        ring.publish();
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
            });
            final Thread consumer = Thread.ofPlatform().name("handoff-consumer").unstarted(() ->
            {
                try
                {
                    final FrameBurst burst = new FrameBurst();
                    long expected = 0;
                    while (expected < STRESS_FRAMES && failure.get() == null)
                    {
                        burst.clear();
                        final int count = ring.receive(burst, 1 + consumerRandom.nextInt(64));
                        if (count == 0)
                        {
                            // Hand back what is lent, or a full ring of lent frames would stop the producer.
                            ring.release();
                            backOff();
                            continue;
                        }
                        for (int i = 0; i < count; i++)
                        {
                            check(burst, i, expected++);
                        }
                        if (consumerRandom.nextInt(4) != 0)
                        {
                            ring.release();
                        }
                    }
                    ring.release();
                    received[0] = expected;
                    // Nothing beyond the last frame.
                    burst.clear();
                    if (ring.receive(burst, FrameBurst.MAX_FRAMES) != 0 || ring.hasFrames())
                    {
                        throw new AssertionError("a frame after the last one");
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
            });
            final long started = System.nanoTime();
            producer.start();
            consumer.start();
            producer.join(TimeUnit.SECONDS.toMillis(120));
            consumer.join(TimeUnit.SECONDS.toMillis(120) - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            final boolean finished = !producer.isAlive() && !consumer.isAlive();
            if (!finished)
            {
                failure.compareAndSet(null, new AssertionError("not done within 120 s"));
                producer.join();
                consumer.join();
            }
            if (failure.get() != null)
            {
                throw new AssertionError("hand-off of seed " + seed + " failed", failure.get());
            }
            assertThat(received[0]).isEqualTo(STRESS_FRAMES);
        }
    }

    private static void backOff()
    {
        // Two cores shared with other work: give the core away rather than spin against the other side.
        Thread.yield();
    }

    /** Lengths from 1 to a whole slot, most of them short so the test spends its time on the ring. */
    private static int lengthOf(final long sequence)
    {
        final long mixed = mix(sequence);
        return (mixed & 0xFF) == 0 ? HandoffRing.MAX_FRAME - (int)((mixed >>> 8) & 0xFF) :
            8 + (int)((mixed >>> 8) & 0x7F);
    }

    /** Runs of one ingress port of random length. */
    private static int portOf(final long sequence)
    {
        return (int)(mix(sequence >>> 3) & 3);
    }

    private static int markOf(final long sequence)
    {
        return (int)mix(sequence ^ 0x5A5A);
    }

    private static long mix(final long value)
    {
        long z = value * 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        return z ^ (z >>> 31);
    }

    /** The sequence number in the first 8 bytes (as far as they reach), then a pattern that depends on it. */
    private static void write(final long frame, final long sequence, final int length)
    {
        if (length >= Long.BYTES)
        {
            Frames.putI64(frame, sequence);
        }
        for (int i = length >= Long.BYTES ? Long.BYTES : 0; i < length; i++)
        {
            Frames.putU8(frame + i, (int)(sequence + i * 7) & 0xFF);
        }
    }

    private static void check(final FrameBurst burst, final int i, final long sequence)
    {
        final int length = lengthOf(sequence);
        final String frame = "frame " + sequence;
        if (burst.length(i) != length)
        {
            throw new AssertionError(frame + ": length " + burst.length(i) + ", offered " + length);
        }
        if (burst.ingressPort != portOf(sequence))
        {
            throw new AssertionError(frame + ": port " + burst.ingressPort + ", offered " + portOf(sequence));
        }
        if (burst.firewallMark(i) != markOf(sequence) || burst.receiveTimeNs(i) != sequence * 3)
        {
            throw new AssertionError(frame + ": mark or receive time changed");
        }
        final long address = burst.address(i);
        if (length >= Long.BYTES && Frames.i64(address) != sequence)
        {
            throw new AssertionError(frame + ": carries sequence " + Frames.i64(address));
        }
        for (int at = length >= Long.BYTES ? Long.BYTES : 0; at < length; at++)
        {
            if (Frames.u8(address + at) != ((int)(sequence + at * 7) & 0xFF))
            {
                throw new AssertionError(frame + ": byte " + at + " changed");
            }
        }
    }

    // -----------------------------------------------------------------------------------------------------

    /** A frame of the given length whose bytes depend on {@code seed}, in this test's source buffer. */
    private long frame(final int seed, final int length)
    {
        MemorySegment.copy(expected(seed, length), 0, source, JAVA_BYTE, 0, length);
        return source.address();
    }

    private static byte[] expected(final int seed, final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(seed * 31 + i);
        }
        if (length >= 4)
        {
            bytes[0] = (byte)(seed >>> 24);
            bytes[1] = (byte)(seed >>> 16);
            bytes[2] = (byte)(seed >>> 8);
            bytes[3] = (byte)seed;
        }
        return bytes;
    }
}
