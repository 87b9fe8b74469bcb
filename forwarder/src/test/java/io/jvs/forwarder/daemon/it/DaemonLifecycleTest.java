package io.jvs.forwarder.daemon.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon as a process an operator starts, stops, kills and reloads: a refused configuration touches nothing,
 * a stop undoes everything, a kill leaves no program steering frames to nobody and no obstacle to the next
 * start, and a refused reload leaves the running daemon forwarding. Root only (namespaces, XDP), as CI runs.
 */
class DaemonLifecycleTest
{
    private static final int PORT = 8080;
    private static final Duration EXIT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void shouldRefuseABadLineWithItsFileAndLineAndTouchNothing() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dlbad").realServers(1).build())
        {
            // Line 1 is the control statement DaemonProcess writes; the bad line is line 3.
            final String config = DaemonConfigs.twoArm().replace("workers 1\n", "workers 0\n") + natService(topology);
            try (DaemonProcess daemon = DaemonProcess.launch(topology.directorNamespace(), directory, config))
            {
                assertThat(daemon.awaitExit(EXIT)).as(String.join("\n", daemon.log())).isEqualTo(2);
                assertThat(daemon.log()).anySatisfy(line ->
                    assertThat(line).contains(" error ").contains(directory.resolve("jvs.conf") + ":4: ")
                        .contains("workers"));
                assertUntouched(topology, daemon);
            }
        }
    }

    @Test
    void shouldRefuseAnUnknownInterfaceNamingIt() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dlnoif").realServers(1).build())
        {
            final String config = DaemonConfigs.twoArm().replace(LbTopology.DIRECTOR_SERVER_DEVICE + " ",
                "nosuch9 ") + natService(topology);
            try (DaemonProcess daemon = DaemonProcess.launch(topology.directorNamespace(), directory, config))
            {
                assertThat(daemon.awaitExit(EXIT)).as(String.join("\n", daemon.log())).isEqualTo(2);
                assertThat(daemon.log()).anySatisfy(line ->
                    assertThat(line).contains(" error ").contains(":3: ").contains("nosuch9"));
                assertUntouched(topology, daemon);
            }
        }
    }

    @Test
    void shouldRefuseAControlPathThatNamesAnotherFileAndLeaveTheFileAsItWas() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dlctl").realServers(1).build())
        {
            // DaemonProcess's control statement (line 1) names jvs.sock: here a file of someone else's.
            final Path control = directory.resolve("jvs.sock");
            Files.writeString(control, "precious\n");
            try (DaemonProcess daemon = DaemonProcess.launch(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm() + natService(topology)))
            {
                assertThat(daemon.awaitExit(EXIT)).as(String.join("\n", daemon.log())).isEqualTo(2);
                assertThat(daemon.log()).anySatisfy(line -> assertThat(line).contains(" error ")
                    .contains(directory.resolve("jvs.conf") + ":1: control " + control).contains("not a socket"));
                assertThat(Netns.ip(topology.directorNamespace(), "-d", "link")).doesNotContain("xdp");
                assertThat(control).hasContent("precious");
            }
        }
    }

    @Test
    void shouldRefuseWorkersPinnedToACpuThisProcessCannotRunOn() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dlcpu").realServers(1).build())
        {
            final String config = DaemonConfigs.twoArm().replace("workers 1\n", "workers 1 cpus 4095\n") +
                natService(topology);
            try (DaemonProcess daemon = DaemonProcess.launch(topology.directorNamespace(), directory, config))
            {
                assertThat(daemon.awaitExit(EXIT)).as(String.join("\n", daemon.log())).isEqualTo(2);
                assertThat(daemon.log()).anySatisfy(line -> assertThat(line).contains(" error ")
                    .contains(directory.resolve("jvs.conf") + ":4: workers: cpus: CPU 4095 is not one this process " +
                        "may run on"));
                assertUntouched(topology, daemon);
            }
        }
    }

    @Test
    void shouldUndoEverythingOnSigterm() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dlterm").realServers(1).build())
        {
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm() + natService(topology)))
            {
                final String links = Netns.ip(topology.directorNamespace(), "-d", "link");
                assertThat(links).contains("xdp").contains("jvs0").contains("jvs1");
                assertThat(daemon.control()).exists();

                daemon.signal("TERM");

                assertThat(daemon.awaitExit(EXIT)).as(String.join("\n", daemon.log())).isZero();
                assertThat(daemon.log()).anySatisfy(line -> assertThat(line).contains(" info stopped"));
                assertUntouched(topology, daemon);
            }
        }
    }

    @Test
    void shouldLeaveNoProgramAfterSigkillAndStartAgainOverTheStaleSocket() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dlkill").realServers(2).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + natService(topology);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                daemon.signal("KILL");
                assertThat(daemon.awaitExit(EXIT)).isEqualTo(128 + 9);
            }
            // The programs go with the links, the links with the process's descriptors.
            final long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            String links = Netns.ip(topology.directorNamespace(), "-d", "link");
            while (links.contains("xdp") && System.nanoTime() < deadline)
            {
                Thread.sleep(50);
                links = Netns.ip(topology.directorNamespace(), "-d", "link");
            }
            assertThat(links).doesNotContain("xdp").doesNotContain("jvs0").doesNotContain("jvs1");
            assertThat(directory.resolve("jvs.sock")).as("the killed daemon's socket file stays behind").exists();

            try (DaemonProcess again = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                assertThat(again.status()).containsEntry("workers", 1L);
                assertForwards(topology, again, 4);
                again.signal("TERM");
                assertThat(again.awaitExit(EXIT)).isZero();
            }
        }
    }

    @Test
    void shouldReloadOnSighupWhenStartedUnderNohup() throws Exception
    {
        // nohup starts the daemon with SIGHUP ignored, and the JVM then catches nothing: a reload by signal would
        // silently do nothing, as this suite's own run under nohup once showed.
        try (LbTopology topology = LbTopology.builder("dlhup").realServers(1).build())
        {
            final String config = DaemonConfigs.twoArm() + natService(topology);
            try (DaemonProcess daemon = DaemonProcess.startUnderNohup(topology.directorNamespace(), directory,
                config))
            {
                assertThat(daemon.log()).anyMatch(line -> line.contains(" info SIGHUP was ignored when the daemon " +
                    "started (nohup?): it is caught all the same"));
                daemon.rewrite(directory, config.replace(" -w 1\n", " -w 5\n"));

                daemon.signal("HUP");

                assertThat(daemon.awaitLog("info reload (SIGHUP)", Duration.ofSeconds(10))).contains(" -w 5");
            }
        }
    }

    @Test
    void shouldRefuseAReloadWithABadLineAndKeepForwarding() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dlrel").realServers(2).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + natService(topology);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                assertForwards(topology, daemon, 2);
                // The bad line comes after a good change, which must not be applied either.
                daemon.rewrite(directory, config.replace(" -w 1\n", " -w 5\n") + "-a -t nonsense\n");

                daemon.signal("HUP");

                final String refusal = daemon.awaitLog("refused", Duration.ofSeconds(10));
                assertThat(refusal).contains(" error ").contains("reload (SIGHUP) refused, nothing changed")
                    .contains(directory.resolve("jvs.conf") + ":");
                assertThat(daemon.status()).allSatisfy((name, value) ->
                {
                    if (name.startsWith("server.") && name.endsWith(".weight"))
                    {
                        assertThat(value).as(name).isEqualTo(1L);
                    }
                });
                assertForwards(topology, daemon, 4);
                assertThat(daemon.log()).noneMatch(line -> line.contains("info reload"));

                // A file that has gone away is refused with the system's reason, once.
                Files.move(directory.resolve("jvs.conf"), directory.resolve("moved.conf"));
                daemon.signal("HUP");
                assertThat(daemon.awaitLog("no such file", Duration.ofSeconds(10)))
                    .endsWith("reload (SIGHUP) refused, nothing changed: " + directory.resolve("jvs.conf") +
                        ": no such file or directory");
                assertForwards(topology, daemon, 2);

                // A FIFO in its place is refused at once: opening it would block the conductor (control, stop).
                assertThat(new ProcessBuilder("mkfifo", directory.resolve("jvs.conf").toString()).start().waitFor())
                    .isZero();
                daemon.signal("HUP");
                assertThat(daemon.awaitLog("not a regular file", Duration.ofSeconds(10)))
                    .contains("reload (SIGHUP) refused, nothing changed: " + directory.resolve("jvs.conf"));
                assertThat(daemon.status()).containsEntry("workers", 1L);
            }
        }
    }

    private static String natService(final LbTopology topology)
    {
        return DaemonConfigs.natService(topology, PORT);
    }

    private static void assertForwards(final LbTopology topology, final DaemonProcess daemon, final int count)
    {
        DaemonConfigs.assertForwards(topology, daemon, PORT, count);
    }

    /** No XDP program, no TAP of the daemon's in the director's namespace, and no control socket. */
    private static void assertUntouched(final LbTopology topology, final DaemonProcess daemon) throws Exception
    {
        assertThat(Netns.ip(topology.directorNamespace(), "-d", "link")).doesNotContain("xdp")
            .doesNotContain("jvs0").doesNotContain("jvs1");
        assertThat(Files.exists(daemon.control())).as(daemon.control().toString()).isFalse();
    }
}
