package io.jvs.forwarder.daemon;

import io.jvs.core.control.KernelChecks;
import io.jvs.core.control.KernelError;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlanePublisher;
import io.jvs.core.pipeline.WorkerEpochs;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.forwarder.config.JvsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The control path against the data plane's slots (8 services, 15 servers here): the kernel's checks count one
 * service's servers, but every service's servers share the slots, and a removed service or server keeps its slot
 * while connections count on it; a change that would not fit is refused with ENOMEM, as the daemon's limits are,
 * and leaves the table and the published snapshot as they were.
 */
class IpvsBackendSlotsTest
{
    private static final KernelChecks.Limits DAEMONS = new KernelChecks.Limits(8, 15);
    private static final ServiceKey FIRST = ServiceKey.of(Protocol.UDP, IpAddress.parse("198.51.100.20"), 53);
    private static final ServiceKey SECOND = ServiceKey.of(Protocol.UDP, IpAddress.parse("198.51.100.21"), 53);

    @TempDir
    Path directory;

    @Test
    void shouldRefuseAServerBeyondTheSlotsEveryServiceShares() throws Exception
    {
        final Conductor conductor = conductor();
        ctl(conductor, "-A -u 198.51.100.20:53 -s rr");
        ctl(conductor, "-A -u 198.51.100.21:53 -s rr");
        for (int i = 0; i < 8; i++)
        {
            ctl(conductor, "-a -u 198.51.100.20:53 -r 10.1.0." + (100 + i) + ":53 -m -w 1");
        }
        for (int i = 0; i < 6; i++)
        {
            ctl(conductor, "-a -u 198.51.100.21:53 -r 10.1.0." + (200 + i) + ":53 -m -w 1");
        }
        final List<RealServer> servers = conductor.table().allServers();
        final DataPlane snapshot = conductor.current();

        assertThat(change(conductor, "-a -u 198.51.100.21:53 -r 10.1.0.206:53 -m -w 1"))
            .isEqualTo(KernelError.NO_MEMORY);
        assertThat(change(conductor, "-a -u 198.51.100.21:53 -r 10.1.0.206:53 -m -w 0"))
            .as("at weight 0 too").isEqualTo(KernelError.NO_MEMORY);

        assertThat(conductor.table().allServers()).containsExactlyElementsOf(servers);
        assertThat(conductor.table().find(SECOND).servers()).hasSize(6);
        assertThat(conductor.current()).isSameAs(snapshot);
    }

    @Test
    void shouldCountTheSlotsOfARemovedServiceConnectionsStillCountOn() throws Exception
    {
        final Conductor conductor = conductor();
        for (int i = 0; i < 7; i++)
        {
            ctl(conductor, "-A -u 198.51.100." + (20 + i) + ":53 -s rr");
        }
        ctl(conductor, "-a -u 198.51.100.21:53 -r 10.1.0.200:53 -m -w 1");
        final RealServer server = conductor.table().find(SECOND).servers()[0];
        server.bindConnection(false);
        ctl(conductor, "-D -u 198.51.100.21:53");
        final DataPlane snapshot = conductor.current();

        assertThat(change(conductor, "-A -t 198.51.100.30:80 -s rr")).isEqualTo(KernelError.NO_MEMORY);
        assertThat(change(conductor, "-A -u 198.51.100.21:53 -s rr")).as("its key again: a new service")
            .isEqualTo(KernelError.NO_MEMORY);

        assertThat(conductor.table().services()).hasSize(7);
        assertThat(conductor.current()).isSameAs(snapshot);
        server.unbindConnection(false);
        assertThat(change(conductor, "-A -t 198.51.100.30:80 -s rr")).as("once its connection ended").isNull();
    }

    @Test
    void shouldTakeBackARemovedServerThatStillHoldsItsSlotWhenTheOthersAreFull() throws Exception
    {
        final Conductor conductor = conductor();
        ctl(conductor, "-A -u 198.51.100.20:53 -s rr");
        for (int i = 0; i < 14; i++)
        {
            ctl(conductor, "-a -u 198.51.100.20:53 -r 10.1.0." + (100 + i) + ":53 -m -w 1");
        }
        final RealServer server = conductor.table().find(FIRST).servers()[0];
        server.bindConnection(false);
        ctl(conductor, "-d -u 198.51.100.20:53 -r " + server.address() + ":53");

        assertThat(change(conductor, "-a -u 198.51.100.20:53 -r 10.1.0.120:53 -m -w 1"))
            .as("14 servers and the removed one's slot").isEqualTo(KernelError.NO_MEMORY);
        assertThat(change(conductor, "-a -u 198.51.100.20:53 -r " + server.address() + ":53 -m -w 1")).isNull();
        assertThat(conductor.table().allServers()).contains(server).hasSize(15);
    }

    @Test
    void shouldFreeTheSlotsOfRemovedServersThatOnlyWaitForTheWorkersWhenAnAdditionNeedsThem() throws Exception
    {
        final WorkerEpochs epochs = new WorkerEpochs(1);
        final Conductor conductor = conductor(epochs);
        // A worker with no traffic records the current snapshot as an idle one does; nothing publishes meanwhile.
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicBoolean following = new AtomicBoolean(true);
        final Thread worker = Thread.ofPlatform().daemon().start(() ->
        {
            while (running.get())
            {
                if (following.get())
                {
                    epochs.enter(0, conductor.current().generation());
                }
                LockSupport.parkNanos(100_000L);
            }
        });
        try
        {
            ctl(conductor, "-A -u 198.51.100.20:53 -s rr");
            for (int i = 0; i < 14; i++)
            {
                ctl(conductor, "-a -u 198.51.100.20:53 -r 10.1.0." + (100 + i) + ":53 -m -w 1");
            }
            // Removed while the worker is busy on an older snapshot; it catches up once they are, and then the
            // conductor builds nothing until the next change.
            following.set(false);
            for (int i = 0; i < 3; i++)
            {
                ctl(conductor, "-d -u 198.51.100.20:53 -r 10.1.0." + (100 + i) + ":53");
            }
            following.set(true);
            while (epochs.oldest() < conductor.current().generation())
            {
                Thread.onSpinWait();
            }

            for (int i = 0; i < 3; i++)
            {
                assertThat(change(conductor, "-a -u 198.51.100.20:53 -r 10.1.0." + (120 + i) + ":53 -m -w 1"))
                    .as("a slot a removed server held until the workers moved on").isNull();
            }
            assertThat(conductor.table().allServers()).hasSize(15);
            assertThat(change(conductor, "-a -u 198.51.100.20:53 -r 10.1.0.130:53 -m -w 1"))
                .as("full with servers that are there").isEqualTo(KernelError.NO_MEMORY);
        }
        finally
        {
            running.set(false);
            worker.join();
        }
    }

    private static KernelError change(final Conductor conductor, final String line)
    {
        return new IpvsBackend(null, DAEMONS, 1024).change(conductor, RuleParser.parse(line));
    }

    private static void ctl(final Conductor conductor, final String line)
    {
        assertThat(change(conductor, line)).as(line).isNull();
    }

    /** A daemon whose file declares one service with one server, and room for 8 services and 15 servers. */
    private Conductor conductor() throws Exception
    {
        return conductor(null);
    }

    /** The same, its slots held for the workers as {@code epochs} says (null: one worker that is never behind). */
    private Conductor conductor(final WorkerEpochs epochs) throws Exception
    {
        final Path file = directory.resolve("start.conf");
        Files.writeString(file, """
            interface eth0
            workers 1
            -A -t 198.51.100.10:9001 -s rr
            -a -t 198.51.100.10:9001 -r 10.1.0.11:9001 -m -w 1
            """);
        final JvsConfig config = JvsConfig.load(file);
        final ServiceTable table = config.serviceTable(config.schedulerSettings(Daemon.workerCount(config)));
        final TopologySource topology = new ReloadTest.EveryServerNextDoor();
        final DataPlaneBuilder builder = new DataPlaneBuilder(8, 16, epochs);
        final DataPlanePublisher publisher = new DataPlanePublisher(Conductor.firstSnapshot(table, builder, topology,
            config.connectionTimeouts(), config.settings(), config.markRules()));
        final Conductor conductor = new Conductor(table, builder, publisher, topology, new DataPlaneMaps(null),
            config.connectionTimeouts(), config.settings(), config.markRules(), config);
        conductor.epochs(epochs);
        return conductor;
    }
}
