package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.stats.TrafficLedger;
import io.jvs.core.stats.TrafficStats;
import io.jvs.forwarder.config.JvsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status's service and server counts belong to the service or server the line names. The workers' counters of a
 * slot run on from one occupant to the next, and a server removed and then added back (a reload alternating the
 * file's servers) is a new server that may take another's freed slot: in a soak the status showed a DNS server
 * added back with 24 MB sent, the counts of the web server that had held its slot, while {@code ipvsadm --stats}
 * showed 0.
 */
class StatusSlotCountsTest
{
    @TempDir
    Path directory;

    @Test
    void shouldCountAServerFromWhenItTookItsSlotNotWhatItsPredecessorCounted() throws Exception
    {
        final Path file = directory.resolve("two.conf");
        Files.writeString(file, """
            interface eth0
            workers 1
            -A -t 198.51.100.10:80 -s wlc
            -a -t 198.51.100.10:80 -r 10.1.0.11:8080 -m -w 1
            -A -u 198.51.100.10:53 -s wlc
            -a -u 198.51.100.10:53 -r 10.1.0.12:53 -m -w 1
            """);
        final JvsConfig config = JvsConfig.load(file);
        final ServiceTable table = config.serviceTable(config.schedulerSettings(Daemon.workerCount(config)));
        final DataPlaneBuilder builder = new DataPlaneBuilder(8, 16, null);
        final DataPlane first = snapshot(config, table, builder);
        final TrafficStats traffic = new TrafficStats(16, 16);
        final TrafficStats[] workers = {traffic};
        final TrafficLedger ledger = new TrafficLedger(workers);
        ledger.observe(first);
        final int web = slotOf(first, "10.1.0.11");
        final int webService = first.serviceOfServer(web);
        for (int i = 0; i < 5; i++)
        {
            traffic.connection(webService, web);
            traffic.framesForwarded(webService, web, 1514);
            traffic.in(webService, web, 1500);
        }
        traffic.publish();
        assertThat(counts(Status.slots(first, workers, ledger))).containsEntry("server.10.1.0.11:8080.connections", 5L)
            .containsEntry("server.10.1.0.11:8080.packets", 5L).containsEntry("server.10.1.0.11:8080.inpkts", 5L);

        // The web server leaves with no connection on it: its slot is free, and the DNS server added next takes it.
        RuleParser.parse("-d -t 198.51.100.10:80 -r 10.1.0.11:8080").applyTo(table);
        snapshot(config, table, builder);
        RuleParser.parse("-a -u 198.51.100.10:53 -r 10.1.0.13:53 -m -w 1").applyTo(table);
        final DataPlane second = snapshot(config, table, builder);
        ledger.observe(second);
        assertThat(slotOf(second, "10.1.0.13")).as("the freed slot is reused").isEqualTo(web);

        final Map<String, Long> status = counts(Status.slots(second, workers, ledger));
        assertThat(status).containsEntry("server.10.1.0.13:53.connections", 0L)
            .containsEntry("server.10.1.0.13:53.packets", 0L).containsEntry("server.10.1.0.13:53.inpkts", 0L)
            .containsEntry("server.10.1.0.13:53.inbytes", 0L);
        assertThat(status).containsEntry("service.tcp-198.51.100.10:80.connections", 5L);

        // -Z restarts ipvsadm's figures, not the status's.
        traffic.connection(second.serviceOfServer(web), web);
        traffic.publish();
        ledger.zeroAll();
        assertThat(counts(Status.slots(second, workers, ledger)))
            .containsEntry("server.10.1.0.13:53.connections", 1L)
            .containsEntry("service.tcp-198.51.100.10:80.connections", 5L);
    }

    private static DataPlane snapshot(final JvsConfig config, final ServiceTable table, final DataPlaneBuilder builder)
    {
        return Conductor.firstSnapshot(table, builder, new ReloadTest.EveryServerNextDoor(),
            config.connectionTimeouts(), config.settings(), config.markRules());
    }

    private static int slotOf(final DataPlane plane, final String address)
    {
        for (int slot = 1; slot < plane.serverSlots(); slot++)
        {
            final RealServer server = plane.server(slot);
            if (server != null && server.address().equals(IpAddress.parse(address)))
            {
                return slot;
            }
        }
        throw new AssertionError("no server " + address);
    }

    private static Map<String, Long> counts(final String text)
    {
        final Map<String, Long> counts = new TreeMap<>();
        for (final String line : text.split("\n"))
        {
            final String[] words = line.split(" ");
            counts.put(words[0], Long.parseLong(words[1]));
        }
        return counts;
    }
}
