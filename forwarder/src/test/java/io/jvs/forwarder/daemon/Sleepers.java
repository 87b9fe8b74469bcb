package io.jvs.forwarder.daemon;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/** For tests of a thread that sleeps in {@link PollSet#await}: when it is there. */
final class Sleepers
{
    private Sleepers()
    {
    }

    /**
     * Waits until the thread is in {@link PollSet#await}: it has decided to sleep, and a wake-up from now on ends
     * its poll(2). A fixed pause before the wake-up could end first on a loaded box, and the test then proved less
     * (the wake-up seen on entry) or failed (the work seen before the decision, so no sleep at all).
     */
    static void awaitInPoll(final Thread thread) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Arrays.stream(thread.getStackTrace()).noneMatch(frame ->
            frame.getClassName().equals(PollSet.class.getName()) && frame.getMethodName().equals("await")))
        {
            if (System.nanoTime() - deadline > 0 || !thread.isAlive())
            {
                throw new AssertionError(thread.getName() + " not in PollSet.await within 10 s: " +
                    Arrays.toString(thread.getStackTrace()));
            }
            Thread.sleep(1);
        }
    }
}
