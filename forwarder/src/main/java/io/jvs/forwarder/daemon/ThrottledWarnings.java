package io.jvs.forwarder.daemon;

import java.util.function.LongSupplier;

/**
 * Warnings of one kind, at most one line per interval: the first of an interval is logged, the rest are counted, and
 * the next line logged says how many were left out. For events that a peer can cause at will (control clients that
 * leave before their answer), so that no client can flood the log; their counter holds the full number. Thread-safe:
 * the control clients' threads share one.
 */
final class ThrottledWarnings
{
    private final long intervalNs;
    private final LongSupplier clock;
    private long nextNs = Long.MIN_VALUE;
    private long leftOut;

    /**
     * @param intervalNs the shortest time between two lines.
     * @param clock      the time in ns ({@code System::nanoTime}).
     */
    ThrottledWarnings(final long intervalNs, final LongSupplier clock)
    {
        this.intervalNs = intervalNs;
        this.clock = clock;
    }

    /** Logs the warning, unless one was logged less than the interval ago: then it only counts it. */
    void warning(final String message)
    {
        final long now = clock.getAsLong();
        final long before;
        synchronized (this)
        {
            if (nextNs != Long.MIN_VALUE && now - nextNs < 0)
            {
                leftOut++;
                return;
            }
            nextNs = now + intervalNs;
            before = leftOut;
            leftOut = 0;
        }
        DaemonLog.warning(before == 0 ? message : message + " (and " + before + " more like it not logged)");
    }
}
