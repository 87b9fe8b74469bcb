package io.jvs.forwarder.synth;

/**
 * The SplitMix64 generator (Steele, Lea and Flood, 2014), written out here so that a trace depends on
 * its seed alone: java.util's generators may change between JDK releases, and this one cannot.
 * Not thread-safe; one per synthesis.
 */
final class SplitMix64
{
    private static final long GOLDEN_GAMMA = 0x9E37_79B9_7F4A_7C15L;

    private long state;

    SplitMix64(final long seed)
    {
        this.state = seed;
    }

    long nextLong()
    {
        state += GOLDEN_GAMMA;
        return mix(state);
    }

    /**
     * @param bound 1 and up.
     * @return a value in [0, bound), by Lemire's multiply-shift (the bias, below 2^-32, does not matter here).
     */
    int nextInt(final int bound)
    {
        return (int)(((nextLong() >>> 32) * bound) >>> 32);
    }

    /**
     * @return a value in [low, high], both included.
     */
    int between(final int low, final int high)
    {
        return low + nextInt(high - low + 1);
    }

    /**
     * @return a value in [0, 1) with 53 random bits.
     */
    double nextDouble()
    {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /**
     * @return true with the given probability.
     */
    boolean chance(final double probability)
    {
        return nextDouble() < probability;
    }

    /**
     * The SplitMix64 finaliser: a bijection on longs that scatters every input bit, used on its own to
     * derive per-client properties from the seed without drawing from a stream.
     */
    static long mix(final long value)
    {
        long z = value;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /**
     * @return a value in [0, 1) fixed by the seed and the key, the same every time it is asked.
     */
    static double unit(final long seed, final long key)
    {
        return (mix(seed ^ mix(key + GOLDEN_GAMMA)) >>> 11) * 0x1.0p-53;
    }
}
