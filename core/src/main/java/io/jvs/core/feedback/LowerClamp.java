package io.jvs.core.feedback;

/**
 * How far the dynamic-feedback loop may lower a server's weight (spec 14, D6).
 * <p>
 * The LVS document contradicts itself: it bounds the weight below by DEFAULT_WEIGHT, yet it also says
 * that every weight being below its DEFAULT_WEIGHT means the cluster needs more servers, which can
 * only happen if weights may fall below the default.
 */
public enum LowerClamp
{
    /** The permissive reading and D6's default: the weight may fall to 1, so cluster-wide overload shows. */
    ONE,

    /** The strict reading: the weight never falls below DEFAULT_WEIGHT, so overload never shows. */
    DEFAULT_WEIGHT;

    /**
     * @param defaultWeight the server's administrator weight, at least 1.
     * @return the lowest weight the loop may give that server.
     */
    public int lowestWeight(final int defaultWeight)
    {
        return this == ONE ? 1 : defaultWeight;
    }
}
