package io.jvs.core.feedback;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

class LoadModelTest
{
    /** The best-equipped server: Ll = 100, so Llmax = 100 and its b = 1. */
    private static final ServerLoadProfile STRONG = ServerLoadProfile.withDefaultCost(100);

    /** Half the hardware: Ll = 50, so b = 100 / 50 = 2. */
    private static final ServerLoadProfile WEAK = ServerLoadProfile.withDefaultCost(50);

    private static final double LL_MAX = ServerLoadProfile.largestNormalLimit(List.of(STRONG, WEAK));

    private final LoadModel scaled = new ScaledExcessLoadModel();
    private final LoadModel added = new AddedExcessLoadModel();

    @Test
    void shouldWeighDynamicProcessesByAWhenComputingBasicLoad()
    {
        // L = Ns + a·Nd = 20 + 30·2 = 80.
        assertThat(WEAK.basicLoad(20, 2)).isEqualTo(80.0);
        // a is per server: with a = 10, 20 + 10·2 = 40.
        assertThat(new ServerLoadProfile(10, 50).basicLoad(20, 2)).isEqualTo(40.0);
    }

    @Test
    void shouldTakeTheLargestLimitAsReferenceWhenComputingB()
    {
        assertThat(LL_MAX).isEqualTo(100.0);
        assertThat(STRONG.overloadFactor(LL_MAX)).isEqualTo(1.0);
        assertThat(WEAK.overloadFactor(LL_MAX)).isEqualTo(2.0);
    }

    @Test
    void shouldScaleTheExcessByBWhenAWeakServerPassesItsLimit()
    {
        // L = 80 > Ll = 50: L' = 50 + 2·(80 − 50) = 110.
        assertThat(scaled.effectiveLoad(WEAK, 20, 2, LL_MAX)).isEqualTo(110.0);
        // The alternative: L' = 80 + 2·30 = 140.
        assertThat(added.effectiveLoad(WEAK, 20, 2, LL_MAX)).isEqualTo(140.0);
    }

    @Test
    void shouldLeaveLoadAsIsWhenAtOrBelowTheLimit()
    {
        // L = 80 <= 100.
        assertThat(scaled.effectiveLoad(STRONG, 20, 2, LL_MAX)).isEqualTo(80.0);
        assertThat(added.effectiveLoad(STRONG, 20, 2, LL_MAX)).isEqualTo(80.0);
        // L = 20 + 30 = 50, exactly Ll.
        assertThat(scaled.effectiveLoad(WEAK, 20, 1, LL_MAX)).isEqualTo(50.0);
        assertThat(added.effectiveLoad(WEAK, 20, 1, LL_MAX)).isEqualTo(50.0);
    }

    @Test
    void shouldNotPenaliseTheStrongestServerWhenReadingIsScaledExcess()
    {
        // L = 40 + 30·3 = 130 > 100 with b = 1: L' = 100 + 30 = 130 = L. The alternative: 130 + 30 = 160.
        assertThat(scaled.effectiveLoad(STRONG, 40, 3, LL_MAX)).isEqualTo(130.0);
        assertThat(added.effectiveLoad(STRONG, 40, 3, LL_MAX)).isEqualTo(160.0);
    }

    @Test
    void shouldDivideByTheLimitWhenNormalisingForTheFeedbackLoop()
    {
        assertThat(scaled.normalisedLoad(WEAK, 20, 2, LL_MAX)).isEqualTo(2.2);
        assertThat(scaled.normalisedLoad(STRONG, 20, 2, LL_MAX)).isEqualTo(0.8);
        assertThat(added.normalisedLoad(WEAK, 20, 2, LL_MAX)).isEqualTo(2.8);
    }

    @Test
    void shouldUseTheScaledExcessReadingWhenNoModelIsChosen()
    {
        assertThat(LoadModel.DEFAULT).isInstanceOf(ScaledExcessLoadModel.class);
        assertThat(ServerLoadProfile.DEFAULT_DYNAMIC_REQUEST_COST).isEqualTo(30.0);
    }

    @Test
    void shouldRejectProfilesWhenOutsideThePapersRanges()
    {
        assertThatNoException().isThrownBy(() -> new ServerLoadProfile(10, 1));
        assertThatNoException().isThrownBy(() -> new ServerLoadProfile(100, 1));
        assertThatIllegalArgumentException().isThrownBy(() -> new ServerLoadProfile(9.99, 1));
        assertThatIllegalArgumentException().isThrownBy(() -> new ServerLoadProfile(100.01, 1));
        assertThatIllegalArgumentException().isThrownBy(() -> new ServerLoadProfile(30, 0));
        assertThatIllegalArgumentException().isThrownBy(() -> WEAK.basicLoad(-1, 0));
        // Llmax below the server's own Ll would make b < 1.
        assertThatIllegalArgumentException().isThrownBy(() -> scaled.effectiveLoad(STRONG, 1, 1, 50));
    }
}
