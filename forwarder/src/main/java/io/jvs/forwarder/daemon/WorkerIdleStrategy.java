package io.jvs.forwarder.daemon;

import io.jvs.forwarder.config.IdleMode;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.util.function.IntSupplier;

/**
 * A worker's {@link IdleStrategy} for each {@link IdleMode}. The sleeping modes wait in poll(2) on the worker's
 * receive descriptors and wake-up eventfd, for at most {@link #SLEEP_MS} so the worker still sweeps expired
 * connections and follows new snapshots while no traffic comes.
 * <p>
 * Adaptive: a few spins catch a burst that is just behind; then {@code sched_yield} gives the core to the
 * kernel's receive work (softirq or the threaded NAPI, which on a small box shares the worker's core and
 * produces the frames it waits for); after {@link #ADAPTIVE_YIELDS} empty polls the worker sleeps.
 */
final class WorkerIdleStrategy implements IdleStrategy
{
    /** The longest sleep: housekeeping (sweeps, snapshot epochs) runs at least this often. */
    static final int SLEEP_MS = 100;
    /** The longest sleep while a port's kernel holds frames it has not sent: the next flush kicks it again. */
    static final int TRANSMIT_RETRY_MS = 1;
    static final int ADAPTIVE_SPINS = 16;
    static final int ADAPTIVE_YIELDS = 128;

    private final IdleMode mode;
    private final PollSet pollSet;
    private final Wakeup wakeup;
    private final IntSupplier longestSleepMs;
    private final BackoffIdleStrategy backoff = new BackoffIdleStrategy();
    private int emptyPolls;
    private DaemonCounters counters;
    private int worker;

    /**
     * @param longestSleepMs how long the worker may sleep, asked once more before each sleep: 0 while frames from
     *                       other workers wait, less than {@link #SLEEP_MS} while a port has frames left to send.
     */
    WorkerIdleStrategy(final IdleMode mode, final PollSet pollSet, final Wakeup wakeup,
        final IntSupplier longestSleepMs)
    {
        this.mode = mode;
        this.pollSet = pollSet;
        this.wakeup = wakeup;
        this.longestSleepMs = longestSleepMs;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount > 0)
        {
            reset();
            return;
        }
        idle();
    }

    @Override
    public void idle()
    {
        switch (mode)
        {
            case SPIN -> Thread.onSpinWait();
            case YIELD -> Thread.yield();
            case BACKOFF -> backoff.idle();
            case WAIT -> sleep();
            case ADAPTIVE ->
            {
                final int polls = emptyPolls++;
                if (polls < ADAPTIVE_SPINS)
                {
                    Thread.onSpinWait();
                }
                else if (polls < ADAPTIVE_SPINS + ADAPTIVE_YIELDS)
                {
                    Thread.yield();
                }
                else
                {
                    sleep();
                }
            }
            default -> throw new IllegalStateException("unknown idle mode " + mode);
        }
    }

    /** Counts this worker's sleeps ({@link DaemonCounters#SLEEPS}) from now on. */
    WorkerIdleStrategy countInto(final DaemonCounters counters, final int worker)
    {
        this.counters = counters;
        this.worker = worker;
        return this;
    }

    private void sleep()
    {
        wakeup.aboutToSleep();
        final int longest = longestSleepMs.getAsInt();
        if (longest > 0)
        {
            pollSet.await(longest);
            if (counters != null)
            {
                counters.add(worker, DaemonCounters.SLEEPS, 1);
                final int errors = pollSet.errorsCleared();
                if (errors != 0)
                {
                    counters.add(worker, DaemonCounters.SOCKET_ERRORS, errors);
                }
            }
        }
        wakeup.awake();
    }

    @Override
    public void reset()
    {
        emptyPolls = 0;
        backoff.reset();
    }

    @Override
    public String alias()
    {
        return mode.word();
    }
}
