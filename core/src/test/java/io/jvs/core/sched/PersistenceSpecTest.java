package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.PersistenceTemplates;
import io.jvs.core.service.ServiceSettings;
import io.jvs.core.service.VirtualService;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Persistence ({@code ipvsadm -p}, {@code -M}) as the kernel's {@code ip_vs_sched_persist} keeps it: one
 * template per client network sends the network to one server until the template times out; the template
 * lives on while its connections do; a quiesced server keeps its networks unless templates of quiesced
 * servers are set to expire ({@code expire_quiescent_template}); and a removed server's template is dropped
 * and the network scheduled afresh ({@code ip_vs_check_template}).
 */
class PersistenceSpecTest
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);

    private final ServiceFixture fixture = ServiceFixture.of("rr", "A1 B1");
    private final PersistenceTemplates templates = new PersistenceTemplates(false);
    private final FlowTuple flow = new FlowTuple();

    PersistenceSpecTest()
    {
        // -p without a value: 360 s; -M 255.255.255.0.
        fixture.service.edit(new ServiceSettings("rr", SchedulerFlags.NONE, true, 360, 24, false));
    }

    private PersistenceTemplates.Template open(final String client, final long nowNs)
    {
        final VirtualService service = fixture.service;
        flow.set(Protocol.TCP, IpAddress.parse(client), 40000, ServiceFixture.VIP, 80);
        return templates.open(service, flow, nowNs, () -> service.schedule(flow, fixture.context));
    }

    @Test
    void shouldSendANetworkToOneServerAndRescheduleAfterTheTemplateTimesOut()
    {
        final PersistenceTemplates.Template first = open("10.0.0.2", 0);
        final PersistenceTemplates.Template second = open("10.0.0.3", 10 * SECOND_NS);
        assertThat(ServiceFixture.name(first.server())).isEqualTo("A");
        assertThat(second).isSameAs(first);
        assertThat(first.server().persistentConnections()).isEqualTo(1);
        templates.close(first);
        templates.close(second);

        // 360 s after the last use the template is gone; rr moves on to B.
        final PersistenceTemplates.Template later = open("10.0.0.4", 370 * SECOND_NS);
        assertThat(ServiceFixture.name(later.server())).isEqualTo("B");
        assertThat(fixture.server('A').persistentConnections()).isZero();
    }

    @Test
    void shouldKeepTheTemplateWhileItsConnectionsAreOpen()
    {
        final PersistenceTemplates.Template first = open("10.0.0.2", 0);
        // The connection stays open past the timeout: the template is re-armed 60 s at a time.
        assertThat(templates.expire(400 * SECOND_NS)).isZero();
        assertThat(open("10.0.0.9", 401 * SECOND_NS).server()).isSameAs(first.server());
        templates.close(first);
        templates.close(first);
        assertThat(templates.expire(401 * SECOND_NS + 360 * SECOND_NS)).isEqualTo(1);
        assertThat(templates.size()).isZero();
    }

    @Test
    void shouldKeepANetworkOnAQuiescedServerUnlessTemplatesOfQuiescedServersExpire()
    {
        final PersistenceTemplates.Template first = open("10.0.0.2", 0);
        fixture.service.editServer(first.server(), 0, 0, 0, ForwardMethod.NAT);
        assertThat(open("10.0.0.3", SECOND_NS).server()).isSameAs(first.server());

        final PersistenceTemplates strict = new PersistenceTemplates(true);
        final VirtualService service = fixture.service;
        flow.set(Protocol.TCP, IpAddress.parse("10.0.0.2"), 1, ServiceFixture.VIP, 80);
        final PersistenceTemplates.Template placed =
            strict.open(service, flow, 0, () -> first.server());
        assertThat(strict.open(service, flow, SECOND_NS, () -> service.schedule(flow, fixture.context)).server())
            .isNotSameAs(placed.server());
    }

    @Test
    void shouldRescheduleWhenTheTemplatesServerIsRemoved()
    {
        final PersistenceTemplates.Template first = open("10.0.0.2", 0);
        fixture.service.removeServer(first.server());
        assertThat(open("10.0.0.3", SECOND_NS).server()).isNotSameAs(first.server());
    }

    @Test
    void shouldKeepOtherNetworksApart()
    {
        assertThat(open("10.0.0.2", 0).server()).isNotSameAs(open("10.0.1.2", 0).server());
    }
}
