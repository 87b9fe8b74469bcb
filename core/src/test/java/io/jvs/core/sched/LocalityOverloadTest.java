package io.jvs.core.sched;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lblc/lblcr give-way test (is_overloaded of ip_vs_lblc.c): more active connections than its weight,
 * while some server has fewer than half its weight ({@code 2 * active < weight}).
 */
class LocalityOverloadTest
{
    private static RealServer server(final int n, final int weight, final int active)
    {
        final RealServer server = new RealServer(IpAddress.ofV4(0x0A00_0000 + n), 80, ForwardMethod.NAT, weight);
        for (int i = 0; i < active; i++)
        {
            server.bindConnection(false);
        }
        return server;
    }

    @Test
    void shouldNotGiveWayAtOrBelowItsWeight()
    {
        final RealServer cached = server(1, 3, 3);
        assertThat(LeastConnection.isLocalityOverloaded(cached, new RealServer[] {cached, server(2, 10, 0)}))
            .isFalse();
    }

    @Test
    void shouldGiveWayAboveItsWeightOnlyToAServerBelowHalfOfItsOwn()
    {
        final RealServer cached = server(1, 3, 4);
        // 2 * 2 = 4 is not below 3; 2 * 1 = 2 is; 2 * 3 = 6 is not below 6; 2 * 2 = 4 is below 5.
        assertThat(LeastConnection.isLocalityOverloaded(cached, new RealServer[] {cached, server(2, 3, 2)})).isFalse();
        assertThat(LeastConnection.isLocalityOverloaded(cached, new RealServer[] {cached, server(2, 3, 1)})).isTrue();
        assertThat(LeastConnection.isLocalityOverloaded(cached, new RealServer[] {cached, server(2, 6, 3)})).isFalse();
        assertThat(LeastConnection.isLocalityOverloaded(cached, new RealServer[] {server(2, 5, 2), cached})).isTrue();
        assertThat(LeastConnection.isLocalityOverloaded(cached, new RealServer[] {cached})).isFalse();
    }
}
