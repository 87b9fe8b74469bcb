package io.jvs.forwarder.daemon;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class DaemonStopTest
{
    @Test
    void shouldGiveUpWaitingForAResourceWhoseCloseDoesNotReturnAndGoOn() throws Exception
    {
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean closed = new AtomicBoolean();
        final AutoCloseable stuck = () ->
        {
            release.await();
            closed.set(true);
        };
        final long started = System.nanoTime();

        assertThat(Daemon.closeWithin(stuck, 200)).isFalse();

        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(200);
        release.countDown();
        // It went on closing on its own thread.
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!closed.get() && System.nanoTime() - deadline < 0)
        {
            Thread.onSpinWait();
        }
        assertThat(closed).isTrue();
    }

    @Test
    void shouldSayAResourceClosedInTime()
    {
        final AtomicBoolean closed = new AtomicBoolean();
        assertThat(Daemon.closeWithin(() -> closed.set(true), 5_000)).isTrue();
        assertThat(closed).isTrue();
        assertThat(Daemon.closeWithin(() ->
        {
            throw new IllegalStateException("already closed");
        }, 5_000)).as("a close that throws has still ended").isTrue();
    }
}
