package io.jvs.core.sched;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Round-robin as the kernel's {@code ip_vs_rr_schedule} picks: the list in order, servers with weight 0 or
 * OVERLOAD skipped, the cursor's server removed ({@code ip_vs_rr_del_dest} moves the cursor back one), a new
 * server at the head reached on the next wrap, and no server when none can take a connection.
 */
class RoundRobinSpecTest
{
    @Test
    void rr1ShouldCycleThroughTheListInOrder()
    {
        assertThat(ServiceFixture.of("rr", "A1 B1 C1").picks(7)).isEqualTo("A B C A B C A");
    }

    @Test
    void rr2ShouldSkipQuiescedServers()
    {
        assertThat(ServiceFixture.of("rr", "A1 B0 C1").picks(5)).isEqualTo("A C A C A");
    }

    @Test
    void rr3ShouldContinueAfterTheRemovedServerWhenTheCursorWasOnIt()
    {
        final ServiceFixture fixture = ServiceFixture.of("rr", "A1 B1 C1");
        assertThat(fixture.picks(2)).isEqualTo("A B");
        fixture.service.removeServer(fixture.server('B'));
        assertThat(fixture.picks(4)).isEqualTo("C A C A");
    }

    @Test
    void rr4ShouldReachANewServerAtTheHeadOnTheNextWrap()
    {
        final ServiceFixture fixture = ServiceFixture.of("rr", "A1 B1 C1");
        assertThat(fixture.picks(2)).isEqualTo("A B");
        fixture.add("D1");
        assertThat(ServiceFixture.names(fixture.service.servers())).isEqualTo("D A B C");
        assertThat(fixture.picks(6)).isEqualTo("C D A B C D");
    }

    @Test
    void rr5ShouldReturnNothingWhenAllWeightsAreZero()
    {
        assertThat(ServiceFixture.of("rr", "A0 B0 C0").picks(3)).isEqualTo("- - -");
    }

    @Test
    void rr5ShouldReturnNothingWhenAllServersAreOverloaded()
    {
        final ServiceFixture fixture = ServiceFixture.of("rr", "A1 B1");
        for (final char letter : new char[] {'A', 'B'})
        {
            fixture.service.setThresholds(fixture.server(letter), 1, 0);
            fixture.server(letter).bindConnection(false);
        }
        assertThat(fixture.picks(2)).isEqualTo("- -");
    }

    @Test
    void shouldReturnNothingForAnEmptyService()
    {
        assertThat(ServiceFixture.of("rr", "").picks(2)).isEqualTo("- -");
    }

    @Test
    void shouldPickTheOnlyServerAgainAfterWrapping()
    {
        assertThat(ServiceFixture.of("rr", "A1").picks(3)).isEqualTo("A A A");
    }
}
