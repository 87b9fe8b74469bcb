package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Scheduler#readsFlow()}: the pipeline fills the flow only for a scheduler that says it reads it, so one that
 * says no must choose the same servers whatever flow it is given, and one that says yes must be one whose choices
 * the flow changes (else the test would pass for a scheduler wrongly saying no).
 */
class SchedulerReadsFlowTest
{
    private static final int PICKS = 64;

    @ParameterizedTest
    @EnumSource(SchedulerKind.class)
    void shouldChooseAlikeForAnyFlowExactlyWhenTheSchedulerSaysItDoesNotReadIt(final SchedulerKind kind)
    {
        final List<String> fromClients = picks(kind, false);
        final List<String> fromNoise = picks(kind, true);
        final boolean readsFlow = kind.create(SchedulerSettings.of(SchedulerFlags.NONE)).readsFlow();

        if (readsFlow)
        {
            assertThat(fromNoise).as(kind + " says it reads the flow: other flows should choose otherwise")
                .isNotEqualTo(fromClients);
        }
        else
        {
            assertThat(fromNoise).as(kind + " says it does not read the flow").isEqualTo(fromClients);
        }
    }

    /**
     * The servers a service of {@code kind} chooses for {@link #PICKS} new connections, each kept open as an active
     * one, from the same scheduling context and servers: flows of clients one after another, or (noise) flows of
     * random addresses, ports, protocol and mark from a seeded source.
     */
    private static List<String> picks(final SchedulerKind kind, final boolean noise)
    {
        final ServiceFixture fixture = ServiceFixture.of(kind.schedulerName(), SchedulerFlags.NONE,
            "A4 B3 C2 D1 E5 F2", new SchedulingContext(0, 42L));
        final FlowTuple flow = new FlowTuple();
        final SplittableRandom random = new SplittableRandom(7);
        final List<String> chosen = new ArrayList<>();
        for (int i = 0; i < PICKS; i++)
        {
            if (noise)
            {
                flow.setV4(random.nextBoolean() ? Protocol.UDP : Protocol.TCP, random.nextInt(), random.nextInt(65536),
                    random.nextInt(), random.nextInt(65536));
                flow.firewallMark(random.nextInt());
            }
            else
            {
                flow.set(Protocol.TCP, IpAddress.parse("172.16.0." + (1 + i % 200)), 1024 + i,
                    ServiceFixture.VIP, 80);
            }
            final RealServer server = fixture.service.schedule(flow, fixture.context);
            if (server != null)
            {
                server.bindConnection(false);
            }
            chosen.add(ServiceFixture.name(server));
        }
        return chosen;
    }
}
