package io.jvs.core.sched;

/**
 * What a worker hands to every {@link Scheduler#schedule} call: its index (rr and wrr keep a cursor
 * per worker), the time read once per burst, the worker's own random source (twos), and, for a worker that reports
 * its count changes, what wlc's last pass of the burst took of the servers' counts.
 * <p>
 * One instance per worker thread; it is not shared.
 */
public final class SchedulingContext
{
    /**
     * A source of random integers, injectable so that tests are deterministic.
     */
    @FunctionalInterface
    public interface RandomSource
    {
        /**
         * @param bound the exclusive upper bound, positive.
         * @return a value in [0, bound).
         */
        int nextInt(int bound);

        /**
         * A value of a range wider than an int's, from {@link #nextInt} draws: the bits above the low 31, then the
         * low 31 in two parts, all drawn again (rarely) while they land past the bound, so that every value is
         * equally likely. Within an int's range it is one {@link #nextInt} draw.
         *
         * @param bound the exclusive upper bound, 1..2^62.
         * @return a value in [0, bound).
         */
        default long nextLong(final long bound)
        {
            if (bound <= Integer.MAX_VALUE)
            {
                return nextInt((int)bound);
            }
            final int highs = (int)(((bound - 1) >>> 31) + 1);
            while (true)
            {
                final long value = (long)nextInt(highs) << 31 | (long)nextInt(1 << 16) << 15 | nextInt(1 << 15);
                if (value < bound)
                {
                    return value;
                }
            }
        }
    }

    /** {@link #changedCounts}: the counts of more than one server changed, or the burst is a new one. */
    static final long MANY_CHANGED = -1;
    /** {@link #changedCounts}: no count changed since the last least-connection pass. */
    static final long NONE_CHANGED = 0;

    private final int workerIndex;
    private final RandomSource random;
    private final boolean reportsCounts;
    private long nowNs;
    /**
     * The counter slot of the one server whose counts this worker changed since wlc's last pass,
     * {@link #NONE_CHANGED} or {@link #MANY_CHANGED}: what the pass may take from {@link #leastConnectionKeys}.
     */
    long changedCounts = MANY_CHANGED;
    /** What wlc's last pass in this burst took of its servers' counts (this worker's, written by it alone). */
    final LeastConnection.BurstKeys leastConnectionKeys = new LeastConnection.BurstKeys();

    /**
     * @param workerIndex 0..workers-1.
     * @param random      the worker's random source.
     */
    public SchedulingContext(final int workerIndex, final RandomSource random)
    {
        this(workerIndex, random, false);
    }

    /**
     * @param workerIndex   0..workers-1.
     * @param random        the worker's random source.
     * @param reportsCounts true when the worker calls {@link #countsChanged} after every change it makes to a
     *                      server's connection counts, so that wlc may schedule a burst's later connections from its
     *                      first pass of the burst with those changes applied, instead of reading every server again.
     */
    public SchedulingContext(final int workerIndex, final RandomSource random, final boolean reportsCounts)
    {
        if (workerIndex < 0)
        {
            throw new IllegalArgumentException("worker index must not be negative: " + workerIndex);
        }
        this.workerIndex = workerIndex;
        this.random = random;
        this.reportsCounts = reportsCounts;
    }

    /**
     * @param workerIndex 0..workers-1.
     * @param seed        seed of the worker's xorshift random source.
     */
    public SchedulingContext(final int workerIndex, final long seed)
    {
        this(workerIndex, new XorShiftRandom(seed));
    }

    /**
     * @param workerIndex   0..workers-1.
     * @param seed          seed of the worker's xorshift random source.
     * @param reportsCounts see {@link #SchedulingContext(int, RandomSource, boolean)}.
     */
    public SchedulingContext(final int workerIndex, final long seed, final boolean reportsCounts)
    {
        this(workerIndex, new XorShiftRandom(seed), reportsCounts);
    }

    public int workerIndex()
    {
        return workerIndex;
    }

    public RandomSource random()
    {
        return random;
    }

    /**
     * @return the time on the scheduling clock, as last set by the worker.
     */
    public long nowNs()
    {
        return nowNs;
    }

    /**
     * Sets the time for a new burst. What a least-connection pass took of the counts in the last burst is not used
     * in this one: other workers' changes (their counts, the OVERLOAD flags their binds set) reach a worker's choices
     * within a burst.
     *
     * @param nowNs the time, set once per burst.
     * @return this context.
     */
    public SchedulingContext nowNs(final long nowNs)
    {
        this.nowNs = nowNs;
        changedCounts = MANY_CHANGED;
        return this;
    }

    /**
     * @return true when the worker reports every change of counts it makes through {@link #countsChanged}.
     */
    boolean reportsCounts()
    {
        return reportsCounts;
    }

    /**
     * Tells the schedulers that this worker changed a server's connection counts (bound, unbound, activated or
     * deactivated a connection on it). A worker that said it reports its changes calls this after every one.
     *
     * @param countersAddress the server's {@code RealServer#countersAddress()}.
     */
    public void countsChanged(final long countersAddress)
    {
        final long changed = changedCounts;
        changedCounts = changed == NONE_CHANGED || changed == countersAddress ? countersAddress : MANY_CHANGED;
    }

    /**
     * A xorshift64* generator: no allocation, no sharing, good enough to pick between servers.
     */
    public static final class XorShiftRandom implements RandomSource
    {
        private long state;

        /**
         * @param seed any value; 0 is replaced by a fixed non-zero constant.
         */
        public XorShiftRandom(final long seed)
        {
            this.state = seed == 0 ? 0x9E37_79B9_7F4A_7C15L : seed;
        }

        @Override
        public int nextInt(final int bound)
        {
            long x = state;
            x ^= x >>> 12;
            x ^= x << 25;
            x ^= x >>> 27;
            state = x;
            final long bits = (x * 0x2545_F491_4F6C_DD1DL) >>> 32;
            return (int)((bits * bound) >>> 32);
        }
    }
}
