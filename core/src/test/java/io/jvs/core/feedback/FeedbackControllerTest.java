package io.jvs.core.feedback;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

class FeedbackControllerTest
{
    private static final long PERIOD_NS = FeedbackSettings.DEFAULT_PERIOD_NS;

    /** AGG is the CPU load alone, so one number steers a whole example. */
    private static final LoadCoefficients CPU_ONLY = new LoadCoefficients(0, 1, 0, 0, 0, 0);

    /** AGG is INPUT alone. */
    private static final LoadCoefficients INPUT_ONLY = new LoadCoefficients(1, 0, 0, 0, 0, 0);

    @Test
    void shouldLeaveWeightUnchangedWhenAggregateEqualsTarget()
    {
        final FeedbackController<String> controller = controller(FeedbackSettings.defaults(), "A", 10, "B", 10);

        // A: 19 of 40 connections over 2 servers, INPUT = 19 / 20 = 0.95, every other input 0.95,
        // so AGG = 0.95 and the step is 5·∛0 = 0.
        // B: INPUT = 21 / 20 = 1.05, AGG = 0.105 + 0.9·0.95 = 0.96, step 5·∛(−0.01) = −1.077:
        // 8.923 rounds to 9, a change of 1, which is not above max(1, 0.5) and is kept for later.
        final List<WeightChange<String>> changes = controller.adjust(0, Map.of(
            "A", uniform(19, 0.95),
            "B", uniform(21, 0.95)));

        assertThat(changes).isEmpty();
        assertThat(controller.targetWeight("A")).isCloseTo(10.0, within(1e-4));
        assertThat(controller.targetWeight("B")).isCloseTo(8.923, within(1e-3));
        assertThat(controller.weight("B")).isEqualTo(10);
    }

    @Test
    void shouldMoveWeightsAgainstTheLoadWhenAggregatesDifferFromTarget()
    {
        final FeedbackController<String> controller = controller(FeedbackSettings.defaults(), "A", 10, "B", 10);

        // Mean of 39 and 1 is 20. A: INPUT 1.95 and every input 1.95, so AGG = 1.95 and the step is
        // 5·∛(−1) = −5: 10 → 5. B: INPUT 0.05, AGG = 0.005 + 0.855 = 0.86, step 5·∛0.09 = +2.24: 10 → 12.
        final List<WeightChange<String>> changes = controller.adjust(0, Map.of(
            "A", uniform(39, 1.95),
            "B", uniform(1, 0.95)));

        assertThat(changes).containsExactly(new WeightChange<>("A", 10, 5), new WeightChange<>("B", 10, 12));
        assertThat(controller.targetWeight("A")).isCloseTo(5.0, within(1e-9));
        assertThat(controller.weight("A")).isEqualTo(5);
        assertThat(controller.weight("B")).isEqualTo(12);
    }

    @Test
    void shouldStopAtScaleTimesDefaultWhenLoadIsFarBelowTarget()
    {
        final FeedbackController<String> controller = controller(settings(CPU_ONLY, 100.0, LowerClamp.ONE), "A", 10);

        // AGG = 0: step 100·∛0.95 = 98.3, so 10 + 98.3 = 108.3, clamped to 10·10 = 100.
        assertThat(controller.adjust(0, Map.of("A", cpu(0.0))))
            .containsExactly(new WeightChange<>("A", 10, 100));
        assertThat(controller.targetWeight("A")).isEqualTo(100.0);
    }

    @Test
    void shouldFallToOneWhenLowerClampIsOne()
    {
        final FeedbackController<String> controller = controller(settings(CPU_ONLY, 5.0, LowerClamp.ONE), "A", 10);

        // AGG = 8.95: step 5·∛(0.95 − 8.95) = 5·∛(−8) = −10, so 10 − 10 = 0, clamped to 1.
        assertThat(controller.adjust(0, Map.of("A", cpu(8.95))))
            .containsExactly(new WeightChange<>("A", 10, 1));
        assertThat(controller.targetWeight("A")).isEqualTo(1.0);
    }

    @Test
    void shouldStayAtDefaultWhenLowerClampIsDefaultWeight()
    {
        final FeedbackController<String> controller =
            controller(settings(CPU_ONLY, 5.0, LowerClamp.DEFAULT_WEIGHT), "A", 10);

        // The same step of −10 is clamped to DEFAULT_WEIGHT = 10: nothing to push.
        assertThat(controller.adjust(0, Map.of("A", cpu(8.95)))).isEmpty();
        assertThat(controller.targetWeight("A")).isEqualTo(10.0);
        assertThat(controller.weight("A")).isEqualTo(10);
    }

    @Test
    void shouldHoldSmallChangesBackUntilTheyAddUpWhenBelowThePushThreshold()
    {
        final FeedbackController<String> controller = controller(settings(CPU_ONLY, 5.0, LowerClamp.ONE), "A", 10);

        // AGG = 0.942: step 5·∛0.008 = 5·0.2 = +1. 10 → 11 changes by 1, not above max(1, 0.5).
        assertThat(controller.adjust(0, Map.of("A", cpu(0.942)))).isEmpty();
        assertThat(controller.targetWeight("A")).isCloseTo(11.0, within(1e-9));
        // The next +1 makes 12, a change of 2 from the pushed 10.
        assertThat(controller.adjust(PERIOD_NS, Map.of("A", cpu(0.942))))
            .containsExactly(new WeightChange<>("A", 10, 12));
    }

    @Test
    void shouldMeasureThePushThresholdFromTheCurrentWeightWhenWeightsAreLarge()
    {
        final FeedbackController<String> controller = controller(settings(CPU_ONLY, 5.0, LowerClamp.ONE), "A", 100);

        // AGG = 1.95: a step of −5 each period. From 100 the threshold is max(1, 5) = 5: 95 is held back.
        assertThat(controller.adjust(0, Map.of("A", cpu(1.95)))).isEmpty();
        // 90 is 10 away from 100: pushed.
        assertThat(controller.adjust(PERIOD_NS, Map.of("A", cpu(1.95))))
            .containsExactly(new WeightChange<>("A", 100, 90));
        // From 90 the threshold is max(1, 4.5) = 4.5, so a change of 5 is enough now.
        assertThat(controller.adjust(2 * PERIOD_NS, Map.of("A", cpu(1.95))))
            .containsExactly(new WeightChange<>("A", 90, 85));
    }

    @Test
    void shouldPushEveryChangeWhenThePushThresholdIsZero()
    {
        final FeedbackController<String> controller =
            controller(settings(CPU_ONLY, 5.0, LowerClamp.ONE).withPushThreshold(0.0, 0.0), "A", 10);

        assertThat(controller.adjust(0, Map.of("A", cpu(0.942))))
            .containsExactly(new WeightChange<>("A", 10, 11));
    }

    @Test
    void shouldDropToZeroAndRestartFromDefaultWhenAServerGoesSilentAndComesBack()
    {
        final FeedbackController<String> controller = controller(FeedbackSettings.defaults(), "A", 10);

        assertThat(controller.adjust(0, Map.of("A", LoadReport.unanswered(0))))
            .containsExactly(new WeightChange<>("A", 10, 0));
        assertThat(controller.isUnreachable("A")).isTrue();
        // No report at all is silence too, and 0 is not pushed twice.
        assertThat(controller.adjust(PERIOD_NS, Map.of())).isEmpty();
        assertThat(controller.weight("A")).isEqualTo(0);
        // It answers, heavily loaded: it still restarts from its default, not from 0 and not lower.
        assertThat(controller.adjust(2 * PERIOD_NS, Map.of("A", uniform(0, 5.0))))
            .containsExactly(new WeightChange<>("A", 0, 10));
        assertThat(controller.isUnreachable("A")).isFalse();
        assertThat(controller.targetWeight("A")).isEqualTo(10.0);
        // Then the loop resumes: INPUT 1, AGG = 0.1 + 0.9·5 = 4.6, step 5·∛(−3.65) = −7.70, 2.30 rounds to 2.
        assertThat(controller.adjust(3 * PERIOD_NS, Map.of("A", uniform(7, 5.0))))
            .containsExactly(new WeightChange<>("A", 10, 2));
    }

    @Test
    void shouldNeverAdjustAServerWhenItsDefaultWeightIsZero()
    {
        // Target 1 and AGG = INPUT: A is unchanged only if Q is left out of the mean (with Q, INPUT_A = 2).
        final FeedbackController<String> controller =
            controller(settings(INPUT_ONLY, 5.0, 1.0, LowerClamp.ONE), "A", 10, "Q", 0);

        assertThat(controller.adjust(0, Map.of("A", uniform(20, 1.0), "Q", LoadReport.unanswered(0)))).isEmpty();
        assertThat(controller.adjust(PERIOD_NS, Map.of("A", uniform(20, 1.0), "Q", uniform(0, 9.0)))).isEmpty();
        assertThat(controller.weight("Q")).isEqualTo(0);
        assertThat(controller.targetWeight("Q")).isEqualTo(0.0);
        assertThat(controller.isUnreachable("Q")).isFalse();
        assertThat(controller.targetWeight("A")).isEqualTo(10.0);
    }

    @Test
    void shouldComputeConnectionInputsFromCountsWhenServersShareTraffic()
    {
        final FeedbackController<String> controller =
            controller(settings(INPUT_ONLY, 5.0, 1.0, LowerClamp.ONE), "A", 10, "B", 10, "C", 10);

        // Mean 20: INPUT = 0.5, 1.0, 1.5 and with target 1 the steps are 5·∛0.5 = +3.97, 0, −3.97.
        assertThat(controller.adjust(0, Map.of("A", uniform(10, 1.0), "B", uniform(20, 1.0), "C", uniform(30, 1.0))))
            .containsExactly(new WeightChange<>("A", 10, 14), new WeightChange<>("C", 10, 6));
        assertThat(controller.targetWeight("B")).isEqualTo(10.0);
    }

    @Test
    void shouldLeaveSilentAndRestartingServersOutOfTheConnectionMean()
    {
        final FeedbackController<String> controller =
            controller(settings(INPUT_ONLY, 5.0, 1.0, LowerClamp.ONE), "A", 10, "B", 10);

        // B goes silent: A alone makes the mean, INPUT_A = 1, no step.
        assertThat(controller.adjust(0, Map.of("A", uniform(20, 1.0), "B", LoadReport.unanswered(0))))
            .containsExactly(new WeightChange<>("B", 10, 0));
        // B restarts with no connections of its own; counting it would give INPUT_A = 2.
        assertThat(controller.adjust(PERIOD_NS, Map.of("A", uniform(20, 1.0), "B", uniform(0, 1.0))))
            .containsExactly(new WeightChange<>("B", 0, 10));
        assertThat(controller.targetWeight("A")).isEqualTo(10.0);
    }

    @Test
    void shouldTreatNoTrafficAsNeutralWhenNoServerReceivedConnections()
    {
        final FeedbackController<String> controller =
            controller(settings(INPUT_ONLY, 5.0, 1.0, LowerClamp.ONE), "A", 10, "B", 10);

        assertThat(controller.adjust(0, Map.of("A", uniform(0, 1.0), "B", uniform(0, 1.0)))).isEmpty();
        assertThat(controller.targetWeight("A")).isEqualTo(10.0);
        assertThat(controller.targetWeight("B")).isEqualTo(10.0);
    }

    @Test
    void shouldSignalOverloadWhenEveryReachableServerIsBelowItsDefault()
    {
        final FeedbackController<String> controller =
            controller(FeedbackSettings.defaults(), "A", 10, "B", 10, "Q", 0);
        assertThat(controller.isClusterOverloaded()).isFalse();

        // Both: INPUT 1, AGG = 0.1 + 0.9·1.95 = 1.855, step 5·∛(−0.905) = −4.84, 10 → 5.
        controller.adjust(0, Map.of("A", uniform(10, 1.95), "B", uniform(10, 1.95)));

        assertThat(controller.weight("A")).isEqualTo(5);
        assertThat(controller.weight("B")).isEqualTo(5);
        assertThat(controller.isClusterOverloaded()).isTrue();
    }

    @Test
    void shouldNotSignalOverloadWhenOneServerIsAtItsDefault()
    {
        final FeedbackController<String> controller = controller(FeedbackSettings.defaults(), "A", 10, "B", 10);

        // B: AGG = 0.1 + 0.9·0.95 = 0.955, step −0.85: 9.15 rounds to 9, held back, so B stays at 10.
        controller.adjust(0, Map.of("A", uniform(10, 1.95), "B", uniform(10, 0.95)));

        assertThat(controller.weight("A")).isEqualTo(5);
        assertThat(controller.weight("B")).isEqualTo(10);
        assertThat(controller.isClusterOverloaded()).isFalse();
    }

    @Test
    void shouldNotSignalOverloadWhenLowerClampIsDefaultWeight()
    {
        final FeedbackController<String> controller = controller(
            FeedbackSettings.defaults().withLowerClamp(LowerClamp.DEFAULT_WEIGHT), "A", 10, "B", 10);

        controller.adjust(0, Map.of("A", uniform(10, 1.95), "B", uniform(10, 1.95)));

        assertThat(controller.isClusterOverloaded()).isFalse();
    }

    @Test
    void shouldNotSignalOverloadWhenEveryServerIsSilent()
    {
        final FeedbackController<String> controller = controller(FeedbackSettings.defaults(), "A", 10, "B", 10);

        controller.adjust(0, Map.of());

        assertThat(controller.weight("A")).isEqualTo(0);
        assertThat(controller.isClusterOverloaded()).isFalse();
    }

    @Test
    void shouldBeDueOncePerPeriodWhenTimeIsPassedIn()
    {
        final FeedbackController<String> controller = controller(FeedbackSettings.defaults(), "A", 10);
        assertThat(controller.isDue(123)).isTrue();

        controller.adjust(1_000, Map.of("A", uniform(0, 0.95)));

        assertThat(controller.isDue(1_000 + PERIOD_NS - 1)).isFalse();
        assertThat(controller.isDue(1_000 + PERIOD_NS)).isTrue();
    }

    @Test
    void shouldRejectAReportWhenTheServerIsUnknown()
    {
        final FeedbackController<String> controller = controller(FeedbackSettings.defaults(), "A", 10);

        assertThatIllegalArgumentException().isThrownBy(() -> controller.adjust(0, Map.of("Z", uniform(0, 1.0))));
        assertThatIllegalArgumentException().isThrownBy(() -> controller.configure("B", -1));
    }

    @Test
    void shouldForgetEarlierAdjustmentsWhenReconfigured()
    {
        final FeedbackController<String> controller = controller(FeedbackSettings.defaults(), "A", 10);
        controller.adjust(0, Map.of("A", uniform(0, 1.95)));

        controller.configure("A", 20);

        assertThat(controller.weight("A")).isEqualTo(20);
        assertThat(controller.targetWeight("A")).isEqualTo(20.0);
    }

    private static FeedbackController<String> controller(
        final FeedbackSettings settings, final Object... namesAndWeights)
    {
        final FeedbackController<String> controller = new FeedbackController<>(settings);
        for (int i = 0; i < namesAndWeights.length; i += 2)
        {
            controller.configure((String)namesAndWeights[i], (Integer)namesAndWeights[i + 1]);
        }
        return controller;
    }

    private static FeedbackSettings settings(
        final LoadCoefficients coefficients, final double gain, final LowerClamp lowerClamp)
    {
        return settings(coefficients, gain, FeedbackSettings.DEFAULT_TARGET_LOAD, lowerClamp);
    }

    private static FeedbackSettings settings(
        final LoadCoefficients coefficients, final double gain, final double targetLoad, final LowerClamp lowerClamp)
    {
        return new FeedbackSettings(
            coefficients, gain, targetLoad, FeedbackSettings.DEFAULT_SCALE, PERIOD_NS, lowerClamp,
            FeedbackSettings.DEFAULT_PUSH_THRESHOLD_FRACTION, FeedbackSettings.DEFAULT_PUSH_THRESHOLD_MINIMUM);
    }

    private static LoadReport uniform(final long newConnections, final double everyInput)
    {
        return LoadReport.answered(newConnections, everyInput, everyInput, everyInput, everyInput, everyInput);
    }

    private static LoadReport cpu(final double cpuLoad)
    {
        return LoadReport.answered(0, cpuLoad, 0, 0, 0, 0);
    }
}
