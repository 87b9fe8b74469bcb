package io.jvs.core.sched;

/**
 * What a worker hands to every {@link Scheduler#schedule} call: its index (rr and wrr keep a cursor
 * per worker), the time read once per burst, and the worker's own random source (twos).
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

    private final int workerIndex;
    private final RandomSource random;
    private long nowNs;

    /**
     * @param workerIndex 0..workers-1.
     * @param random      the worker's random source.
     */
    public SchedulingContext(final int workerIndex, final RandomSource random)
    {
        if (workerIndex < 0)
        {
            throw new IllegalArgumentException("worker index must not be negative: " + workerIndex);
        }
        this.workerIndex = workerIndex;
        this.random = random;
    }

    /**
     * @param workerIndex 0..workers-1.
     * @param seed        seed of the worker's xorshift random source.
     */
    public SchedulingContext(final int workerIndex, final long seed)
    {
        this(workerIndex, new XorShiftRandom(seed));
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
     * @param nowNs the time, set once per burst.
     * @return this context.
     */
    public SchedulingContext nowNs(final long nowNs)
    {
        this.nowNs = nowNs;
        return this;
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
