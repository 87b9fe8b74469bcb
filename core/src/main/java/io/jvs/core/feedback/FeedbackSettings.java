package io.jvs.core.feedback;

import io.jvs.core.service.RealServer;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Every constant of the dynamic-feedback loop ({@link FeedbackController}), in one place, so that each can be
 * checked and changed without touching the loop.
 * <p>
 * The defaults come from the LVS project's "Dynamic Feedback Load Balancing Scheduling" (Wensong Zhang, LVS
 * Knowledge Base, kb.linuxvirtualserver.org), but they were written down from memory of that description,
 * not read from it: the coefficients, A = 5, the 0.95 target, SCALE = 10 and the 5 to 20 s period are what
 * jvs remembers it to say. They are defaults, not facts: check them against the page before relying on any
 * one of them. Where the description fixes no value at all (the push threshold) or can be read two ways (the
 * lower clamp), the constant below says which value jvs takes and why.
 * <p>
 * Each period a server's weight moves by {@code gain · ∛(targetLoad − AGG)}, stays within
 * {@code [lowestWeight(DEFAULT), highestWeight(DEFAULT)]}, and reaches the scheduler only when it
 * differs from the pushed weight by more than {@code pushThreshold(pushed weight)}.
 *
 * @param coefficients          R1..R6, mixing the six inputs into AGG.
 * @param gain                  A, the step for a cube-root unit of load error.
 * @param targetLoad            the AGG at which a weight stays put.
 * @param scale                 SCALE: the weight never rises above SCALE · DEFAULT_WEIGHT.
 * @param periodNs              how often the monitor adjusts; as jvs remembers it, the description advises
 *                              about 5 to 20 s, shorter periods costing CPU on the director and servers.
 * @param lowerClamp            how low a weight may fall.
 * @param pushThresholdFraction the part of the current weight a change must exceed to be pushed.
 * @param pushThresholdMinimum  the absolute change a push must exceed however small the weight.
 */
public record FeedbackSettings(
    LoadCoefficients coefficients,
    double gain,
    double targetLoad,
    int scale,
    long periodNs,
    LowerClamp lowerClamp,
    double pushThresholdFraction,
    double pushThresholdMinimum)
{
    /** The description's example for web clusters, as remembered: CPU load and response time weigh most. */
    public static final LoadCoefficients DEFAULT_COEFFICIENTS = new LoadCoefficients(0.1, 0.3, 0.1, 0.1, 0.1, 0.3);

    /** A = 5, the step for a cube-root unit of load error, as remembered from the description. */
    public static final double DEFAULT_GAIN = 5.0;

    /**
     * 95 % utilisation, as remembered from the description. (Wensong Zhang's lvs-users post of the same step
     * steers towards 1 instead; the target is a setting so either can be had.)
     */
    public static final double DEFAULT_TARGET_LOAD = 0.95;

    /** SCALE = 10: a weight never rises above ten times its administrator weight, as remembered. */
    public static final int DEFAULT_SCALE = 10;

    /** 5 s, the short end of the advised 5 to 20 s, so that the loop reacts quickly. */
    public static final long DEFAULT_PERIOD_NS = TimeUnit.SECONDS.toNanos(5);

    /**
     * Down to 1, the permissive of the two readings {@link LowerClamp} describes, so that cluster-wide
     * overload can show in the weights.
     */
    public static final LowerClamp DEFAULT_LOWER_CLAMP = LowerClamp.ONE;

    /**
     * 5 % of the current weight. The description pushes a weight only when it moved by more than a
     * threshold, but as far as jvs recalls gives no number; this one is jvs's, so that a large weight is not
     * pushed for every small wobble of the load.
     */
    public static final double DEFAULT_PUSH_THRESHOLD_FRACTION = 0.05;

    /**
     * But never less than 1, so that a small weight does not flip by one each period while its real-valued
     * target hovers at a rounding boundary.
     */
    public static final double DEFAULT_PUSH_THRESHOLD_MINIMUM = 1.0;

    public FeedbackSettings
    {
        Objects.requireNonNull(coefficients, "coefficients");
        Objects.requireNonNull(lowerClamp, "lowerClamp");
        requirePositive(gain, "gain");
        requirePositive(targetLoad, "targetLoad");
        if (scale < 1)
        {
            throw new IllegalArgumentException("scale must be at least 1: " + scale);
        }
        if (periodNs <= 0)
        {
            throw new IllegalArgumentException("periodNs must be positive: " + periodNs);
        }
        requireNotNegative(pushThresholdFraction, "pushThresholdFraction");
        requireNotNegative(pushThresholdMinimum, "pushThresholdMinimum");
    }

    /**
     * @return the defaults above, which are jvs's reading of the LVS description.
     */
    public static FeedbackSettings defaults()
    {
        return new FeedbackSettings(
            DEFAULT_COEFFICIENTS,
            DEFAULT_GAIN,
            DEFAULT_TARGET_LOAD,
            DEFAULT_SCALE,
            DEFAULT_PERIOD_NS,
            DEFAULT_LOWER_CLAMP,
            DEFAULT_PUSH_THRESHOLD_FRACTION,
            DEFAULT_PUSH_THRESHOLD_MINIMUM);
    }

    /**
     * @param lowerClamp how low a weight may fall.
     * @return these settings with another lower clamp.
     */
    public FeedbackSettings withLowerClamp(final LowerClamp lowerClamp)
    {
        return new FeedbackSettings(
            coefficients, gain, targetLoad, scale, periodNs, lowerClamp, pushThresholdFraction, pushThresholdMinimum);
    }

    /**
     * @param fraction the part of the current weight a change must exceed.
     * @param minimum  the absolute change a push must exceed.
     * @return these settings with another push threshold.
     */
    public FeedbackSettings withPushThreshold(final double fraction, final double minimum)
    {
        return new FeedbackSettings(coefficients, gain, targetLoad, scale, periodNs, lowerClamp, fraction, minimum);
    }

    /**
     * @param defaultWeight the server's administrator weight, at least 1.
     * @return the lowest weight the loop may give it.
     */
    public int lowestWeight(final int defaultWeight)
    {
        return lowerClamp.lowestWeight(defaultWeight);
    }

    /**
     * @param defaultWeight the server's administrator weight, at least 1.
     * @return SCALE · DEFAULT_WEIGHT, but no more than the largest weight a real server can hold.
     */
    public int highestWeight(final int defaultWeight)
    {
        return (int)Math.min((long)scale * defaultWeight, RealServer.MAX_WEIGHT);
    }

    /**
     * @param currentWeight the weight the scheduler holds now.
     * @return how much a new weight must differ from it, strictly, to be pushed.
     */
    public double pushThreshold(final int currentWeight)
    {
        return Math.max(pushThresholdMinimum, pushThresholdFraction * currentWeight);
    }

    private static void requirePositive(final double value, final String name)
    {
        if (!Double.isFinite(value) || value <= 0.0)
        {
            throw new IllegalArgumentException(name + " must be finite and positive: " + value);
        }
    }

    private static void requireNotNegative(final double value, final String name)
    {
        if (!Double.isFinite(value) || value < 0.0)
        {
            throw new IllegalArgumentException(name + " must be finite and not negative: " + value);
        }
    }
}
