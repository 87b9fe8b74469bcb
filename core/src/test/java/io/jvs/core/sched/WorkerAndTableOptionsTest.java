package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Options beyond the kernel's single-threaded schedulers: rr and wrr keep a cursor per worker, so each worker
 * on its own gives the kernel's sequence; mh table sizes; sh's folding of an IPv6 source into 32 bits, as IPVS
 * folds it; and the choice of address hash.
 */
class WorkerAndTableOptionsTest
{
    @Test
    void rrShouldGiveEveryWorkerTheSpecSequence()
    {
        final ServiceFixture fixture = ServiceFixture.of(
            "rr", SchedulerFlags.NONE, "A1 B1 C1", new SchedulingContext(0, 1L), 2);
        final SchedulingContext first = new SchedulingContext(0, 1L);
        final SchedulingContext second = new SchedulingContext(1, 2L);
        final FlowTuple flow = new FlowTuple().setV4(Protocol.TCP, 1, 1, 2, 80);
        final StringBuilder one = new StringBuilder();
        final StringBuilder two = new StringBuilder();
        for (int i = 0; i < 7; i++)
        {
            one.append(ServiceFixture.name(fixture.service.schedule(flow, first)));
            if (i % 2 == 0)
            {
                two.append(ServiceFixture.name(fixture.service.schedule(flow, second)));
            }
        }
        assertThat(one.toString()).isEqualTo("ABCABCA");
        assertThat(two.toString()).isEqualTo("ABCA");
    }

    @Test
    void wrrShouldGiveEveryWorkerTheSpecSequence()
    {
        final ServiceFixture fixture = ServiceFixture.of(
            "wrr", SchedulerFlags.NONE, "A4 B3 C2", new SchedulingContext(0, 1L), 3);
        final FlowTuple flow = new FlowTuple().setV4(Protocol.TCP, 1, 1, 2, 80);
        final StringBuilder[] sequences = {new StringBuilder(), new StringBuilder(), new StringBuilder()};
        for (int i = 0; i < 9; i++)
        {
            for (int worker = 2; worker >= 0; worker--)
            {
                sequences[worker].append(ServiceFixture.name(
                    fixture.service.schedule(flow, new SchedulingContextFor(worker).context)));
            }
        }
        for (final StringBuilder sequence : sequences)
        {
            assertThat(sequence.toString()).isEqualTo("AABABCABC");
        }
    }

    /** A fresh context object per call must still find the worker's cursor: state lives per index. */
    private record SchedulingContextFor(SchedulingContext context)
    {
        SchedulingContextFor(final int worker)
        {
            this(new SchedulingContext(worker, 1L));
        }
    }

    @Test
    void mhShouldBuildATableOfTheConfiguredPrimeSize()
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", SchedulerFlags.parse("table-size=251", "mh"), "A1 B1");
        final MaglevScheduler mh = (MaglevScheduler)fixture.service.scheduler();
        assertThat(mh.tableSize()).isEqualTo(251);
        assertThat(HashSchedulerSpecTest.counts(mh.table())).containsOnlyKeys("A", "B");
    }

    @Test
    void mhShouldRefuseMoreServersThanTableSlots()
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", SchedulerFlags.parse("table-size=7", "mh"),
            "A1 B1 C1 D1 E1 F1 G1");
        assertThatIllegalArgumentException().isThrownBy(() -> fixture.add("H1")).withMessageContaining("do not fit");
        assertThat(fixture.service.servers()).hasSize(7);
        assertThat(fixture.service.find(ServiceFixture.address('H'), 80)).isNull();
        assertThat(fixture.pick()).isNotNull();
    }

    @Test
    void mhShouldGiveLargerWeightsMoreSlots()
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", "A3 B1");
        final int a = HashSchedulerSpecTest.counts(((MaglevScheduler)fixture.service.scheduler()).table()).get("A");
        assertThat((double)a / MaglevScheduler.DEFAULT_TABLE_SIZE).isBetween(0.73, 0.77);
    }

    @Test
    void mhFallbackShouldFindAnotherServerWhenTheHashedOneIsQuiesced()
    {
        final ServiceFixture fixture = ServiceFixture.of("mh", SchedulerFlags.parse("mh-fallback", "mh"), "A1 B1 C1");
        final RealServer home = fixture.pickFor("10.9.9.9", 1);
        fixture.service.editServer(home, 0, 0, 0, home.forwardMethod());
        final RealServer other = fixture.pickFor("10.9.9.9", 1);
        assertThat(other).isNotNull().isNotSameAs(home);
    }

    @Test
    void shShouldHashAnIpv6SourceByItsFold()
    {
        final ServiceFixture fixture = ServiceFixture.of("sh", "A1 B1 C1 D1 E1");
        final IpAddress v6 = IpAddress.parse("2001:db8::1:2");
        final IpAddress v4 = IpAddress.ofV4(v6.fold());
        final FlowTuple flow = new FlowTuple();
        final RealServer viaV6 = fixture.service.schedule(
            flow.set(Protocol.TCP, v6, 1, IpAddress.parse("2001:db8::100"), 80), fixture.context);
        final RealServer viaV4 = fixture.service.schedule(
            flow.set(Protocol.TCP, v4, 1, ServiceFixture.VIP, 80), fixture.context);
        assertThat(viaV6).isSameAs(viaV4);
    }

    @Test
    void lblcShouldAcceptTheKernelHashFlag()
    {
        final ServiceFixture fixture = ServiceFixture.of("lblc", SchedulerFlags.parse("kernel-hash", "lblc"), "A1 B1");
        final RealServer first = fixture.pickTo("10.1.1.1");
        assertThat(fixture.pickTo("10.1.1.1")).isSameAs(first);
    }

    @Test
    void shouldRefuseAnUnknownScheduler()
    {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> ServiceFixture.of("fastest", "A1"))
            .withMessage("Scheduler not found: fastest");
    }
}
