package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slot reuse with several workers: a removed server's slot goes to another server only once no worker
 * can still act on a snapshot that named the old one.
 */
class DataPlaneBuilderEpochsTest
{
    private static final String SERVICE = "-t 10.0.0.100:80";

    private final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
    private final Topology topology = Topology.singlePort(TestFrames.JVS_MAC, 1500, IpAddress.parse("10.0.0.1"));
    private final ConnectionTimeouts timeouts = new ConnectionTimeouts();

    private void rule(final String line)
    {
        RuleParser.parse(line).applyTo(table);
    }

    private RealServer server(final String address)
    {
        return table.find(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80))
            .find(IpAddress.parse(address), 80);
    }

    private DataPlane build(final DataPlaneBuilder builder)
    {
        return builder.build(table, topology, timeouts, DataPlaneSettings.defaults());
    }

    @Test
    void shouldKeepARemovedServersSlotUntilBothWorkersHaveMovedPastEverySnapshotThatNamedIt()
    {
        final WorkerEpochs epochs = new WorkerEpochs(2);
        final DataPlaneBuilder builder = new DataPlaneBuilder(4, 8, epochs);
        rule("-A " + SERVICE + " -s rr");
        rule("-a " + SERVICE + " -r 192.168.1.1:80 -m");
        final RealServer a = server("192.168.1.1");
        final DataPlane first = build(builder);
        assertThat(first.generation()).isEqualTo(1);
        assertThat(first.slotOf(a)).isEqualTo(1);
        epochs.enter(0, 1);
        epochs.enter(1, 1);

        // A leaves with no connections; B arrives. Both workers may still be on generation 1, where A is
        // available and could be given one more connection: A keeps its slot, B gets a fresh one.
        rule("-d " + SERVICE + " -r 192.168.1.1:80");
        rule("-a " + SERVICE + " -r 192.168.1.2:80 -m");
        final DataPlane second = build(builder);
        assertThat(second.generation()).isEqualTo(2);
        assertThat(second.server(1)).isSameAs(a);
        assertThat(second.slotOf(server("192.168.1.2"))).isEqualTo(2);
        assertThat(builder.departedServers()).isEqualTo(1);

        // Only worker 0 has moved on.
        epochs.enter(0, 2);
        rule("-a " + SERVICE + " -r 192.168.1.3:80 -m");
        final DataPlane third = build(builder);
        assertThat(third.server(1)).isSameAs(a);
        assertThat(third.slotOf(server("192.168.1.3"))).isEqualTo(3);

        // Both are past generation 1: A's counts are final and it is released, but generation 3, which
        // worker 1 is on, still names it in slot 1.
        epochs.enter(1, 3);
        rule("-a " + SERVICE + " -r 192.168.1.4:80 -m");
        final DataPlane fourth = build(builder);
        assertThat(fourth.server(1)).isNull();
        assertThat(a.forwardingSlot()).isZero();
        assertThat(builder.reservedServerSlots()).isEqualTo(1);
        assertThat(fourth.slotOf(server("192.168.1.4"))).isEqualTo(4);

        epochs.enter(0, 4);
        rule("-a " + SERVICE + " -r 192.168.1.5:80 -m");
        final DataPlane fifth = build(builder);
        assertThat(fifth.slotOf(server("192.168.1.5"))).as("worker 1 is still on generation 3").isEqualTo(5);

        epochs.enter(1, 5);
        rule("-a " + SERVICE + " -r 192.168.1.6:80 -m");
        final DataPlane sixth = build(builder);
        assertThat(sixth.slotOf(server("192.168.1.6"))).as("both workers past generation 3").isEqualTo(1);
        assertThat(builder.reservedServerSlots()).isZero();
        assertThat(builder.departedServers()).isZero();
    }

    @Test
    void shouldCountAsHeldEverySlotTheNextBuildCannotGiveANewServer()
    {
        final WorkerEpochs epochs = new WorkerEpochs(1);
        final DataPlaneBuilder builder = new DataPlaneBuilder(4, 4, epochs);
        rule("-A " + SERVICE + " -s rr");
        rule("-a " + SERVICE + " -r 192.168.1.1:80 -m");
        rule("-a " + SERVICE + " -r 192.168.1.2:80 -m");
        final RealServer a = server("192.168.1.1");
        final RealServer b = server("192.168.1.2");
        build(builder);
        final int slotOfA = a.forwardingSlot();
        epochs.enter(0, 1);
        assertThat(builder.serverSlotsHeldApartFrom(server -> server == a || server == b)).isZero();

        // Removed, A keeps its slot in the next build whatever the epochs: the worker may bind it until then.
        rule("-d " + SERVICE + " -r 192.168.1.1:80");
        assertThat(builder.serverSlotsHeldApartFrom(server -> server == b)).isEqualTo(1);
        rule("-a " + SERVICE + " -r 192.168.1.3:80 -m");
        final RealServer c = server("192.168.1.3");
        build(builder);
        epochs.enter(0, 2);
        assertThat(builder.serverSlotsHeldApartFrom(server -> server == b || server == c))
            .as("released by the next build, but reserved there").isEqualTo(1);
        build(builder);
        assertThat(builder.reservedServerSlots()).isEqualTo(1);
        assertThat(builder.serverSlotsHeldApartFrom(server -> server == b || server == c))
            .as("the worker is still on the snapshot that named it last").isEqualTo(1);
        epochs.enter(0, 3);
        assertThat(builder.serverSlotsHeldApartFrom(server -> server == b || server == c)).isZero();
        rule("-a " + SERVICE + " -r 192.168.1.4:80 -m");
        assertThat(build(builder).slotOf(server("192.168.1.4"))).as("so the next build has it to give")
            .isEqualTo(slotOfA);
    }

    @Test
    void shouldCountAsHeldWithoutEpochsOnlyTheSlotsOfRemovedServersConnectionsCountOn()
    {
        final DataPlaneBuilder builder = new DataPlaneBuilder(4, 8);
        rule("-A " + SERVICE + " -s rr");
        rule("-a " + SERVICE + " -r 192.168.1.1:80 -m");
        rule("-a " + SERVICE + " -r 192.168.1.2:80 -m");
        final RealServer a = server("192.168.1.1");
        build(builder);

        assertThat(builder.serverSlotsHeldApartFrom(server -> server != a)).isZero();
        a.bindConnection(false);
        assertThat(builder.serverSlotsHeldApartFrom(server -> server != a)).isEqualTo(1);
        assertThat(builder.serviceSlotsHeldApartFrom(service -> false)).as("its service's slot too").isEqualTo(1);
        a.unbindConnection(false);
        assertThat(builder.serviceSlotsHeldApartFrom(service -> false)).isZero();
    }

    @Test
    void shouldReuseASlotAtOnceWithoutEpochs()
    {
        final DataPlaneBuilder builder = new DataPlaneBuilder(4, 8);
        rule("-A " + SERVICE + " -s rr");
        rule("-a " + SERVICE + " -r 192.168.1.1:80 -m");
        assertThat(build(builder).slotOf(server("192.168.1.1"))).isEqualTo(1);
        rule("-d " + SERVICE + " -r 192.168.1.1:80");
        rule("-a " + SERVICE + " -r 192.168.1.2:80 -m");
        final DataPlane next = build(builder);
        assertThat(next.generation()).isEqualTo(2);
        assertThat(next.slotOf(server("192.168.1.2"))).isEqualTo(1);
    }

    @Test
    void shouldKeepAServerWithConnectionsWhateverTheEpochs()
    {
        final WorkerEpochs epochs = new WorkerEpochs(1);
        final DataPlaneBuilder builder = new DataPlaneBuilder(4, 8, epochs);
        rule("-A " + SERVICE + " -s rr");
        rule("-a " + SERVICE + " -r 192.168.1.1:80 -m");
        final RealServer a = server("192.168.1.1");
        build(builder);
        a.bindConnection(false);
        rule("-d " + SERVICE + " -r 192.168.1.1:80");
        build(builder);
        epochs.enter(0, 2);
        assertThat(build(builder).server(1)).as("a connection still counts on it").isSameAs(a);
        a.unbindConnection(false);
        assertThat(build(builder).server(1)).isNull();
        epochs.enter(0, 4);
        rule("-a " + SERVICE + " -r 192.168.1.2:80 -m");
        assertThat(build(builder).slotOf(server("192.168.1.2"))).isEqualTo(1);
    }

    @Test
    void shouldReserveAServiceSlotUntilTheWorkersMoveOn()
    {
        final WorkerEpochs epochs = new WorkerEpochs(2);
        final DataPlaneBuilder builder = new DataPlaneBuilder(4, 8, epochs);
        rule("-A -t 10.0.0.1:80 -s rr");
        rule("-A -t 10.0.0.2:80 -s rr");
        final DataPlane first = build(builder);
        epochs.enter(0, first.generation());
        epochs.enter(1, first.generation());
        assertThat(first.service(0).key().address()).isEqualTo(IpAddress.parse("10.0.0.1"));

        rule("-D -t 10.0.0.1:80");
        rule("-A -t 10.0.0.3:80 -s rr");
        final DataPlane second = build(builder);
        assertThat(second.service(0)).isNull();
        assertThat(second.service(2).key().address()).isEqualTo(IpAddress.parse("10.0.0.3"));

        epochs.enter(0, 2);
        rule("-A -t 10.0.0.4:80 -s rr");
        assertThat(build(builder).service(3).key().address()).as("worker 1 is on generation 1")
            .isEqualTo(IpAddress.parse("10.0.0.4"));

        epochs.enter(1, 3);
        rule("-A -t 10.0.0.5:80 -s rr");
        assertThat(build(builder).service(0).key().address()).isEqualTo(IpAddress.parse("10.0.0.5"));
    }

    @Test
    void shouldNotHoldBackForAWorkerThatLeft()
    {
        final WorkerEpochs epochs = new WorkerEpochs(2);
        final DataPlaneBuilder builder = new DataPlaneBuilder(4, 8, epochs);
        rule("-A " + SERVICE + " -s rr");
        rule("-a " + SERVICE + " -r 192.168.1.1:80 -m");
        build(builder);
        epochs.leave(1);
        epochs.enter(0, 1);
        rule("-d " + SERVICE + " -r 192.168.1.1:80");
        build(builder);
        epochs.enter(0, 2);
        build(builder);
        epochs.enter(0, 3);
        rule("-a " + SERVICE + " -r 192.168.1.2:80 -m");
        assertThat(build(builder).slotOf(server("192.168.1.2"))).isEqualTo(1);
        assertThat(epochs.oldest()).isEqualTo(3);
        assertThat(epochs.generation(1)).isEqualTo(WorkerEpochs.NONE);
    }

    @Test
    void shouldRecordTheGenerationAPipelineUsesOnEveryBurstAndIdleSweep()
    {
        final WorkerEpochs epochs = new WorkerEpochs(2);
        final DataPlaneBuilder builder = new DataPlaneBuilder(4, 8, epochs);
        final PipelineFixture fixture = new PipelineFixture(2);
        fixture.rules("-A " + SERVICE + " -s rr", "-a " + SERVICE + " -r 192.168.1.1:80 -m");
        final DataPlanePublisher publisher = new DataPlanePublisher(
            builder.build(fixture.table, topology, timeouts, DataPlaneSettings.defaults()));
        final Pipeline worker = new Pipeline(publisher, 1, 1024, 1024, 4, 8, 0,
            io.jvs.core.memory.OffHeapAllocator.DIRECT, new TemplateTable(16), epochs);
        assertThat(epochs.generation(1)).as("from its construction").isEqualTo(1);
        assertThat(epochs.generation(0)).as("no pipeline for worker 0 yet").isZero();

        publisher.publish(builder.build(fixture.table, topology, timeouts, DataPlaneSettings.defaults()));
        worker.sweep(1_000_000_000L, 16);
        assertThat(epochs.generation(1)).isEqualTo(2);

        publisher.publish(builder.build(fixture.table, topology, timeouts, DataPlaneSettings.defaults()));
        final FrameBurst empty = new FrameBurst();
        worker.process(empty, 2_000_000_000L);
        assertThat(epochs.generation(1)).isEqualTo(3);
        assertThat(epochs.oldest()).isZero();
    }
}
