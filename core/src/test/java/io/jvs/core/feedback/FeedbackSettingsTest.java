package io.jvs.core.feedback;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

class FeedbackSettingsTest
{
    @Test
    void shouldHoldDecisionSixWhenDefaultsAreAsked()
    {
        final FeedbackSettings settings = FeedbackSettings.defaults();

        assertThat(settings.coefficients()).isEqualTo(new LoadCoefficients(0.1, 0.3, 0.1, 0.1, 0.1, 0.3));
        assertThat(settings.gain()).isEqualTo(5.0);
        assertThat(settings.targetLoad()).isEqualTo(0.95);
        assertThat(settings.scale()).isEqualTo(10);
        assertThat(settings.periodNs()).isEqualTo(TimeUnit.SECONDS.toNanos(5));
        assertThat(settings.lowerClamp()).isEqualTo(LowerClamp.ONE);
    }

    @Test
    void shouldUseFivePercentButAtLeastOneWhenComputingThePushThreshold()
    {
        final FeedbackSettings settings = FeedbackSettings.defaults();

        // max(1, 0.05·10 = 0.5) = 1; max(1, 0.05·100) = 5; max(1, 0.05·1000) = 50.
        assertThat(settings.pushThreshold(10)).isEqualTo(1.0);
        assertThat(settings.pushThreshold(100)).isEqualTo(5.0);
        assertThat(settings.pushThreshold(1000)).isEqualTo(50.0);
        assertThat(settings.withPushThreshold(0.1, 3.0).pushThreshold(10)).isEqualTo(3.0);
        assertThat(settings.withPushThreshold(0.1, 3.0).pushThreshold(100)).isEqualTo(10.0);
    }

    @Test
    void shouldClampBetweenPolicyMinimumAndScaledDefaultWhenAskedForBounds()
    {
        final FeedbackSettings permissive = FeedbackSettings.defaults();
        final FeedbackSettings strict = permissive.withLowerClamp(LowerClamp.DEFAULT_WEIGHT);

        assertThat(permissive.lowestWeight(7)).isEqualTo(1);
        assertThat(strict.lowestWeight(7)).isEqualTo(7);
        assertThat(permissive.highestWeight(7)).isEqualTo(70);
        assertThat(permissive.highestWeight(10_000)).isEqualTo(100_000);
        // 10 · 300 000 000 does not fit a real server's weight (an int, as the kernel's), so it stops there.
        assertThat(permissive.highestWeight(300_000_000)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void shouldAcceptCoefficientsWhenTheySumToOneUpToRounding()
    {
        // 0.1 + 0.3 + 0.1 + 0.1 + 0.1 + 0.3 is 1.0000000000000002 in binary floating point.
        assertThatNoException().isThrownBy(() -> new LoadCoefficients(0.1, 0.3, 0.1, 0.1, 0.1, 0.3));
        assertThatNoException().isThrownBy(() -> new LoadCoefficients(0, 1, 0, 0, 0, 0));
    }

    @Test
    void shouldRejectCoefficientsWhenTheyDoNotSumToOne()
    {
        assertThatIllegalArgumentException().isThrownBy(() -> new LoadCoefficients(0.2, 0.3, 0.1, 0.1, 0.1, 0.3));
        assertThatIllegalArgumentException().isThrownBy(() -> new LoadCoefficients(0.1, 0.3, 0.1, 0.1, 0.1, 0.29));
        assertThatIllegalArgumentException().isThrownBy(
            () -> new LoadCoefficients(0.1, 0.3, 0.1, 0.1, 0.1, 0.3 + 1e-6));
    }

    @Test
    void shouldRejectCoefficientsWhenOneIsNegativeOrNotANumber()
    {
        assertThatIllegalArgumentException().isThrownBy(() -> new LoadCoefficients(-0.1, 0.5, 0.1, 0.1, 0.1, 0.3));
        assertThatIllegalArgumentException().isThrownBy(
            () -> new LoadCoefficients(Double.NaN, 0.3, 0.1, 0.1, 0.1, 0.3));
    }

    @Test
    void shouldRejectSettingsWhenAConstantIsOutOfRange()
    {
        final LoadCoefficients r = FeedbackSettings.DEFAULT_COEFFICIENTS;
        final long periodNs = FeedbackSettings.DEFAULT_PERIOD_NS;
        final LowerClamp clamp = LowerClamp.ONE;

        assertThatIllegalArgumentException().isThrownBy(
            () -> new FeedbackSettings(r, 0.0, 0.95, 10, periodNs, clamp, 0.05, 1.0));
        assertThatIllegalArgumentException().isThrownBy(
            () -> new FeedbackSettings(r, 5.0, 0.0, 10, periodNs, clamp, 0.05, 1.0));
        assertThatIllegalArgumentException().isThrownBy(
            () -> new FeedbackSettings(r, 5.0, 0.95, 0, periodNs, clamp, 0.05, 1.0));
        assertThatIllegalArgumentException().isThrownBy(
            () -> new FeedbackSettings(r, 5.0, 0.95, 10, 0, clamp, 0.05, 1.0));
        assertThatIllegalArgumentException().isThrownBy(
            () -> new FeedbackSettings(r, 5.0, 0.95, 10, periodNs, clamp, -0.05, 1.0));
        assertThatIllegalArgumentException().isThrownBy(
            () -> new FeedbackSettings(r, 5.0, 0.95, 10, periodNs, clamp, 0.05, -1.0));
    }
}
