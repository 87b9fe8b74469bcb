package io.jvs.core.sched;

import io.jvs.core.concurrent.SharedKeyTable;
import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lblcr (ip_vs_lblcr.c) at the edges: the set's shrink exactly at and just past lblcr_expiration counted from
 * its last change, the least loaded member (ip_vs_dest_set_min) and the most loaded one
 * (ip_vs_dest_set_max) with ties, weights per unit and quiesced members, and a used entry kept by the
 * collector.
 */
class LocalityReplicationTest
{
    private static final long MINUTE_NS = TimeUnit.MINUTES.toNanos(1);
    private static final long EXPIRATION_NS = 10 * MINUTE_NS;
    private static final String DESTINATION = "10.1.1.1";

    private final SchedulingContext context = new SchedulingContext(0, 1L).nowNs(0);
    private final FlowTuple flow = new FlowTuple().set(
        Protocol.TCP, IpAddress.parse("172.16.0.1"), 1000, IpAddress.parse(DESTINATION), 80);
    private LocalityReplicationScheduler scheduler;
    private ServiceFixture fixture;

    private void start(final String servers)
    {
        final SchedulerSettings settings = new SchedulerSettings(SchedulerFlags.NONE, 1,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, EXPIRATION_NS);
        scheduler = new LocalityReplicationScheduler(settings);
        fixture = ServiceFixture.of("wlc", servers);
        scheduler.init(fixture.service);
    }

    /** Caches a set for the destination, members given newest first, last changed at {@code nowNs}. */
    private void cache(final String newestFirst, final long nowNs)
    {
        long set = 0;
        for (int i = newestFirst.length() - 1; i >= 0; i--)
        {
            set = ReplicaSet.insert(set, fixture.server(newestFirst.charAt(i)).schedulerSlot());
        }
        assertThat(scheduler.table().acquire(fingerprint(), bucket(), nowNs, set))
            .isNotEqualTo(SharedKeyTable.NOT_FOUND);
    }

    private String schedule(final long nowNs)
    {
        context.nowNs(nowNs);
        return ServiceFixture.name(scheduler.schedule(flow, context));
    }

    private String members()
    {
        final int way = scheduler.table().lookup(fingerprint(), bucket());
        final long set = scheduler.table().payload(way);
        final StringBuilder text = new StringBuilder();
        for (int lane = 0; lane < ReplicaSet.size(set); lane++)
        {
            text.append(ServiceFixture.name(scheduler.slots.get(ReplicaSet.member(set, lane))));
        }
        return text.toString();
    }

    private void active(final char server, final int connections)
    {
        for (int i = 0; i < connections; i++)
        {
            fixture.server(server).bindConnection(false);
        }
    }

    private static long fingerprint()
    {
        final IpAddress address = IpAddress.parse(DESTINATION);
        return SharedKeyTable.fingerprint(false, address.high(), address.low());
    }

    private int bucket()
    {
        return AddressHash.MULTIPLICATIVE.bucket(IpAddress.parse(DESTINATION).fold(),
            Integer.numberOfTrailingZeros(scheduler.table().buckets()));
    }

    @Test
    void shouldShrinkOnlyOnceTheSetIsUnchangedForLongerThanTheExpiration()
    {
        start("A4 B4 C4");
        cache("BA", 2 * MINUTE_NS);
        active('A', 2);
        // At exactly the expiration the set stays; 1 ns later the most loaded member (A) leaves it.
        assertThat(schedule(2 * MINUTE_NS + EXPIRATION_NS)).isEqualTo("B");
        assertThat(members()).isEqualTo("BA");
        assertThat(schedule(2 * MINUTE_NS + EXPIRATION_NS + 1)).isEqualTo("B");
        assertThat(members()).isEqualTo("B");
    }

    @Test
    void shouldShrinkOneMemberPerExpirationCountedFromTheLastShrink()
    {
        start("A4 B4 C4");
        cache("CBA", 0);
        active('A', 2);
        active('B', 1);
        final long first = EXPIRATION_NS + 1;
        schedule(first);
        assertThat(members()).isEqualTo("CB");
        assertThat(schedule(first + 1)).isEqualTo("C");
        assertThat(schedule(first + EXPIRATION_NS)).isEqualTo("C");
        assertThat(members()).isEqualTo("CB");
        schedule(first + EXPIRATION_NS + 1);
        assertThat(members()).isEqualTo("C");
    }

    @Test
    void shouldCountTheExpirationFromTheLastGrowth()
    {
        // The set grows at 5 minutes (A, the only member, has more active connections than its weight while
        // B is idle): its clock restarts, so at 12 minutes it keeps both members.
        start("A2 B1");
        assertThat(schedule(0)).isEqualTo("A");
        assertThat(members()).isEqualTo("A");
        active('A', 3);
        assertThat(schedule(5 * MINUTE_NS)).isEqualTo("B");
        assertThat(members()).isEqualTo("BA");
        assertThat(schedule(12 * MINUTE_NS)).isEqualTo("B");
        assertThat(members()).isEqualTo("BA");
        schedule(15 * MINUTE_NS + 1);
        assertThat(members()).isEqualTo("B");
    }

    @Test
    void shouldServeFromTheFirstMemberOnEqualLoads()
    {
        start("A2 B2 C9");
        cache("BA", 0);
        active('A', 1);
        active('B', 1);
        assertThat(schedule(MINUTE_NS)).isEqualTo("B");
        // Equal load per unit of weight: B2 with 2 active against A1 with 1.
        start("A1 B2 C9");
        cache("BA", 0);
        active('A', 1);
        active('B', 2);
        assertThat(schedule(MINUTE_NS)).isEqualTo("B");
    }

    @Test
    void shouldServeFromTheMemberWithTheLeastLoadPerUnitOfWeight()
    {
        // B (weight 1, 1 active: 256 a unit) against A (weight 4, 1 active: 64 a unit): A. C, outside the
        // set, idle and heavy, would be wlc's choice.
        start("A4 B1 C100");
        cache("BA", 0);
        active('A', 1);
        active('B', 1);
        assertThat(schedule(MINUTE_NS)).isEqualTo("A");
        // B (weight 2, 1 active: 128 a unit) against A (weight 1, 1 active: 256 a unit): B.
        start("A1 B2 C100");
        cache("BA", 0);
        active('A', 1);
        active('B', 1);
        assertThat(schedule(MINUTE_NS)).isEqualTo("B");
    }

    @Test
    void shouldPassOverAQuiescedMemberWhenServing()
    {
        start("A2 B2 C9");
        cache("BA", 0);
        fixture.service.editServer(fixture.server('B'), 0, 0, 0, fixture.server('B').forwardMethod());
        active('A', 1);
        assertThat(schedule(MINUTE_NS)).isEqualTo("A");
    }

    @Test
    void shouldDropTheFirstMemberOnEqualLoadsAndSkipQuiescedOnesWhenShrinking()
    {
        start("A2 B2 C9");
        cache("BA", 0);
        active('A', 1);
        active('B', 1);
        schedule(EXPIRATION_NS + 1);
        assertThat(members()).isEqualTo("A");

        // B is quiesced (weight 0): ip_vs_dest_set_max passes over it, so A, the only weighted member, goes.
        start("A2 B2 C9");
        cache("BA", 0);
        fixture.service.editServer(fixture.server('B'), 0, 0, 0, fixture.server('B').forwardMethod());
        schedule(EXPIRATION_NS + 1);
        assertThat(members()).isEqualTo("B");
    }

    @Test
    void shouldDropTheMemberWithTheMostLoadPerUnitOfWeight()
    {
        // B (weight 4, 2 active: 128 a unit) against A (weight 1, 1 active: 256 a unit): A goes.
        start("A1 B4 C9");
        cache("BA", 0);
        active('A', 1);
        active('B', 2);
        schedule(EXPIRATION_NS + 1);
        assertThat(members()).isEqualTo("B");
        // B (weight 1, 1 active: 256 a unit) against A (weight 2, 1 active: 128 a unit): B goes.
        start("A2 B1 C9");
        cache("BA", 0);
        active('A', 1);
        active('B', 1);
        schedule(EXPIRATION_NS + 1);
        assertThat(members()).isEqualTo("A");
    }

    @Test
    void shouldKeepAnEntryInUseThroughTheFullExpiration()
    {
        // The collector's full expiration (the 30th check, at 30 minutes) drops entries unused for
        // lblcr_expiration (10 minutes); a lookup at 25 minutes counts as a use.
        start("A1 B1");
        schedule(0);
        scheduler.onTick(0);
        for (int minute = 1; minute <= 25; minute++)
        {
            scheduler.onTick(minute * MINUTE_NS);
        }
        schedule(25 * MINUTE_NS);
        for (int minute = 26; minute <= 30; minute++)
        {
            scheduler.onTick(minute * MINUTE_NS);
        }
        assertThat(scheduler.table().entries()).isEqualTo(1);
        for (int minute = 31; minute <= 60; minute++)
        {
            scheduler.onTick(minute * MINUTE_NS);
        }
        assertThat(scheduler.table().entries()).isZero();
    }

    @Test
    void lblcShouldKeepAnEntryInUseThroughTheFullExpiration()
    {
        final SchedulerSettings settings = new SchedulerSettings(SchedulerFlags.NONE, 1, EXPIRATION_NS,
            SchedulerSettings.DEFAULT_EXPIRATION_NS);
        final LocalityBasedScheduler lblc = new LocalityBasedScheduler(settings);
        final ServiceFixture service = ServiceFixture.of("wlc", "A1 B1");
        lblc.init(service.service);
        lblc.schedule(flow, context.nowNs(0));
        lblc.onTick(0);
        for (int minute = 1; minute <= 25; minute++)
        {
            lblc.onTick(minute * MINUTE_NS);
        }
        final RealServer cached = lblc.schedule(flow, context.nowNs(25 * MINUTE_NS));
        for (int minute = 26; minute <= 30; minute++)
        {
            lblc.onTick(minute * MINUTE_NS);
        }
        assertThat(lblc.table().entries()).isEqualTo(1);
        assertThat(lblc.schedule(flow, context.nowNs(31 * MINUTE_NS))).isSameAs(cached);
    }
}
