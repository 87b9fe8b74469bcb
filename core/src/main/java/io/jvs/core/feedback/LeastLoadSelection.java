package io.jvs.core.feedback;

/**
 * Least-load routing for the load formula of {@link LoadModel}: the server with the smallest effective load L'
 * takes the next request, as the paper that formula comes from routes them. Ties go to the earliest server
 * in list order, the same tie-break as the kernel's least-connection schedulers ({@code ip_vs_lc_schedule}
 * keeps the first of equal loads).
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
