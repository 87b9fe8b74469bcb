package io.jvs.forwarder.daemon;

import org.agrona.concurrent.IdleStrategy;

import java.util.function.BooleanSupplier;

/**
 * The conductor's {@link IdleStrategy}: with nothing to do it sleeps in poll(2) on what brings it work (the
 * rtnetlink subscription, the announcer's ARP and neighbour-solicitation sockets, and its own eventfd, which a
 * control request or a worker's neighbour miss writes) for at most {@link #SLEEP_MS}, so its timers (the
 * coalesced rebuild, the neighbour refresh) still run. An idle daemon thus wakes about a hundred times a second
 * instead of a thousand, and a request is served at once rather than on the next tick.
 * <p>
 * The lost-wake-up protocol is {@link Wakeup}'s: the conductor says it is about to sleep, then looks at its
 * queues once more ({@code hasInput}) and sleeps only if they are empty.
 */
final class ConductorIdleStrategy implements IdleStrategy
{
    /** The longest sleep, the granularity of the conductor's timers when nothing else wakes it. */
    static final int SLEEP_MS = 10;

    private final PollSet pollSet;
    private final Wakeup wakeup;
    private final BooleanSupplier hasInput;
    private final int sleepMs;
    private long sleeps;

    /**
     * @param pollSet  the conductor's descriptors and {@code wakeup}'s eventfd.
     * @param wakeup   written by whoever queues work for the conductor.
     * @param hasInput whether a request or a worker's message is queued (checked once more before sleeping).
     */
    ConductorIdleStrategy(final PollSet pollSet, final Wakeup wakeup, final BooleanSupplier hasInput)
    {
        this(pollSet, wakeup, hasInput, SLEEP_MS);
    }

    /** As the daemon's, with another longest sleep (tests). */
    ConductorIdleStrategy(final PollSet pollSet, final Wakeup wakeup, final BooleanSupplier hasInput,
        final int sleepMs)
    {
        this.pollSet = pollSet;
        this.wakeup = wakeup;
        this.hasInput = hasInput;
        this.sleepMs = sleepMs;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount <= 0)
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        wakeup.aboutToSleep();
        if (!hasInput.getAsBoolean())
        {
            pollSet.await(sleepMs);
            sleeps++;
        }
        wakeup.awake();
    }

    @Override
    public void reset()
    {
    }

    /** @return how many times the conductor slept (conductor thread; for tests). */
    long sleeps()
    {
        return sleeps;
    }
}
