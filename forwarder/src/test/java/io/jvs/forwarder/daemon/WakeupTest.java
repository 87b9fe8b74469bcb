package io.jvs.forwarder.daemon;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.nativebindings.Syscalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The wake-up eventfd and the poll set a worker sleeps in: a wake reaches a sleeper at once, a wake to a worker
 * that did not say it sleeps writes nothing, and the sleeping-flag protocol loses no wake-up when the waker's
 * hand-off races the sleeper's last look at its ring.
 */
class WakeupTest
{
    /** errno EAGAIN: an empty eventfd opened non-blocking. */
    private static final long EAGAIN = 11;

    private final Syscalls syscalls = Syscalls.create();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment value = arena.allocate(8, 8);

    @AfterEach
    void closeArena()
    {
        arena.close();
    }

    @Test
    void shouldWriteNothingWhenTheWorkerIsNotAboutToSleep()
    {
        try (Wakeup wakeup = new Wakeup(syscalls))
        {
            wakeup.wake(Syscalls.create());
            wakeup.wake(Syscalls.create());
            assertThat(syscalls.read(wakeup.fd(), value.address(), 8)).as("read of the eventfd").isEqualTo(-EAGAIN);
        }
    }

    @Test
    void shouldWriteOnceAWorkerIsAboutToSleepAndStopWhenItIsAwake()
    {
        try (Wakeup wakeup = new Wakeup(syscalls); PollSet poll = new PollSet(syscalls, new int[] {wakeup.fd()}))
        {
            wakeup.aboutToSleep();
            wakeup.wake(Syscalls.create());
            wakeup.wake(Syscalls.create());
            assertThat(poll.await(0)).as("readable descriptors").isEqualTo(1);
            wakeup.awake();
            // awake() took the counter: the descriptor is quiet again, and so are later wakes.
            assertThat(poll.await(0)).isZero();
            wakeup.wake(Syscalls.create());
            assertThat(syscalls.read(wakeup.fd(), value.address(), 8)).isEqualTo(-EAGAIN);
        }
    }

    @Test
    void shouldCountEveryWakeWhileAsleep()
    {
        try (Wakeup wakeup = new Wakeup(syscalls))
        {
            wakeup.aboutToSleep();
            for (int i = 0; i < 3; i++)
            {
                wakeup.wake(Syscalls.create());
            }
            assertThat(syscalls.read(wakeup.fd(), value.address(), 8)).isEqualTo(8);
            assertThat(value.get(JAVA_LONG, 0)).isEqualTo(3);
        }
    }

    @Test
    void shouldWakeASleeperInPollAtOnce() throws Exception
    {
        try (Wakeup wakeup = new Wakeup(syscalls))
        {
            final CountDownLatch asleep = new CountDownLatch(1);
            final long[] result = new long[2];
            final Thread sleeper = Thread.ofPlatform().name("sleeper").start(() ->
            {
                final Syscalls own = Syscalls.create();
                try (PollSet poll = new PollSet(own, new int[] {wakeup.fd()}))
                {
                    wakeup.aboutToSleep();
                    asleep.countDown();
                    result[0] = poll.await(10_000);
                    result[1] = System.nanoTime();
                    wakeup.awake();
                }
            });
            assertThat(asleep.await(10, TimeUnit.SECONDS)).isTrue();
            // Let it reach poll(2): a wake before that would be seen as readable on entry, which proves less.
            Sleepers.awaitInPoll(sleeper);
            final long woken = System.nanoTime();
            wakeup.wake(syscalls);
            sleeper.join(10_000);
            assertThat(sleeper.isAlive()).isFalse();
            assertThat(result[0]).as("poll's result").isEqualTo(1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(result[1] - woken)).as("ms from wake to return").isLessThan(500);
        }
    }

    @Test
    void shouldWaitTheTimeoutWithNothingReadableAndSeeAnyDescriptorOfTheSet()
    {
        try (Wakeup first = new Wakeup(syscalls); Wakeup second = new Wakeup(syscalls);
            PollSet poll = new PollSet(syscalls, new int[] {first.fd(), second.fd()}))
        {
            final long start = System.nanoTime();
            assertThat(poll.await(50)).isZero();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(45));
            second.aboutToSleep();
            second.wake(syscalls);
            assertThat(poll.await(1000)).isEqualTo(1);
            first.aboutToSleep();
            first.wake(syscalls);
            // revents are cleared before each wait: the count is of this wait's readable descriptors.
            assertThat(poll.await(1000)).isEqualTo(2);
            second.awake();
            first.awake();
            assertThat(poll.await(0)).isZero();
        }
    }

    /**
     * A worker's sleep, as its idle strategy goes through it (the flag, the last look, poll(2), awake) and a
     * wake-up by another worker allocate nothing on either thread's side: a worker with no traffic sleeps and
     * wakes hundreds of times a second.
     */
    @Test
    void shouldAllocateNothingToSleepAndWake()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        final Syscalls waker = Syscalls.create();
        try (Wakeup wakeup = new Wakeup(syscalls); PollSet poll = new PollSet(syscalls, new int[] {wakeup.fd()}))
        {
            long fewestBytes = Long.MAX_VALUE;
            for (int window = 0; window < 4; window++)
            {
                final long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 50_000; i++)
                {
                    wakeup.aboutToSleep();
                    wakeup.wake(waker);
                    if (poll.await(1000) != 1)
                    {
                        throw new AssertionError("not woken");
                    }
                    wakeup.awake();
                }
                fewestBytes = Math.min(fewestBytes, threads.getCurrentThreadAllocatedBytes() - before);
            }
            // 50,000 sleeps: one 16-byte object per sleep would come to 800 KB.
            assertThat(fewestBytes).as("bytes allocated in the quietest window").isLessThan(4 * 1024);
        }
    }

    /**
     * Many rounds of one hand-off each: the producer waits a random while, offers a frame, publishes and wakes;
     * the consumer takes the frame if it is there, else says it is about to sleep, looks once more, sleeps in
     * poll(2) and is awake. A lost wake-up would leave the consumer asleep for the whole timeout.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7, 8, 9})
    void shouldLoseNoWakeUpWhenAHandOffRacesTheSleeper(final long seed) throws Exception
    {
        final int rounds = 20_000;
        final int timeoutMs = 5_000;
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong consumed = new AtomicLong();
        final long[] sleeps = new long[3];
        try (HandoffRing ring = new HandoffRing(4); Wakeup wakeup = new Wakeup(syscalls);
            Arena memory = Arena.ofShared())
        {
            final long frame = memory.allocate(64).address();
            final Thread consumer = Thread.ofPlatform().name("sleeper").unstarted(() ->
            {
                final Syscalls own = Syscalls.create();
                final SplittableRandom random = new SplittableRandom(seed * 31 + 1);
                final FrameBurst burst = new FrameBurst();
                try (PollSet poll = new PollSet(own, new int[] {wakeup.fd()}))
                {
                    for (int round = 0; round < rounds && failure.get() == null; round++)
                    {
                        while (!ring.hasFrames())
                        {
                            // Widen the windows a hand-off can fall into: before the flag, and before the last look.
                            spin(random.nextInt(3) == 0 ? random.nextInt(400) : 0);
                            wakeup.aboutToSleep();
                            spin(random.nextInt(3) == 0 ? random.nextInt(400) : 0);
                            if (!ring.hasFrames())
                            {
                                final long start = System.nanoTime();
                                final int ready = poll.await(timeoutMs);
                                final long slept = System.nanoTime() - start;
                                sleeps[0]++;
                                sleeps[1] = Math.max(sleeps[1], slept);
                                if (ready == 0)
                                {
                                    throw new AssertionError("round " + round + ": slept the whole " + timeoutMs +
                                        " ms with a frame waiting: " + ring.hasFrames());
                                }
                            }
                            else
                            {
                                sleeps[2]++;
                            }
                            wakeup.awake();
                        }
                        burst.clear();
                        if (ring.receive(burst, FrameBurst.MAX_FRAMES) != 1)
                        {
                            throw new AssertionError("round " + round + ": not one frame");
                        }
                        ring.release();
                        consumed.set(round + 1);
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
            });
            final Thread producer = Thread.ofPlatform().name("waker").unstarted(() ->
            {
                final Syscalls own = Syscalls.create();
                final SplittableRandom random = new SplittableRandom(seed);
                try
                {
                    for (int round = 0; round < rounds && failure.get() == null; round++)
                    {
                        while (consumed.get() < round && failure.get() == null)
                        {
                            Thread.onSpinWait();
                        }
                        // No delay or a short one (racing the sleeper's flag and last look), or long enough that
                        // it is in poll(2).
                        final int kind = random.nextInt(3);
                        spin(kind == 0 ? 0 : kind == 1 ? random.nextInt(400) : random.nextInt(20_000));
                        if (!ring.offer(frame, 64, 0, 0, round))
                        {
                            throw new AssertionError("round " + round + ": ring full");
                        }
                        ring.publish();
                        wakeup.wake(own);
                    }
                }
                catch (final Throwable ex)
                {
                    failure.compareAndSet(null, ex);
                }
            });
            final long started = System.nanoTime();
            consumer.start();
            producer.start();
            producer.join(120_000);
            consumer.join(Math.max(1, 120_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)));
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            if (producer.isAlive() || consumer.isAlive())
            {
                failure.compareAndSet(null, new AssertionError("not done within 120 s"));
                producer.join();
                consumer.join();
            }
            if (failure.get() != null)
            {
                throw new AssertionError("seed " + seed, failure.get());
            }
            System.out.printf("seed %d: %d rounds in %d ms, %d sleeps in poll (longest %d us), %d re-checks saw "
                + "the frame%n", seed, rounds, elapsedMs, sleeps[0], sleeps[1] / 1000, sleeps[2]);
            assertThat(consumed.get()).isEqualTo(rounds);
            // The schedule must have made the consumer really sleep, or the test proved nothing.
            assertThat(sleeps[0]).as("sleeps in poll").isGreaterThan(rounds / 10);
            assertThat(sleeps[1]).as("longest sleep, ns").isLessThan(TimeUnit.MILLISECONDS.toNanos(timeoutMs));
        }
    }

    private static void spin(final int times)
    {
        for (int i = 0; i < times; i++)
        {
            Thread.onSpinWait();
        }
    }
}
