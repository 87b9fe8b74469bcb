package io.jvs.core.sched;

import io.jvs.core.concurrent.SharedKeyTable;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lblc and lblcr as the kernel's {@code ip_vs_lblc.c} and {@code ip_vs_lblcr.c} schedule: a destination keeps
 * its server until that server is overloaded by lblc's own rule or goes away, the lblcr replica set grows under
 * load and sheds its busiest member once it has not changed for the expiration, and both tables drop idle
 * entries and trim themselves when full.
 */
class LocalitySpecTest
{
    private static final long MINUTE_NS = TimeUnit.MINUTES.toNanos(1);

    @Test
    void lblc1ShouldFollowTheWorkedExample()
    {
        final ServiceFixture fixture = ServiceFixture.of("lblc", "A2 B2");
        final StringBuilder picks = new StringBuilder();
        for (final String destination : new String[] {"10.1.1.1", "10.1.1.1", "10.1.1.1", "10.1.1.1", "10.1.1.2"})
        {
            final RealServer server = fixture.pickTo(destination);
            server.bindConnection(false);
            picks.append(ServiceFixture.name(server));
        }
        assertThat(picks.toString()).isEqualTo("AAABB");
        // Step 4 replaced X -> A by X -> B.
        assertThat(ServiceFixture.name(fixture.pickTo("10.1.1.1"))).isEqualTo("B");
    }

    @Test
    void lblcShouldIgnoreTheThresholdFlagOfTheCachedServer()
    {
        final ServiceFixture fixture = ServiceFixture.of("lblc", "A5 B5");
        assertThat(ServiceFixture.name(fixture.pickTo("10.1.1.1"))).isEqualTo("A");
        fixture.service.setThresholds(fixture.server('A'), 1, 0);
        fixture.server('A').bindConnection(false);
        assertThat(fixture.server('A').isOverloaded()).isTrue();
        assertThat(ServiceFixture.name(fixture.pickTo("10.1.1.1"))).isEqualTo("A");
        // A new destination goes through wlc, which does skip OVERLOAD.
        assertThat(ServiceFixture.name(fixture.pickTo("10.1.1.2"))).isEqualTo("B");
    }

    @Test
    void lblcShouldRescheduleWhenTheCachedServerIsRemovedOrQuiesced()
    {
        final ServiceFixture fixture = ServiceFixture.of("lblc", "A1 B1 C1");
        assertThat(ServiceFixture.name(fixture.pickTo("10.1.1.1"))).isEqualTo("A");
        fixture.service.removeServer(fixture.server('A'));
        assertThat(ServiceFixture.name(fixture.pickTo("10.1.1.1"))).isEqualTo("B");
        fixture.service.editServer(fixture.server('B'), 0, 0, 0, ForwardMethod.NAT);
        assertThat(ServiceFixture.name(fixture.pickTo("10.1.1.1"))).isEqualTo("C");
    }

    @Test
    void lblcShouldKeyOnIpv6DestinationsToo()
    {
        final ServiceFixture fixture = ServiceFixture.of("lblc", "A1 B1");
        final RealServer first = fixture.pickTo("2001:db8::10");
        first.bindConnection(false);
        final RealServer second = fixture.pickTo("2001:db8::11");
        assertThat(first).isNotSameAs(second);
        assertThat(fixture.pickTo("2001:db8::10")).isSameAs(first);
    }

    @Test
    void lblcrShouldGrowTheSetUnderLoadAndShrinkItAfterTheExpiration()
    {
        final SchedulerSettings settings = new SchedulerSettings(SchedulerFlags.NONE, 1,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, 10 * MINUTE_NS);
        final LocalityReplicationScheduler scheduler = new LocalityReplicationScheduler(settings);
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A2 B2");
        scheduler.init(fixture.service);
        final SchedulingContext context = new SchedulingContext(0, 1L).nowNs(0);
        final FlowTuple flow = new FlowTuple().set(
            Protocol.TCP, IpAddress.parse("172.16.0.1"), 1000, IpAddress.parse("10.1.1.1"), 80);

        final StringBuilder picks = new StringBuilder();
        for (int i = 0; i < 4; i++)
        {
            final RealServer server = scheduler.schedule(flow, context);
            server.bindConnection(false);
            picks.append(ServiceFixture.name(server));
        }
        // A serves until it has more active connections than its weight while B is below half of its.
        assertThat(picks.toString()).isEqualTo("AAAB");
        final int way = scheduler.table().lookup(fingerprint("10.1.1.1"), bucket(scheduler, "10.1.1.1"));
        assertThat(members(scheduler, way)).isEqualTo("B A");

        // Within the expiration the set keeps both; B is the less loaded member.
        context.nowNs(5 * MINUTE_NS);
        assertThat(ServiceFixture.name(scheduler.schedule(flow, context))).isEqualTo("B");
        assertThat(members(scheduler, way)).isEqualTo("B A");

        // Past it, the most loaded member (A: 3 active against B's 1) leaves the set.
        context.nowNs(16 * MINUTE_NS);
        assertThat(ServiceFixture.name(scheduler.schedule(flow, context))).isEqualTo("B");
        assertThat(members(scheduler, way)).isEqualTo("B");
    }

    @Test
    void lblcShouldDropIdleEntriesOnTheThirtiethTick()
    {
        final SchedulerSettings settings = new SchedulerSettings(SchedulerFlags.NONE, 1, 10 * MINUTE_NS,
            SchedulerSettings.DEFAULT_EXPIRATION_NS);
        final LocalityBasedScheduler scheduler = new LocalityBasedScheduler(settings);
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A1 B1");
        scheduler.init(fixture.service);
        final SchedulingContext context = new SchedulingContext(0, 1L).nowNs(0);
        final FlowTuple flow = new FlowTuple().set(
            Protocol.TCP, IpAddress.parse("172.16.0.1"), 1000, IpAddress.parse("10.1.1.1"), 80);
        scheduler.schedule(flow, context);
        assertThat(scheduler.table().entries()).isEqualTo(1);

        scheduler.onTick(0);
        for (int minute = 1; minute < 30; minute++)
        {
            scheduler.onTick(minute * MINUTE_NS);
            assertThat(scheduler.table().entries()).as("minute %d", minute).isEqualTo(1);
        }
        scheduler.onTick(30 * MINUTE_NS);
        assertThat(scheduler.table().entries()).isZero();
        assertThat(scheduler.collector().counter()).isEqualTo(1);
    }

    @Test
    void lblcShouldTakeANewExpirationAtOnceThroughItsServiceTable()
    {
        // Made with the default 24 h; lblc_expiration set to 10 minutes while the service runs, as a write to
        // /proc/sys/net/ipv4/vs/lblc_expiration: the next full check drops an entry idle for 30 minutes.
        final ServiceTable table = new ServiceTable(new SchedulerSettings(SchedulerFlags.NONE, 1,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS));
        RuleParser.parse("-A -t 10.0.0.100:80 -s lblc").applyTo(table);
        RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m").applyTo(table);
        final VirtualService service = table.find(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80));
        final LocalityBasedScheduler scheduler = (LocalityBasedScheduler)service.scheduler();
        final SchedulingContext context = new SchedulingContext(0, 1L).nowNs(0);
        scheduler.schedule(new FlowTuple().set(
            Protocol.TCP, IpAddress.parse("172.16.0.1"), 1000, IpAddress.parse("10.1.1.1"), 80), context);
        assertThat(scheduler.table().entries()).isEqualTo(1);

        table.schedulerSettings(new SchedulerSettings(SchedulerFlags.NONE, 1, 10 * MINUTE_NS,
            SchedulerSettings.DEFAULT_EXPIRATION_NS));
        scheduler.onTick(0);
        for (int minute = 1; minute < 30; minute++)
        {
            scheduler.onTick(minute * MINUTE_NS);
        }
        assertThat(scheduler.table().entries()).isEqualTo(1);
        scheduler.onTick(30 * MINUTE_NS);
        assertThat(scheduler.table().entries()).as("idle for longer than the new expiration").isZero();
        assertThat(table.schedulerSettings().lblcExpirationNs()).isEqualTo(10 * MINUTE_NS);
    }

    @Test
    void lblcrShouldShrinkItsSetsAfterANewExpiration()
    {
        final LocalityReplicationScheduler scheduler = new LocalityReplicationScheduler(new SchedulerSettings(
            SchedulerFlags.NONE, 1, SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS));
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A2 B2");
        scheduler.init(fixture.service);
        final SchedulingContext context = new SchedulingContext(0, 1L).nowNs(0);
        final FlowTuple flow = new FlowTuple().set(
            Protocol.TCP, IpAddress.parse("172.16.0.1"), 1000, IpAddress.parse("10.1.1.1"), 80);
        for (int i = 0; i < 4; i++)
        {
            scheduler.schedule(flow, context).bindConnection(false);
        }
        final int way = scheduler.table().lookup(fingerprint("10.1.1.1"), bucket(scheduler, "10.1.1.1"));
        assertThat(members(scheduler, way)).isEqualTo("B A");

        context.nowNs(16 * MINUTE_NS);
        scheduler.schedule(flow, context);
        assertThat(members(scheduler, way)).as("within the default 24 h").isEqualTo("B A");
        scheduler.sysctls(new SchedulerSettings(SchedulerFlags.NONE, 1, SchedulerSettings.DEFAULT_EXPIRATION_NS,
            10 * MINUTE_NS));
        context.nowNs(17 * MINUTE_NS);
        scheduler.schedule(flow, context);
        assertThat(members(scheduler, way)).as("past lblcr_expiration's new 10 minutes").isEqualTo("B");
    }

    @Test
    void lblcShouldRefuseNewEntriesBeyondTheMaximumAndTrimTheExcess()
    {
        // 2 buckets: at most 32 entries, 64 ways.
        final SchedulerSettings settings = new SchedulerSettings(SchedulerFlags.parse("table-size=2", "lblc"), 1,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS);
        final LocalityBasedScheduler scheduler = new LocalityBasedScheduler(settings);
        final ServiceFixture fixture = ServiceFixture.of("wlc", "A1");
        scheduler.init(fixture.service);
        final SchedulingContext context = new SchedulingContext(0, 1L).nowNs(0);
        final FlowTuple flow = new FlowTuple();
        for (int i = 0; i < 60; i++)
        {
            flow.set(Protocol.TCP, IpAddress.parse("172.16.0.1"), 1000, IpAddress.ofV4(0x0A01_0000 + i), 80);
            assertThat(scheduler.schedule(flow, context)).isNotNull();
        }
        // As in the kernel, inserts stop once the count is above the maximum.
        assertThat(scheduler.table().entries()).isEqualTo(33);
        assertThat(scheduler.table().countLive()).isEqualTo(33);

        scheduler.onTick(0);
        scheduler.onTick(7 * MINUTE_NS);
        // goal = (33 - 32) * 4 / 3 = 1: at least one entry idle for over 6 minutes goes.
        assertThat(scheduler.table().entries()).isLessThanOrEqualTo(32);
    }

    private static long fingerprint(final String destination)
    {
        final IpAddress address = IpAddress.parse(destination);
        return SharedKeyTable.fingerprint(address.isV6(), address.high(), address.low());
    }

    private static int bucket(final AbstractLocalityScheduler scheduler, final String destination)
    {
        return AddressHash.MULTIPLICATIVE.bucket(IpAddress.parse(destination).fold(),
            Integer.numberOfTrailingZeros(scheduler.table().buckets()));
    }

    private static String members(final AbstractLocalityScheduler scheduler, final int way)
    {
        final long set = scheduler.table().payload(way);
        final StringBuilder text = new StringBuilder();
        for (int lane = 0; lane < ReplicaSet.size(set); lane++)
        {
            if (lane > 0)
            {
                text.append(' ');
            }
            text.append(ServiceFixture.name(scheduler.slots.get(ReplicaSet.member(set, lane))));
        }
        return text.toString();
    }
}
