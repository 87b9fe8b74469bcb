package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.Syscalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conductor's idle sleep: it does not sleep while work is queued, a submitter's wake-up ends a sleep at once
 * (the sleeps here are a minute long, so a lost wake-up fails the test's time limit), and with nothing to do it
 * sleeps only as long as it was told.
 */
class ConductorIdleStrategyTest
{
    private static final int A_MINUTE_MS = 60_000;

    private final Syscalls conductor = Syscalls.create();

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void shouldNotSleepWhileInputIsQueued()
    {
        try (Wakeup wakeup = new Wakeup(conductor); PollSet poll = new PollSet(conductor, new int[] {wakeup.fd()}))
        {
            final ConductorIdleStrategy idle = new ConductorIdleStrategy(poll, wakeup, () -> true, A_MINUTE_MS);
            idle.idle(0);
            idle.idle(0);
            assertThat(idle.sleeps()).as("sleeps with a request queued").isZero();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void shouldNotSleepAfterABurstOfWork()
    {
        try (Wakeup wakeup = new Wakeup(conductor); PollSet poll = new PollSet(conductor, new int[] {wakeup.fd()}))
        {
            final ConductorIdleStrategy idle = new ConductorIdleStrategy(poll, wakeup, () -> false, A_MINUTE_MS);
            idle.idle(3);
            assertThat(idle.sleeps()).as("sleeps after a cycle that did work").isZero();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void shouldWakeAtOnceWhenWorkIsSubmittedDuringTheSleep() throws InterruptedException
    {
        try (Wakeup wakeup = new Wakeup(conductor); PollSet poll = new PollSet(conductor, new int[] {wakeup.fd()}))
        {
            final AtomicBoolean queued = new AtomicBoolean();
            final ConductorIdleStrategy idle = new ConductorIdleStrategy(poll, wakeup, queued::get, A_MINUTE_MS);
            final Thread sleeper = Thread.ofPlatform().start(() -> idle.idle(0));
            Sleepers.awaitInPoll(sleeper);
            queued.set(true);
            wakeup.wake(Syscalls.create());
            sleeper.join(TimeUnit.SECONDS.toMillis(5));
            assertThat(sleeper.isAlive()).as("still asleep 5 s after the wake-up").isFalse();
            assertThat(idle.sleeps()).as("sleeps").isEqualTo(1);
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void shouldSleepNoLongerThanItsLimitWithNothingToDo()
    {
        try (Wakeup wakeup = new Wakeup(conductor); PollSet poll = new PollSet(conductor, new int[] {wakeup.fd()}))
        {
            final ConductorIdleStrategy idle = new ConductorIdleStrategy(poll, wakeup, () -> false, 20);
            idle.idle(0);
            idle.idle(0);
            assertThat(idle.sleeps()).as("sleeps").isEqualTo(2);
        }
    }
}
