package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.control.KernelChecks;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlanePublisher;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import io.jvs.forwarder.config.JvsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A reload on the conductor, without workers or interfaces: its one-line summary names every change that took
 * effect, the services' and the rest's (timeouts, set switches, mark rules, neighbour and gateway overrides), and
 * says "no change" only when nothing changed; what needs a restart is judged by what the daemon would run with the
 * new file, so leaving out a statement that only repeats the default is no change. Next to ctl (its commands applied
 * as the control socket applies them): a reload leaves the services ctl made and the timeouts it set alone and says
 * so ({@code left to control:}), puts back the file's definition of a file service, and takes over a service of
 * ctl's once the file declares it.
 */
class ReloadTest
{
    private static final ServiceKey FILE = ServiceKey.of(Protocol.TCP, IpAddress.parse("198.51.100.10"), 9001);
    private static final ServiceKey CONTROL = ServiceKey.of(Protocol.UDP, IpAddress.parse("198.51.100.20"), 53);
    private static final String BOX = """
        interface eth0
        workers 1
        -A -t 198.51.100.10:9001 -s rr
        -a -t 198.51.100.10:9001 -r 10.1.0.11:9001 -m -w 1
        """;

    @TempDir
    Path directory;

    @Test
    void shouldSayNoChangeForTheSameFile() throws Exception
    {
        final Conductor conductor = conductor(BOX);

        assertThat(reload(conductor, BOX)).isEqualTo("no change");
    }

    @Test
    void shouldNameTheTimeoutsATimeoutStatementApplied() throws Exception
    {
        final Conductor conductor = conductor(BOX);

        assertThat(reload(conductor, BOX + "timeout tcp 300 tcpfin 60 udp 100\n"))
            .isEqualTo("1 change: timeouts tcp 300 tcpfin 60 udp 100");
        assertThat(conductor.timeouts().current()).isEqualTo(new ConnectionTimeouts.Current(300, 60, 100));
    }

    @Test
    void shouldNameNeighbourOverridesAddedByOneReloadAndRemovedByTheNext() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        final String neighbours = "neighbour 10.1.0.11 mac 02:00:00:00:00:11\n" +
            "neighbour 10.1.0.12 mac 02:00:00:00:00:12\n";

        assertThat(reload(conductor, BOX + neighbours)).isEqualTo("1 change: neighbour overrides: 2 added");
        assertThat(reload(conductor, BOX)).isEqualTo("1 change: neighbour overrides: 2 removed");
        assertThat(reload(conductor, BOX)).isEqualTo("no change");
    }

    @Test
    void shouldNameSetSwitchesMarkRulesAndGatewaysThatChanged() throws Exception
    {
        final Conductor conductor = conductor(BOX + "mark 7 dst 203.0.113.0/24\n");

        final String summary = reload(conductor, BOX + "set sloppy_tcp 1\nset expire_nodest_conn 1\n" +
            "mark 8 dst 192.0.2.0/24\ngateway mac 02:00:00:00:00:01 family ipv4\n");

        assertThat(summary).isEqualTo("4 changes: set expire_nodest_conn 1; set sloppy_tcp 1; " +
            "mark rules: 1 added, 1 removed; gateway ipv4 added");
        assertThat(conductor.settings().sloppyTcp()).isTrue();
    }

    @Test
    void shouldApplyAndNameTheLocalityExpirationsAReloadChanges() throws Exception
    {
        final Conductor conductor = conductor(BOX + "set lblcr_expiration 600\n");
        assertThat(conductor.table().schedulerSettings().lblcrExpirationNs()).isEqualTo(600_000_000_000L);

        assertThat(reload(conductor, BOX + "set lblc_expiration 60\n"))
            .isEqualTo("2 changes: set lblc_expiration 60; set lblcr_expiration 86400");
        assertThat(conductor.table().schedulerSettings().lblcExpirationNs()).isEqualTo(60_000_000_000L);
        assertThat(conductor.table().schedulerSettings().lblcrExpirationNs()).isEqualTo(86_400_000_000_000L);
        assertThat(reload(conductor, BOX + "set lblc_expiration 60\n")).isEqualTo("no change");
    }

    @Test
    void shouldListServiceChangesBeforeTheRest() throws Exception
    {
        final Conductor conductor = conductor(BOX);

        assertThat(reload(conductor, BOX.replace("-m -w 1", "-g -w 1") + "timeout udp 100\n"))
            .isEqualTo("2 changes: -e -t 198.51.100.10:9001 -r 10.1.0.11:9001 -g -w 1; timeouts tcp 900 tcpfin 120 " +
                "udp 100");
    }

    @Test
    void shouldTakeAFileWithoutTheWorkersStatementWhenTheDaemonWouldRunAsManyWorkers() throws Exception
    {
        final Conductor conductor = conductor(BOX);

        // One queue per interface: without the statement the daemon runs one worker, as it does.
        assertThat(reload(conductor, BOX.replace("workers 1\n", ""))).isEqualTo("no change");
        assertThat(reload(conductor, BOX)).as("and back").isEqualTo("no change");
    }

    @Test
    void shouldRefuseAFileWhoseWorkersOrCpusDifferFromWhatRuns() throws Exception
    {
        final Conductor conductor = conductor(BOX);

        assertThatThrownBy(() -> reload(conductor, BOX.replace("workers 1\n", "workers 2\n")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("workers or cpus changed");
        assertThatThrownBy(() -> reload(conductor, BOX.replace("workers 1\n", "workers 1 cpus 0\n")))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("workers or cpus changed");
    }

    @Test
    void shouldLeaveAServiceMadeThroughCtlAloneWhenAReloadAddsAMarkRule() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        ctl(conductor, "-A -u 198.51.100.20:53 -s rr");
        ctl(conductor, "-a -u 198.51.100.20:53 -r 10.1.0.21:53 -m -w 1");
        final VirtualService service = conductor.table().find(CONTROL);
        final RealServer server = service.servers()[0];
        server.bindConnection(true);

        assertThat(reload(conductor, BOX + "mark 5 dst 198.51.100.12/32\n"))
            .isEqualTo("1 change: mark rules: 1 added; left to control: 1 service");

        assertThat(conductor.table().find(CONTROL)).isSameAs(service);
        assertThat(service.servers()).containsExactly(server);
        assertThat(server.weight()).isEqualTo(1);
        assertThat(server.inactiveConnections()).isEqualTo(1);
        assertThat(reload(conductor, BOX + "mark 5 dst 198.51.100.12/32\n"))
            .isEqualTo("no change; left to control: 1 service");
    }

    @Test
    void shouldLeaveAServiceMadeThroughCtlAloneWhenAReloadChangesTheTimeoutsOrASetSwitch() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        ctl(conductor, "-A -u 198.51.100.20:53 -s rr");
        ctl(conductor, "-a -u 198.51.100.20:53 -r 10.1.0.21:53 -m -w 1");
        final VirtualService service = conductor.table().find(CONTROL);

        assertThat(reload(conductor, BOX + "timeout tcp 600\n"))
            .isEqualTo("1 change: timeouts tcp 600 tcpfin 120 udp 300; left to control: 1 service");
        assertThat(reload(conductor, BOX + "timeout tcp 600\nset expire_nodest_conn 1\n"))
            .isEqualTo("1 change: set expire_nodest_conn 1; left to control: 1 service");

        assertThat(conductor.table().find(CONTROL)).isSameAs(service);
        assertThat(service.servers()).hasSize(1);
    }

    @Test
    void shouldKeepATimeoutSetThroughCtlUntilTheFileChangesThatTimeout() throws Exception
    {
        final String timeouts = "timeout tcp 600 udp 100\n";
        final Conductor conductor = conductor(BOX + timeouts);
        ctl(conductor, "--set 700 0 50");

        assertThat(reload(conductor, BOX + timeouts + "set sloppy_tcp 1\n"))
            .isEqualTo("1 change: set sloppy_tcp 1; left to control: timeouts tcp 700 udp 50");
        assertThat(conductor.timeouts().current()).isEqualTo(new ConnectionTimeouts.Current(700, 120, 50));

        assertThat(reload(conductor, BOX + "timeout tcp 600 udp 200\nset sloppy_tcp 1\n"))
            .as("the file's udp changed, its tcp did not")
            .isEqualTo("1 change: timeouts tcp 700 tcpfin 120 udp 200; left to control: timeouts tcp 700");
        assertThat(conductor.timeouts().current()).isEqualTo(new ConnectionTimeouts.Current(700, 120, 200));

        assertThat(reload(conductor, BOX + "timeout udp 200\nset sloppy_tcp 1\n"))
            .as("a tcp the file no longer gives goes back to the default")
            .isEqualTo("1 change: timeouts tcp 900 tcpfin 120 udp 200");
    }

    @Test
    void shouldPutBackTheFilesDefinitionOfAFileServiceEditedThroughCtlAndLeaveControlsOwnAsItIs() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        final VirtualService service = conductor.table().find(FILE);
        ctl(conductor, "-E -t 198.51.100.10:9001 -s wlc");
        ctl(conductor, "-e -t 198.51.100.10:9001 -r 10.1.0.11:9001 -m -w 5");
        ctl(conductor, "-a -t 198.51.100.10:9001 -r 10.1.0.12:9001 -m -w 1");
        ctl(conductor, "-A -u 198.51.100.20:53 -s wlc");

        assertThat(reload(conductor, BOX)).isEqualTo("3 changes: -d -t 198.51.100.10:9001 -r 10.1.0.12:9001; " +
            "-E -t 198.51.100.10:9001 -s rr; -e -t 198.51.100.10:9001 -r 10.1.0.11:9001 -m -w 1; " +
            "left to control: 1 service");
        assertThat(conductor.table().find(FILE)).isSameAs(service);
        assertThat(conductor.table().find(CONTROL).settings().scheduler()).isEqualTo("wlc");

        ctl(conductor, "-D -t 198.51.100.10:9001");
        assertThat(reload(conductor, BOX)).as("deleted through ctl, it comes back")
            .isEqualTo("2 changes: -A -t 198.51.100.10:9001 -s rr; " +
                "-a -t 198.51.100.10:9001 -r 10.1.0.11:9001 -m -w 1; left to control: 1 service");
    }

    @Test
    void shouldDeleteAFileServiceTheFileNoLongerDeclaresButNotOneOfControl() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        ctl(conductor, "-A -u 198.51.100.20:53 -s rr");

        assertThat(reload(conductor, "interface eth0\nworkers 1\n"))
            .isEqualTo("1 change: -D -t 198.51.100.10:9001; left to control: 1 service");
        assertThat(conductor.table().find(FILE)).isNull();
        assertThat(conductor.table().find(CONTROL)).isNotNull();
    }

    @Test
    void shouldTakeOverAServiceOfControlThatTheFileStartsDeclaringWithItsConnections() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        ctl(conductor, "-A -u 198.51.100.20:53 -s rr");
        ctl(conductor, "-a -u 198.51.100.20:53 -r 10.1.0.21:53 -m -w 1");
        final VirtualService service = conductor.table().find(CONTROL);
        final RealServer server = service.servers()[0];
        server.bindConnection(false);
        final String declared = BOX + "-A -u 198.51.100.20:53 -s rr\n-a -u 198.51.100.20:53 -r 10.1.0.21:53 -m -w 2\n";

        assertThat(reload(conductor, declared)).isEqualTo("2 changes: taken over from control: -u " +
            "198.51.100.20:53; -e -u 198.51.100.20:53 -r 10.1.0.21:53 -m -w 2");

        assertThat(conductor.table().find(CONTROL)).isSameAs(service);
        assertThat(service.servers()).containsExactly(server);
        assertThat(server.weight()).isEqualTo(2);
        assertThat(server.activeConnections()).isEqualTo(1);
        assertThat(reload(conductor, declared)).isEqualTo("no change");
        assertThat(reload(conductor, BOX)).as("the file's now").isEqualTo("1 change: -D -u 198.51.100.20:53");
    }

    @Test
    void shouldLeaveAFileServiceThatCtlDeletedAndCreatedAgainToControl() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        ctl(conductor, "-D -t 198.51.100.10:9001");
        ctl(conductor, "-A -t 198.51.100.10:9001 -s wlc");

        assertThat(reload(conductor, "interface eth0\nworkers 1\n")).isEqualTo("no change; left to control: 1 service");
        assertThat(conductor.table().find(FILE)).isNotNull();
    }

    @Test
    void shouldRefuseAReloadWhoseServicesAndControlsExceedTheServiceSlotsAndChangeNothing() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        for (int i = 0; i < 7; i++)
        {
            ctl(conductor, "-A -u 198.51.100." + (20 + i) + ":53 -s rr");
        }
        final Before before = new Before(conductor);

        assertThatThrownBy(() -> reload(conductor, BOX + "-A -t 198.51.100.11:9001 -s rr\n"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(directory.resolve("jvs.conf") + ": 9 virtual services after this reload (the file's 2 and " +
                "7 left to control): jvs holds 8 (nothing was changed)");

        before.assertUnchanged(conductor);
        assertThat(reload(conductor, BOX)).isEqualTo("no change; left to control: 7 services");
    }

    @Test
    void shouldRefuseAReloadWhoseServersAndControlsExceedTheServerSlotsAndChangeNothing() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        ctl(conductor, "-A -u 198.51.100.20:53 -s rr");
        for (int i = 0; i < 14; i++)
        {
            ctl(conductor, "-a -u 198.51.100.20:53 -r 10.1.0." + (100 + i) + ":53 -m -w 1");
        }
        final Before before = new Before(conductor);

        assertThatThrownBy(() -> reload(conductor, BOX + "-a -t 198.51.100.10:9001 -r 10.1.0.12:9001 -m -w 1\n"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(directory.resolve("jvs.conf") + ": 16 real servers after this reload (the file's 2 and 14 " +
                "of services left to control): jvs holds 15 (nothing was changed)");

        before.assertUnchanged(conductor);
    }

    @Test
    void shouldCountTheSlotOfARemovedServerConnectionsStillCountOn() throws Exception
    {
        final Conductor conductor = conductor(BOX);
        ctl(conductor, "-A -u 198.51.100.20:53 -s rr");
        for (int i = 0; i < 13; i++)
        {
            ctl(conductor, "-a -u 198.51.100.20:53 -r 10.1.0." + (100 + i) + ":53 -m -w 1");
        }
        conductor.table().find(CONTROL).find(IpAddress.parse("10.1.0.100"), 53).bindConnection(false);
        ctl(conductor, "-d -u 198.51.100.20:53 -r 10.1.0.100:53");
        final Before before = new Before(conductor);
        final String twoMore = BOX + "-a -t 198.51.100.10:9001 -r 10.1.0.12:9001 -m -w 1\n" +
            "-a -t 198.51.100.10:9001 -r 10.1.0.13:9001 -m -w 1\n";

        assertThatThrownBy(() -> reload(conductor, twoMore))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(directory.resolve("jvs.conf") + ": 15 real servers after this reload (the file's 3 and 12 " +
                "of services left to control), and 1 slot still held for removed ones (their connections, or " +
                "workers on an older snapshot): jvs holds 15 (nothing was changed)");
        before.assertUnchanged(conductor);

        assertThat(reload(conductor, BOX + "-a -t 198.51.100.10:9001 -r 10.1.0.12:9001 -m -w 1\n"))
            .as("one more fits").isEqualTo("1 change: -a -t 198.51.100.10:9001 -r 10.1.0.12:9001 -m -w 1; " +
                "left to control: 1 service");
    }

    /** What a refused reload must leave as it was: the table's objects, the snapshot, the file's services. */
    private static final class Before
    {
        private final java.util.List<VirtualService> services;
        private final java.util.List<RealServer> servers;
        private final io.jvs.core.pipeline.DataPlane snapshot;
        private final Set<ServiceKey> fileServices;
        private final JvsConfig configuration;

        Before(final Conductor conductor)
        {
            services = java.util.List.copyOf(conductor.table().services());
            servers = conductor.table().allServers();
            snapshot = conductor.current();
            fileServices = Set.copyOf(conductor.fileServices());
            configuration = conductor.configuration();
        }

        void assertUnchanged(final Conductor conductor)
        {
            assertThat(conductor.table().services()).containsExactlyElementsOf(services);
            assertThat(conductor.table().allServers()).containsExactlyElementsOf(servers);
            assertThat(conductor.current()).isSameAs(snapshot);
            assertThat(conductor.fileServices()).containsExactlyInAnyOrderElementsOf(fileServices);
            assertThat(conductor.configuration()).isSameAs(configuration);
        }
    }

    /** Applies an ipvsadm command line as the control socket does, which must take it. */
    private static void ctl(final Conductor conductor, final String line)
    {
        assertThat(new IpvsBackend(null, KernelChecks.Limits.NONE, 1024).change(conductor, RuleParser.parse(line)))
            .as(line).isNull();
    }

    private Conductor conductor(final String text) throws Exception
    {
        final Path file = directory.resolve("start.conf");
        Files.writeString(file, text);
        final JvsConfig config = JvsConfig.load(file);
        final ServiceTable table = config.serviceTable(config.schedulerSettings(Daemon.workerCount(config)));
        final TopologySource topology = new EveryServerNextDoor();
        final DataPlaneBuilder builder = new DataPlaneBuilder(8, 16);
        final ConnectionTimeouts timeouts = config.connectionTimeouts();
        final DataPlanePublisher publisher = new DataPlanePublisher(Conductor.firstSnapshot(table, builder, topology,
            timeouts, config.settings(), config.markRules()));
        return new Conductor(table, builder, publisher, topology, new DataPlaneMaps(null), timeouts,
            config.settings(), config.markRules(), config);
    }

    private String reload(final Conductor conductor, final String text) throws Exception
    {
        final Path file = directory.resolve("jvs.conf");
        Files.writeString(file, text);
        return Reload.apply(conductor, file);
    }

    /** One port, and every real server a neighbour on it: a reload that adds servers waits for no next hop. */
    static final class EveryServerNextDoor implements TopologySource
    {
        @Override
        public Topology topology(final Collection<IpAddress> servers)
        {
            final Topology.Builder topology = new Topology.Builder()
                .port(0, 0x02_00_00_00_00_01L, 1500, IpAddress.parse("10.1.0.1"), null);
            for (final IpAddress server : servers)
            {
                topology.neighbour(server, 0, 0x02_00_00_00_01_00L | (server.v4() & 0xFF));
            }
            return topology.build();
        }

        @Override
        public boolean poll(final long nowNs)
        {
            return false;
        }

        @Override
        public void resolve(final IpAddress address, final long nowNs)
        {
        }

        @Override
        public void reconfigure(final JvsConfig config)
        {
        }

        @Override
        public Set<IpAddress> localAddresses()
        {
            return Set.of();
        }

        @Override
        public void close()
        {
        }
    }
}
