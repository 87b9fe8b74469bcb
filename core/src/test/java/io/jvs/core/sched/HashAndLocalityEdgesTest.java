package io.jvs.core.sched;

import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When dh refuses the server its table gives, as the kernel's {@code ip_vs_dh_schedule} does (not AVAILABLE,
 * weight 0, OVERLOAD), and, with the {@code seed-overload} flag, also above twice its weight in connections,
 * the overload rule of the LVS Knowledge Base's destination and source hashing pseudo-code; and what a
 * scheduler answers once its service is done with it.
 */
class HashAndLocalityEdgesTest
{
    private static final String DESTINATION = "10.0.0.1";

    @Test
    void dhShouldRefuseTheHashedServerWhenQuiescedOrOverloaded()
    {
        final ServiceFixture fixture = ServiceFixture.of("dh", "A2 B2");
        final RealServer home = fixture.pickTo(DESTINATION);
        assertThat(home).isNotNull();
        fixture.service.setThresholds(home, 1, 0);
        home.bindConnection(false);
        assertThat(home.isOverloaded()).isTrue();
        assertThat(fixture.pickTo(DESTINATION)).isNull();
        fixture.service.setThresholds(home, 0, 0);
        assertThat(fixture.pickTo(DESTINATION)).isSameAs(home);
        fixture.service.editServer(home, 0, 0, 0, home.forwardMethod());
        assertThat(fixture.pickTo(DESTINATION)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"dh", "sh"})
    void shouldRefuseAServerAboveTwiceItsWeightOnlyWithSeedOverload(final String scheduler)
    {
        final ServiceFixture plain = ServiceFixture.of(scheduler, "A3");
        final ServiceFixture seeds =
            ServiceFixture.of(scheduler, SchedulerFlags.parse("seed-overload", scheduler), "A3");
        for (final ServiceFixture fixture : new ServiceFixture[] {plain, seeds})
        {
            // 6 connections, two of them inactive: exactly twice the weight.
            for (int i = 0; i < 6; i++)
            {
                fixture.server('A').bindConnection(i >= 4);
            }
        }
        assertThat(ServiceFixture.name(seeds.pickFor("172.16.0.9", 1))).isEqualTo("A");
        assertThat(ServiceFixture.name(seeds.pickTo(DESTINATION))).isEqualTo("A");
        plain.server('A').bindConnection(true);
        seeds.server('A').bindConnection(true);
        assertThat(seeds.pickFor("172.16.0.9", 1)).isNull();
        assertThat(seeds.pickTo(DESTINATION)).isNull();
        assertThat(ServiceFixture.name(plain.pickFor("172.16.0.9", 1))).isEqualTo("A");
        assertThat(ServiceFixture.name(plain.pickTo(DESTINATION))).isEqualTo("A");
    }

    @ParameterizedTest
    @ValueSource(strings = {"dh", "sh", "mh"})
    void aTableSchedulerShouldFindNoServerOnceDone(final String scheduler)
    {
        final ServiceFixture fixture = ServiceFixture.of(scheduler, "A1 B1");
        assertThat(fixture.pickTo(DESTINATION)).isNotNull();
        fixture.service.scheduler().done();
        assertThat(fixture.pickTo(DESTINATION)).isNull();
        assertThat(fixture.pickFor("172.16.0.9", 1)).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"lblc", "lblcr"})
    void aLocalitySchedulerShouldForgetItsEntriesAndCacheNothingOnceDone(final String scheduler)
    {
        final ServiceFixture fixture = ServiceFixture.of(scheduler, "A1 B1");
        final AbstractLocalityScheduler locality = (AbstractLocalityScheduler)fixture.service.scheduler();
        assertThat(fixture.pickTo(DESTINATION)).isNotNull();
        assertThat(locality.table().entries()).isEqualTo(1);
        locality.done();
        assertThat(locality.table().entries()).isZero();
        // Still a decision, as wlc makes it, but none is cached.
        assertThat(fixture.pickTo(DESTINATION)).isNotNull();
        assertThat(fixture.pickTo("10.0.0.2")).isNotNull();
        assertThat(locality.table().entries()).isZero();
    }
}
