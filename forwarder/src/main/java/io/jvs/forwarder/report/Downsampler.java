package io.jvs.forwarder.report;

import java.util.Arrays;

/**
 * Thins a long series to a few points per pixel column so a report of a million samples stays small,
 * without shaving its peaks: the time span is cut into buckets, and of each bucket only the sample with
 * the least value and the one with the most are kept, in time order, with the series' first and last
 * samples. A line through what is kept has the same silhouette at the drawn size as the full one.
 */
final class Downsampler
{
    /** The most points a downsampled series keeps. */
    static final int MAX_POINTS = 1000;

    /** Two points per bucket, plus the first and last samples. */
    private static final int BUCKETS = (MAX_POINTS - 2) / 2;

    private Downsampler()
    {
    }

    /**
     * @param timesNs sample times, ascending (a sample earlier than the one before it joins that one's bucket).
     * @param values  the samples' values.
     * @param count   how many samples to read from each array.
     * @return the indices of the samples to draw, ascending: all of them when there are at most
     *     {@link #MAX_POINTS}.
     */
    static int[] keep(final long[] timesNs, final long[] values, final int count)
    {
        if (count <= MAX_POINTS)
        {
            final int[] all = new int[count];
            for (int i = 0; i < count; i++)
            {
                all[i] = i;
            }
            return all;
        }
        final long first = timesNs[0];
        final double span = Math.max(1, timesNs[count - 1] - first);
        final int[] kept = new int[MAX_POINTS];
        int size = 0;
        kept[size++] = 0;
        int index = 1;
        while (index < count - 1)
        {
            final int bucket = bucketOf(timesNs[index] - first, span);
            int least = index;
            int most = index;
            index++;
            while (index < count - 1 && bucketOf(timesNs[index] - first, span) <= bucket)
            {
                least = values[index] < values[least] ? index : least;
                most = values[index] > values[most] ? index : most;
                index++;
            }
            kept[size++] = Math.min(least, most);
            if (least != most)
            {
                kept[size++] = Math.max(least, most);
            }
        }
        kept[size++] = count - 1;
        return Arrays.copyOf(kept, size);
    }

    private static int bucketOf(final long sinceFirstNs, final double span)
    {
        return (int)Math.max(0, Math.min(BUCKETS - 1, sinceFirstNs / span * BUCKETS));
    }
}
