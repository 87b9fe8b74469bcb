package io.jvs.tools.bench;

/**
 * When the next burst of a paced sender is due: bursts of a fixed size at a fixed frame rate, each due at its own
 * time counted from the start, so a burst sent late is followed at once by the ones it held up. A sender that falls
 * further behind than {@link #MAX_LAG_NS} (a pause of its thread) starts a new schedule from now instead of sending
 * the whole backlog in one go: the rate, not a burst, is what a paced load offers.
 */
final class BurstPacer
{
    /** The most a paced sender catches up at once. */
    static final long MAX_LAG_NS = 1_000_000L;

    private final double nanosPerBurst;
    private long start;
    private long bursts;

    /**
     * @param startNs         when the first burst is due.
     * @param framesPerSecond the rate, at least 1.
     * @param burst           frames per burst, at least 1.
     */
    BurstPacer(final long startNs, final long framesPerSecond, final int burst)
    {
        if (framesPerSecond < 1 || burst < 1)
        {
            throw new IllegalArgumentException("rate " + framesPerSecond + " and burst " + burst + " must be positive");
        }
        this.start = startNs;
        this.nanosPerBurst = burst * 1e9 / framesPerSecond;
    }

    /**
     * @param nowNs the time.
     * @return nanoseconds until the next burst is due; 0 or less when it is due now.
     */
    long untilDue(final long nowNs)
    {
        final long until = start + (long)(bursts * nanosPerBurst) - nowNs;
        if (until < -MAX_LAG_NS)
        {
            start = nowNs;
            bursts = 0;
            return 0;
        }
        return until;
    }

    /** Records that the burst that was due has been sent. */
    void sent()
    {
        bursts++;
    }
}
