package io.jvs.core.sched;

import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceSettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * wrr (ip_vs_wrr.c) when the service changes under it: a scheduler switched to on a service that already
 * has servers, a server removed, and a weight change that leaves a step above 1, where
 * ip_vs_wrr_dest_changed realigns the current weight to {@code (cw / di) * di + 1}.
 */
class WeightedRoundRobinEdgesTest
{
    @Test
    void shouldPlanForTheServersAlreadyThereWhenSwitchedTo()
    {
        final ServiceFixture fixture = ServiceFixture.of("rr", "A4 B3 C2");
        fixture.service.edit(new ServiceSettings("wrr", SchedulerFlags.NONE, false, 0, 32, false));
        assertThat(fixture.picks(9)).isEqualTo("A A B A B C A B C");
    }

    @Test
    void shouldReplanWhenAServerIsRemoved()
    {
        final ServiceFixture fixture = ServiceFixture.of("wrr", "A4 B3 C2");
        assertThat(fixture.picks(9)).isEqualTo("A A B A B C A B C");
        fixture.service.removeServer(fixture.server('B'));
        // The cycle had reached cw 1. A4 C2: gcd 2, start weight 4 - 1 = 3; cw 1 stays (realigned to
        // (1 / 2) * 2 + 1 = 1) and the list restarts: cw 1 gives A C, then cw 3 gives A, cw 1 A C.
        assertThat(fixture.picks(6)).isEqualTo("A C A A C A");
    }

    @Test
    void shouldRealignTheCurrentWeightToANewStepAboveOne()
    {
        // After "A A" the current weight is 3. B goes to 6: weights 4 6 2, gcd 2, start weight 6 - 1 = 5;
        // 3 is kept and realigned to (3 / 2) * 2 + 1 = 3, and the list restarts: cw 3 gives A B, cw 1 gives
        // A B C, then cw 5 gives B, cw 3 A B, cw 1 A B C.
        final ServiceFixture fixture = ServiceFixture.of("wrr", "A4 B3 C2");
        assertThat(fixture.picks(2)).isEqualTo("A A");
        fixture.service.editServer(fixture.server('B'), 6, 0, 0, ForwardMethod.NAT);
        assertThat(fixture.picks(11)).isEqualTo("A B A B C B A B A B C");
    }

    @Test
    void shouldStartAgainFromTheTopWhenTheCurrentWeightIsAboveTheNewMaximum()
    {
        // After "A" of A4 B3 C2 the current weight is 4; A goes to 2: start weight 3, so cw restarts at 3.
        final ServiceFixture fixture = ServiceFixture.of("wrr", "A4 B3 C2");
        assertThat(fixture.picks(1)).isEqualTo("A");
        fixture.service.editServer(fixture.server('A'), 2, 0, 0, ForwardMethod.NAT);
        assertThat(fixture.picks(7)).isEqualTo("B A B C A B C");
    }

    private static void overload(final ServiceFixture fixture, final boolean overloaded)
    {
        for (final char server : new char[] {'A', 'B', 'C'})
        {
            fixture.service.setThresholds(fixture.server(server), overloaded ? 1 : 0, 0);
            if (overloaded)
            {
                fixture.server(server).bindConnection(false);
            }
        }
    }

    @Test
    void shouldRestartFromTheTopAfterACycleThatFoundEveryServerOverloaded()
    {
        // From A at cw 3 the search runs cw 3, 2, 1 and wraps with its last pass done: ip_vs_wrr_schedule's
        // err_over leaves the mark at the list head and cw at the maximum, so the next pick is A at cw 4.
        final ServiceFixture fixture = ServiceFixture.of("wrr", "A4 B3 C2");
        assertThat(fixture.picks(2)).isEqualTo("A A");
        overload(fixture, true);
        assertThat(fixture.picks(2)).isEqualTo("- -");
        overload(fixture, false);
        assertThat(fixture.picks(9)).isEqualTo("A A B A B C A B C");
    }

    @Test
    void shouldStopAtTheServerItStartedFromWhenTheSearchWrappedFirst()
    {
        // From A at cw 1 the first wrap comes before any last pass (restarted): the search goes on down to
        // cw 1 and stops at A, where it began, leaving the mark there. The next pick goes on from A at cw 1.
        final ServiceFixture fixture = ServiceFixture.of("wrr", "A4 B3 C2");
        assertThat(fixture.picks(7)).isEqualTo("A A B A B C A");
        overload(fixture, true);
        assertThat(fixture.picks(2)).isEqualTo("- -");
        overload(fixture, false);
        assertThat(fixture.picks(8)).isEqualTo("B C A A B A B C");
    }

    @Test
    void rrShouldGoOnAfterTheServerBeforeTheOneItLastPickedWhenThatOneIsRemoved()
    {
        // ip_vs_rr_del_dest: a cursor on the removed server moves back to the one before it.
        final ServiceFixture fixture = ServiceFixture.of("rr", "A1 B1 C1 D1");
        assertThat(fixture.picks(3)).isEqualTo("A B C");
        fixture.service.removeServer(fixture.server('C'));
        assertThat(fixture.picks(4)).isEqualTo("D A B D");
    }
}
