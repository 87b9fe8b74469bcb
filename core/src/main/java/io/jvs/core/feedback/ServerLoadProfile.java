package io.jvs.core.feedback;

import java.util.Collection;

/**
 * One server's constants in the load formula of {@link LoadModel}, {@code L = Ns + a·Nd} with a penalty
 * past the hardware limit Ll.
 *
 * @param dynamicRequestCost a: what one dynamic-document process costs relative to a static one; the
 *                           paper says to choose it between 10 and 100.
 * @param normalLoadLimit    Ll: the load the server's hardware carries normally; must be positive.
 */
public record ServerLoadProfile(double dynamicRequestCost, double normalLoadLimit)
{
    /** a = 30, jvs's pick: the paper fixes only the range 10 to 100, so each server may set its own. */
    public static final double DEFAULT_DYNAMIC_REQUEST_COST = 30.0;

    /** The lowest a the paper allows. */
    public static final double MIN_DYNAMIC_REQUEST_COST = 10.0;

    /** The highest a the paper allows. */
    public static final double MAX_DYNAMIC_REQUEST_COST = 100.0;

    public ServerLoadProfile
    {
        if (!(dynamicRequestCost >= MIN_DYNAMIC_REQUEST_COST && dynamicRequestCost <= MAX_DYNAMIC_REQUEST_COST))
        {
            throw new IllegalArgumentException("a must be within 10..100: " + dynamicRequestCost);
        }
        if (!Double.isFinite(normalLoadLimit) || normalLoadLimit <= 0.0)
        {
            throw new IllegalArgumentException("Ll must be finite and positive: " + normalLoadLimit);
        }
    }

    /**
     * @param normalLoadLimit Ll.
     * @return a profile with the default a = 30.
     */
    public static ServerLoadProfile withDefaultCost(final double normalLoadLimit)
    {
        return new ServerLoadProfile(DEFAULT_DYNAMIC_REQUEST_COST, normalLoadLimit);
    }

    /**
     * @param staticProcesses  Ns: processes serving static documents.
     * @param dynamicProcesses Nd: processes serving dynamic documents.
     * @return the basic load {@code L = Ns + a·Nd}.
     */
    public double basicLoad(final long staticProcesses, final long dynamicProcesses)
    {
        if (staticProcesses < 0 || dynamicProcesses < 0)
        {
            throw new IllegalArgumentException(
                "process counts cannot be negative: " + staticProcesses + ", " + dynamicProcesses);
        }
        return staticProcesses + dynamicRequestCost * dynamicProcesses;
    }

    /**
     * @param largestNormalLimit Llmax, the Ll of the best-equipped server; at least this server's Ll.
     * @return {@code b = Llmax / Ll}: 1 for the strongest server, steeper for weaker ones.
     */
    public double overloadFactor(final double largestNormalLimit)
    {
        if (!(largestNormalLimit >= normalLoadLimit) || Double.isInfinite(largestNormalLimit))
        {
            throw new IllegalArgumentException(
                "Llmax " + largestNormalLimit + " must be finite and at least this server's Ll " + normalLoadLimit);
        }
        return largestNormalLimit / normalLoadLimit;
    }

    /**
     * @param profiles the servers of one cluster, at least one.
     * @return Llmax, the largest Ll among them.
     */
    public static double largestNormalLimit(final Collection<ServerLoadProfile> profiles)
    {
        if (profiles.isEmpty())
        {
            throw new IllegalArgumentException("no servers");
        }
        double largest = 0.0;
        for (final ServerLoadProfile profile : profiles)
        {
            largest = Math.max(largest, profile.normalLoadLimit());
        }
        return largest;
    }
}
