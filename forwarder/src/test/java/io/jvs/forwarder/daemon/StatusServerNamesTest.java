package io.jvs.forwarder.daemon;

import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.service.ServiceTable;
import io.jvs.forwarder.config.JvsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status's server names: IPVS keeps a destination per service, so two services sending to the same address and
 * port have two servers with their own counters, and the status must not give both the same name (a script, or the
 * tests' own parser, reading it into a map would keep one of them).
 */
class StatusServerNamesTest
{
    @TempDir
    Path directory;

    @Test
    void shouldNameAServerTwoServicesShareOncePerService() throws Exception
    {
        final Path file = directory.resolve("shared.conf");
        Files.writeString(file, """
            interface eth0
            workers 1
            -A -t 198.51.100.10:80 -s rr
            -a -t 198.51.100.10:80 -r 10.1.0.11:8080 -m -w 1
            -a -t 198.51.100.10:80 -r 10.1.0.12:8080 -m -w 1
            -A -t 198.51.100.10:82 -s rr
            -a -t 198.51.100.10:82 -r 10.1.0.11:8080 -m -w 1
            """);
        final JvsConfig config = JvsConfig.load(file);
        final ServiceTable table = config.serviceTable(config.schedulerSettings(Daemon.workerCount(config)));
        final DataPlane plane = Conductor.firstSnapshot(table, new DataPlaneBuilder(8, 16, null),
            new ReloadTest.EveryServerNextDoor(), config.connectionTimeouts(), config.settings(), config.markRules());

        final String[] names = Status.serverNames(plane);

        assertThat(Arrays.stream(names).filter(Objects::nonNull)).containsExactlyInAnyOrder(
            "server.10.1.0.11:8080@tcp-198.51.100.10:80", "server.10.1.0.12:8080",
            "server.10.1.0.11:8080@tcp-198.51.100.10:82");
    }
}
