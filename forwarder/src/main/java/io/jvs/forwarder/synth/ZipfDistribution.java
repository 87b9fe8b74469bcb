package io.jvs.forwarder.synth;

/**
 * Zipf's law over ranks 0..n-1: rank k is drawn with probability proportional to 1 / (k + 1)^s. A few
 * services and clients carry most of the traffic, as on a real farm; s = 0 makes every rank equally likely.
 * <p>
 * The cumulative distribution is computed once (8 bytes per rank) and a draw is a binary search in it:
 * no allocation, and the same ranks for the same random numbers on every JVM.
 */
final class ZipfDistribution
{
    private final double[] cumulative;

    /**
     * @param ranks    how many ranks, 1 and up.
     * @param exponent s, 0 and up.
     */
    ZipfDistribution(final int ranks, final double exponent)
    {
        cumulative = new double[ranks];
        double total = 0;
        for (int rank = 0; rank < ranks; rank++)
        {
            total += 1.0 / Math.pow(rank + 1, exponent);
            cumulative[rank] = total;
        }
        for (int rank = 0; rank < ranks; rank++)
        {
            cumulative[rank] /= total;
        }
        cumulative[ranks - 1] = 1.0;
    }

    /**
     * @param uniform a number in [0, 1).
     * @return the first rank whose cumulative probability is above it.
     */
    int rank(final double uniform)
    {
        int low = 0;
        int high = cumulative.length - 1;
        while (low < high)
        {
            final int middle = (low + high) >>> 1;
            if (cumulative[middle] > uniform)
            {
                high = middle;
            }
            else
            {
                low = middle + 1;
            }
        }
        return low;
    }

    /**
     * @return the probability of a rank.
     */
    double probability(final int rank)
    {
        return rank == 0 ? cumulative[0] : cumulative[rank] - cumulative[rank - 1];
    }
}
