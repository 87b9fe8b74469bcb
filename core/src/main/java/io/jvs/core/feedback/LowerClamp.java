package io.jvs.core.feedback;

/**
 * How far the dynamic-feedback loop ({@link FeedbackController}) may lower a server's weight.
 * <p>
 * The LVS dynamic-feedback description, as jvs recalls it, contradicts itself here: it bounds the weight
 * below by DEFAULT_WEIGHT, yet it also says that every weight being below its DEFAULT_WEIGHT means the
 * cluster needs more servers, which can only happen if weights may fall below the default. Both readings are
 * kept; {@link FeedbackSettings} takes the permissive one by default.
 */
public enum LowerClamp
{
    /**
     * The permissive reading and jvs's default: the weight may fall to 1, so cluster-wide overload shows
     * ({@link FeedbackController#isClusterOverloaded()}). Not 0, which would quiesce the server.
     */
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
