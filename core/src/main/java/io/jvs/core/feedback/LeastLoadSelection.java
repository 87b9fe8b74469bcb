package io.jvs.core.feedback;

/**
 * Seed-003's request routing (spec 14.1 point 3): the server with the smallest L' takes the request.
 */
public final class LeastLoadSelection
{
    /** Returned when there is no server to choose. */
    public static final int NO_SERVER = -1;

    private LeastLoadSelection()
    {
    }

    /**
     * @param effectiveLoads each server's L', in list order; none may be NaN.
     * @return the index of the smallest; on a tie the earliest in the list, as everywhere else in jvs.
     */
    public static int select(final double[] effectiveLoads)
    {
        int least = NO_SERVER;
        for (int i = 0; i < effectiveLoads.length; i++)
        {
            if (Double.isNaN(effectiveLoads[i]))
            {
                throw new IllegalArgumentException("load of server " + i + " is not a number");
            }
            if (least == NO_SERVER || effectiveLoads[i] < effectiveLoads[least])
            {
                least = i;
            }
        }
        return least;
    }
}
