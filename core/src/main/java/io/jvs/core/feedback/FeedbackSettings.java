package io.jvs.core.feedback;

import io.jvs.core.service.RealServer;

import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Every constant of the dynamic-feedback loop (spec 14, DECISIONS D6), in one place.
 * <p>
 * D6's values are reconstructed from memory of the LVS document, not read from it. They are defaults,
 * not facts: check them against the original before relying on any one of them, and change them here.
 * <p>
 * Each period a server's weight moves by {@code gain · ∛(targetLoad − AGG)}, stays within
 * {@code [lowestWeight(DEFAULT), highestWeight(DEFAULT)]}, and reaches the scheduler only when it
 * differs from the pushed weight by more than {@code pushThreshold(pushed weight)}.
 *
 * @param coefficients          R1..R6, mixing the six inputs into AGG.
 * @param gain                  A, the step for a cube-root unit of load error.
 * @param targetLoad            the AGG at which a weight stays put.
 * @param scale                 SCALE: the weight never rises above SCALE · DEFAULT_WEIGHT.
 * @param periodNs              how often the monitor adjusts; the LVS document advises about 5 to 20 s.
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
    /** The document's example for web clusters: CPU load and response time weigh most. */
    public static final LoadCoefficients DEFAULT_COEFFICIENTS = new LoadCoefficients(0.1, 0.3, 0.1, 0.1, 0.1, 0.3);

    /** A = 5. */
    public static final double DEFAULT_GAIN = 5.0;

    /** 95 % utilisation. */
    public static final double DEFAULT_TARGET_LOAD = 0.95;

    /** SCALE = 10. */
    public static final int DEFAULT_SCALE = 10;

    /** 5 s, the short end of the document's advice, so that the loop reacts quickly. */
    public static final long DEFAULT_PERIOD_NS = TimeUnit.SECONDS.toNanos(5);

    /** Down to 1, so that cluster-wide overload shows (D6). */
    public static final LowerClamp DEFAULT_LOWER_CLAMP = LowerClamp.ONE;

    /** 5 % of the current weight. */
    public static final double DEFAULT_PUSH_THRESHOLD_FRACTION = 0.05;

    /** But never less than 1. */
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
     * @return D6's settings.
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
