package io.jvs.core.sched;

import io.jvs.core.service.ForwardMethod;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Weighted round-robin as the kernel's {@code ip_vs_wrr_schedule} picks: whole cycles for several weight sets,
 * an overloaded server skipped, and what a weight changed mid-cycle does to the current weight
 * ({@code ip_vs_wrr_dest_changed}: kept while it is still valid, else realigned to the new step).
 */
class WeightedRoundRobinSpecTest
{
    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "WRR-1 | A4 B3 C2 | A A B A B C A B C A A B A B C A B C",
        "WRR-2 | A3 B1 C1 | A A A B C A A A B C",
        "WRR-3 | A4 B2 C2 | A A B C A A B C",
        "WRR-4 | A6 B3    | A A B A A B",
        "WRR-5 | A4 B0 C2 | A A C A A C",
        "WRR-6 | A2 B2 C2 | A B C A B C",
        "WRR-7 | A5 B1    | A A A A A B A A A A A B",
        "WRR-8 | A0 B0    | - - -",
    })
    void shouldFollowTheSpecSequence(final String example, final String servers, final String expected)
    {
        final int picks = expected.split(" ").length;
        assertThat(ServiceFixture.of("wrr", servers).picks(picks)).isEqualTo(expected);
    }

    @Test
    void wrr9ShouldSkipAnOverloadedServer()
    {
        final ServiceFixture fixture = ServiceFixture.of("wrr", "A4 B3 C2");
        fixture.service.setThresholds(fixture.server('A'), 1, 0);
        fixture.server('A').bindConnection(false);
        assertThat(fixture.picks(10)).isEqualTo("B B C B C B B C B C");
    }

    @Test
    void wrr10ShouldKeepTheCurrentWeightWhenAWeightChangesMidCycle()
    {
        final ServiceFixture fixture = ServiceFixture.of("wrr", "A4 B3 C2");
        assertThat(fixture.picks(2)).isEqualTo("A A");
        fixture.service.editServer(fixture.server('C'), 4, 0, 0, ForwardMethod.NAT);
        assertThat(fixture.picks(12)).isEqualTo("A B C A B C A B C A C A");
    }

    @Test
    void wrr11ShouldRealignTheCurrentWeightToTheNewStep()
    {
        final ServiceFixture fixture = ServiceFixture.of("wrr", "A4 B2 C2");
        assertThat(fixture.picks(1)).isEqualTo("A");
        fixture.service.editServer(fixture.server('B'), 1, 0, 0, ForwardMethod.NAT);
        assertThat(fixture.picks(10)).isEqualTo("A A C A B C A A A C");
    }

    @Test
    void shouldReturnNothingWhenEveryServerIsOverloaded()
    {
        final ServiceFixture fixture = ServiceFixture.of("wrr", "A2 B1");
        for (final char letter : new char[] {'A', 'B'})
        {
            fixture.service.setThresholds(fixture.server(letter), 1, 0);
            fixture.server(letter).bindConnection(false);
        }
        assertThat(fixture.picks(3)).isEqualTo("- - -");
    }
}
