package io.jvs.core.sched;

import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service's server list and a server's connection counts, as the kernel keeps them: servers listed newest
 * first ({@code __ip_vs_update_dest} adds each at the head of the list), the OVERLOAD flag set at the upper
 * threshold ({@code ip_vs_bind_dest}) and cleared below the lower one, or below three quarters of the upper
 * one when no lower is set ({@code ip_vs_unbind_dest}), or when the upper threshold is raised or removed
 * ({@code __ip_vs_update_dest}); templates left out of the count ({@code ip_vs_dest_totalconns}); and a removed
 * server no longer AVAILABLE.
 */
class ThresholdAndOrderSpecTest
{
    @Test
    void shouldListServersNewestFirst()
    {
        final ServiceFixture fixture = ServiceFixture.of("rr", "");
        fixture.add("A1");
        fixture.add("B1");
        fixture.add("C1");
        assertThat(ServiceFixture.names(fixture.service.servers())).isEqualTo("C B A");
        assertThat(fixture.picks(3)).isEqualTo("C B A");
    }

    @Test
    void shouldSetOverloadAtTheUpperThresholdAndClearItBelowThreeQuarters()
    {
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A1");
        final RealServer a = fixture.server('A');
        fixture.service.setThresholds(a, 4, 0);
        for (int i = 1; i <= 3; i++)
        {
            a.bindConnection(false);
            assertThat(a.isOverloaded()).as("total %d", i).isFalse();
        }
        a.bindConnection(true);
        assertThat(a.isOverloaded()).as("total 4").isTrue();
        assertThat(fixture.pick()).isNull();

        a.unbindConnection(true);
        assertThat(a.isOverloaded()).as("total 3: 12 < 12 is false").isTrue();
        a.unbindConnection(false);
        assertThat(a.isOverloaded()).as("total 2: 8 < 12").isFalse();
        assertThat(fixture.pick()).isSameAs(a);
    }

    @Test
    void shouldClearOverloadBelowTheLowerThresholdWhenOneIsSet()
    {
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A1");
        final RealServer a = fixture.server('A');
        fixture.service.setThresholds(a, 4, 2);
        for (int i = 0; i < 4; i++)
        {
            a.bindConnection(false);
        }
        assertThat(a.isOverloaded()).isTrue();
        a.unbindConnection(false);
        a.unbindConnection(false);
        assertThat(a.isOverloaded()).as("total 2 is not below 2").isTrue();
        a.unbindConnection(false);
        assertThat(a.isOverloaded()).as("total 1").isFalse();
    }

    @Test
    void shouldClearOverloadWhenTheUpperThresholdIsRaisedOrRemoved()
    {
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A1");
        final RealServer a = fixture.server('A');
        fixture.service.setThresholds(a, 1, 0);
        a.bindConnection(false);
        assertThat(a.isOverloaded()).isTrue();
        fixture.service.editServer(a, 1, 1, 0, ForwardMethod.NAT);
        assertThat(a.isOverloaded()).as("same threshold keeps it").isTrue();
        fixture.service.editServer(a, 1, 2, 0, ForwardMethod.NAT);
        assertThat(a.isOverloaded()).as("raised threshold clears it").isFalse();
        a.bindConnection(false);
        assertThat(a.isOverloaded()).isTrue();
        fixture.service.editServer(a, 1, 0, 0, ForwardMethod.NAT);
        assertThat(a.isOverloaded()).as("no threshold clears it").isFalse();
    }

    @Test
    void shouldNotCountTemplatesTowardsTheThresholds()
    {
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A1");
        final RealServer a = fixture.server('A');
        fixture.service.setThresholds(a, 1, 0);
        a.bindTemplate();
        assertThat(a.persistentConnections()).isEqualTo(1);
        assertThat(a.isOverloaded()).isFalse();
    }

    @Test
    void shouldKeepMovingCountsBetweenActiveAndInactive()
    {
        final RealServer a = ServiceFixture.of("wlc", "A1").server('A');
        a.bindConnection(true);
        a.connectionActivated();
        assertThat(a.activeConnections()).isEqualTo(1);
        assertThat(a.inactiveConnections()).isZero();
        a.connectionDeactivated();
        assertThat(a.overhead()).isEqualTo(1);
        a.unbindConnection(true);
        assertThat(a.totalConnections()).isZero();
    }

    @Test
    void shouldMarkARemovedServerUnavailable()
    {
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A1 B1");
        final RealServer a = fixture.server('A');
        assertThat(a.isAvailable()).isTrue();
        fixture.service.removeServer(a);
        assertThat(a.isAvailable()).isFalse();
        assertThat(ServiceFixture.names(fixture.service.servers())).isEqualTo("B");
    }
}
