package io.jvs.core.sched;

import io.jvs.core.service.ForwardMethod;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The least-connection family as the kernel's schedulers pick, on short sequences where each pick stays open:
 * lc ignores weights and counts an active connection 256 times an inactive one
 * ({@code ip_vs_dest_conn_overhead}), wlc keeps the earlier server on a tie, sed prefers the heavier of two
 * idle servers, nq takes an idle server at once, fo fails over to the next highest weight, ovf fills the
 * heaviest server first, and twos picks the less loaded of its two random choices.
 */
class LeastConnectionFamilySpecTest
{
    @Test
    void lc1ShouldIgnoreWeights()
    {
        assertThat(ServiceFixture.of("lc", "A1 B2 C3").picksActive(6)).isEqualTo("A B C A B C");
    }

    @Test
    void lc2ShouldWeighActiveConnections256Times()
    {
        final ServiceFixture fixture = ServiceFixture.of("lc", "A1 B1 C1");
        fixture.server('A').bindConnection(false);
        for (int i = 0; i < 255; i++)
        {
            fixture.server('B').bindConnection(true);
        }
        for (int i = 0; i < 256; i++)
        {
            fixture.server('C').bindConnection(true);
        }
        assertThat(fixture.picks(1)).isEqualTo("B");
    }

    @Test
    void wlc1ShouldKeepTheEarlierServerOnATie()
    {
        assertThat(ServiceFixture.of("wlc", "A1 B2 C3").picksActive(12)).isEqualTo("A B C C B C A B C C B C");
    }

    @Test
    void sed1ShouldPreferTheHeavierIdleServer()
    {
        assertThat(ServiceFixture.of("sed", "A1 B2 C3").picksActive(12)).isEqualTo("C B C A B C C B C A B C");
    }

    @Test
    void nq1ShouldTakeAnIdleServerAtOnce()
    {
        assertThat(ServiceFixture.of("nq", "A1 B2 C3").picksActive(12)).isEqualTo("A B C C B C C B C A B C");
    }

    @Test
    void fo1ShouldFailOverToTheNextHighestWeight()
    {
        final ServiceFixture fixture = ServiceFixture.of("fo", "A1 B2 C3");
        assertThat(fixture.picksActive(3)).isEqualTo("C C C");
        fixture.service.editServer(fixture.server('C'), 0, 0, 0, ForwardMethod.NAT);
        assertThat(fixture.picksActive(2)).isEqualTo("B B");
    }

    @Test
    void foShouldBreakTiesByListOrder()
    {
        assertThat(ServiceFixture.of("fo", "A2 B2 C1").picks(2)).isEqualTo("A A");
    }

    @Test
    void ovf1ShouldFillTheHeaviestServerFirst()
    {
        assertThat(ServiceFixture.of("ovf", "A1 B2 C3").picksActive(10)).isEqualTo("C C C C B B B A A -");
    }

    @Test
    void twosShouldPickTheFirstEligibleServerWhenTheRandomSourceReturnsZero()
    {
        final ServiceFixture fixture = ServiceFixture.of(
            "twos", SchedulerFlags.NONE, "A0 B2 C3", new SchedulingContext(0, bound -> 0));
        assertThat(fixture.picksActive(4)).isEqualTo("B B B B");
    }

    @Test
    void twosShouldPreferTheLessLoadedOfItsTwoChoices()
    {
        // Draws 1 and 5 of [0, 5]: the first lands on A (1 - 2 <= 0), the second on C (5 - 2 - 3 <= 0).
        final int[] draws = {1, 5};
        final int[] next = {0};
        final ServiceFixture fixture = ServiceFixture.of(
            "twos", SchedulerFlags.NONE, "A2 C3", new SchedulingContext(0, bound -> draws[next[0]++ % 2]));
        fixture.server('A').bindConnection(false);
        assertThat(fixture.picks(1)).isEqualTo("C");
    }
}
