package io.jvs.forwarder.port.memory;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.FramePool;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random sequences of receive, transmit, release and flush over three ports: two sharing one pool (the
 * zero-copy case) and one with a pool of its own (the copy case). After every step each pool's free count is
 * what the frames still held say it must be; no buffer is ever given back twice; every frame still held keeps
 * the bytes it was received with, which a buffer lent twice would overwrite; at the end every buffer is free.
 */
class MemoryPortRandomTest
{
    private static final int SHARED_BUFFERS = 48;
    private static final int OWN_BUFFERS = 24;
    private static final int MAX_LIVE_BURSTS = 4;

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 40);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldNeverLoseNorDoubleFreeABuffer(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        try (FramePool shared = new FramePool(SHARED_BUFFERS, 256, 64);
            FramePool own = new FramePool(OWN_BUFFERS, 256, 64))
        {
            final MemoryPort[] ports = {
                new MemoryPort(0, new SequenceSource(random.split()), shared, 1 + random.nextInt(20), 12,
                    TransmitObserver.NONE),
                new MemoryPort(1, new SequenceSource(random.split()), shared, 1 + random.nextInt(20), 12,
                    TransmitObserver.NONE),
                new MemoryPort(2, new SequenceSource(random.split()), own, 1 + random.nextInt(20), 12,
                    TransmitObserver.NONE)};
            final List<Held> live = new ArrayList<>();
            for (int step = 0; step < 2_000; step++)
            {
                final int action = random.nextInt(10);
                if (action < 3 && live.size() < MAX_LIVE_BURSTS)
                {
                    final MemoryPort port = ports[random.nextInt(3)];
                    final Held held = new Held(port, new FrameBurst());
                    port.receive(held.burst, step);
                    held.remember();
                    live.add(held);
                }
                else if (action < 6 && !live.isEmpty())
                {
                    final Held held = live.get(random.nextInt(live.size()));
                    final int[] chosen = new int[held.burst.count];
                    int count = 0;
                    for (int i = 0; i < held.burst.count; i++)
                    {
                        if (random.nextInt(3) == 0)
                        {
                            chosen[count++] = i;
                        }
                    }
                    ports[random.nextInt(3)].transmit(held.burst, chosen, count);
                }
                else if (action < 8 && !live.isEmpty())
                {
                    final Held held = live.remove(random.nextInt(live.size()));
                    held.assertIntact();
                    held.port.release(held.burst);
                }
                else
                {
                    ports[random.nextInt(3)].flush();
                }
                assertAccounted(shared, own, ports, live);
            }
            for (final Held held : live)
            {
                held.assertIntact();
                held.port.release(held.burst);
            }
            for (final MemoryPort port : ports)
            {
                port.flush();
                port.close();
            }
            assertThat(shared.freeCount()).isEqualTo(SHARED_BUFFERS);
            assertThat(own.freeCount()).isEqualTo(OWN_BUFFERS);
            assertThat(shared.refusedFrees() + own.refusedFrees()).isZero();
        }
    }

    private static void assertAccounted(final FramePool shared, final FramePool own, final MemoryPort[] ports,
        final List<Held> live)
    {
        int heldShared = ports[0].queued() + ports[1].queued();
        int heldOwn = ports[2].queued();
        final Set<Long> addresses = new HashSet<>();
        for (final Held held : live)
        {
            for (int i = 0; i < held.burst.count; i++)
            {
                if (!held.burst.taken(i))
                {
                    assertThat(addresses.add(held.burst.address(i))).as("a buffer held twice").isTrue();
                    if (held.port.pool() == shared)
                    {
                        heldShared++;
                    }
                    else
                    {
                        heldOwn++;
                    }
                }
            }
        }
        assertThat(shared.freeCount()).isEqualTo(SHARED_BUFFERS - heldShared);
        assertThat(own.freeCount()).isEqualTo(OWN_BUFFERS - heldOwn);
        assertThat(shared.refusedFrees() + own.refusedFrees()).isZero();
    }

    /** A burst a port received and has not been given back, with the sequence number of each frame. */
    private static final class Held
    {
        final MemoryPort port;
        final FrameBurst burst;
        final long[] sequence = new long[FrameBurst.MAX_FRAMES];

        Held(final MemoryPort port, final FrameBurst burst)
        {
            this.port = port;
            this.burst = burst;
        }

        void remember()
        {
            for (int i = 0; i < burst.count; i++)
            {
                sequence[i] = Frames.i64(burst.address(i));
            }
        }

        void assertIntact()
        {
            for (int i = 0; i < burst.count; i++)
            {
                if (!burst.taken(i))
                {
                    assertThat(Frames.i64(burst.address(i))).isEqualTo(sequence[i]);
                    assertThat(Frames.i64(burst.address(i) + burst.length(i) - 8)).isEqualTo(~sequence[i]);
                }
            }
        }
    }

    /** Frames of random length that carry a sequence number at their start and its complement at their end. */
    private static final class SequenceSource implements FrameSource
    {
        private static long next = 1;
        private final SplittableRandom random;

        SequenceSource(final SplittableRandom random)
        {
            this.random = random;
        }

        @Override
        public int next(final long address, final int capacity)
        {
            final int length = 16 + random.nextInt(capacity - 16 + 1);
            final long sequence = next++;
            Frames.putI64(address, sequence);
            Frames.putI64(address + length - 8, ~sequence);
            return length;
        }
    }
}
