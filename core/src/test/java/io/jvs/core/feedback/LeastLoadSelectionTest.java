package io.jvs.core.feedback;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class LeastLoadSelectionTest
{
    @Test
    void shouldPickTheSmallestLoadWhenLoadsDiffer()
    {
        assertThat(LeastLoadSelection.select(new double[] { 110, 80, 95 })).isEqualTo(1);
    }

    @Test
    void shouldPickTheEarliestWhenLoadsTie()
    {
        assertThat(LeastLoadSelection.select(new double[] { 110, 80, 80 })).isEqualTo(1);
        assertThat(LeastLoadSelection.select(new double[] { 80, 80 })).isEqualTo(0);
    }

    @Test
    void shouldPickTheStrongerServerWhenTheWeakOneIsPastItsLimit()
    {
        // The same process counts (Ns 20, Nd 2, L = 80): L' = 80 on the Ll = 100 server, 110 on the Ll = 50 one.
        final ServerLoadProfile weak = ServerLoadProfile.withDefaultCost(50);
        final ServerLoadProfile strong = ServerLoadProfile.withDefaultCost(100);
        final double[] loads = {
            LoadModel.DEFAULT.effectiveLoad(weak, 20, 2, 100),
            LoadModel.DEFAULT.effectiveLoad(strong, 20, 2, 100),
        };

        assertThat(LeastLoadSelection.select(loads)).isEqualTo(1);
    }

    @Test
    void shouldReturnNoServerWhenTheListIsEmpty()
    {
        assertThat(LeastLoadSelection.select(new double[0])).isEqualTo(LeastLoadSelection.NO_SERVER);
    }

    @Test
    void shouldRejectLoadsWhenOneIsNotANumber()
    {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> LeastLoadSelection.select(new double[] { Double.NaN, 1 }));
    }
}
