package io.jvs.forwarder.daemon.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The daemon while the box around it misbehaves, as an operator of IPVS would try it: a device of its own goes down
 * and up under it, is deleted or takes another MAC; someone removes its control socket, or starts it a second time. Root only (namespaces, XDP), as CI runs.
 */
class DaemonFaultsTest
{
    private static final int PORT = 8080;
    /** An idle worker sleeps in poll(2) for at most 100 ms: about ten sleeps a second, a spinning one millions. */
    private static final long MOST_SLEEPS_IN_A_SECOND = 100;
    private static final Duration STATUS_WAIT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void shouldSleepAgainAndForwardAfterItsPacketSocketsDeviceWentDownAndUp() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dfflap").realServers(1).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm("afpacket") + natService(topology)))
            {
                assertForwards(topology, daemon, 2);

                Netns.ip(topology.directorNamespace(), "link", "set", "dev", LbTopology.DIRECTOR_SERVER_DEVICE,
                    "down");
                daemon.awaitLog(" warning interface ls (port 1): down", Duration.ofSeconds(5));
                Netns.ip(topology.directorNamespace(), "link", "set", "dev", LbTopology.DIRECTOR_SERVER_DEVICE, "up");
                daemon.awaitLog(" info interface ls (port 1): up", Duration.ofSeconds(5));
                // The worker reads the ENETDOWN in its first sleep after the down, and sleeps from then on.
                awaitStatus(daemon, "ENETDOWN read from the packet socket",
                    status -> status.get("worker.0.socket-errors") > 0);

                final long before = daemon.status().get("worker.0.sleeps");
                Thread.sleep(1000);
                assertThat(daemon.status().get("worker.0.sleeps") - before).as("the worker's sleeps in a second: it " +
                    "spins on the socket's error otherwise").isLessThan(MOST_SLEEPS_IN_A_SECOND);
                assertForwards(topology, daemon, 2);
            }
        }
    }

    @Test
    void shouldSayADeviceOfItsOwnWasDeletedKeepAnsweringAndStopCleanly() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dfdel").realServers(1).ipv6(false).build())
        {
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm() + natService(topology)))
            {
                Netns.ip(topology.directorNamespace(), "link", "del", "dev", LbTopology.DIRECTOR_CLIENT_DEVICE);

                assertThat(daemon.awaitLog("interface lc (port 0) was removed", Duration.ofSeconds(5)))
                    .contains(" error ").endsWith("nothing is received or sent on it until a device of that name is " +
                        "made again");
                // Once asleep, an idle worker sleeps from then on: a second's count of its sleeps means something.
                final long removed = daemon.status().get("worker.0.sleeps");
                awaitStatus(daemon, "the worker sleeps", status -> status.get("worker.0.sleeps") > removed);
                final long before = daemon.status().get("worker.0.sleeps");
                Thread.sleep(1000);
                assertThat(daemon.status().get("worker.0.sleeps") - before).isLessThan(MOST_SLEEPS_IN_A_SECOND);

                daemon.signal("TERM");
                assertThat(daemon.awaitExit(Duration.ofSeconds(20))).as(() -> String.join("\n", daemon.log()))
                    .isZero();
                assertThat(Netns.ip(topology.directorNamespace(), "-d", "link")).doesNotContain("xdp")
                    .doesNotContain("jvs0").doesNotContain("jvs1");
                assertThat(daemon.control()).doesNotExist();
            }
        }
    }

    /**
     * What ifupdown does to a VLAN or a bond at ifdown and ifup, and a container runtime to a veth: the server-side
     * device is deleted and made again under its name, wired, addressed and brought up as the topology did it. IPVS
     * goes on forwarding over it; so must the daemon, without a restart, its connections and counts kept.
     */
    @ParameterizedTest
    @CsvSource({"afxdp xdp-mode drv, 1", "afpacket, 2"})
    void shouldOpenItsPortsAgainOnADeviceDeletedAndMadeAgainUnderItsName(final String port, final String workers)
        throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dfagain").realServers(1).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm(port, workers) + natService(topology)))
            {
                assertForwards(topology, daemon, 4);
                final long framesBefore = frames(daemon.status());

                final String device = LbTopology.DIRECTOR_SERVER_DEVICE;
                // Four times: each replaced port's chunks must come back, or the UMEM its worker shares with the
                // other port runs dry after a ring or two.
                for (int again = 0; again < 4; again++)
                {
                    final int before = ifindex(topology, device);
                    Netns.ip(topology.directorNamespace(), "link", "del", "dev", device);
                    daemon.awaitLog("interface " + device + " (port 1) was removed", Duration.ofSeconds(5));
                    final List<String> wiring = new ArrayList<>(Wiring.port("pl", topology.directorNamespace(),
                        device, 1500));
                    Netns.ipBatch(topology.serverSwitchNamespace(), wiring);
                    Netns.ipBatch(topology.directorNamespace(), Wiring.addresses(device, "172.16.0.1/24", null));

                    assertThat(daemon.awaitLog(" info interface " + device + " was made again (ifindex " + before +
                        " -> " + ifindex(topology, device) + ")", Duration.ofSeconds(5)))
                        .endsWith(": its ports are open again");
                    assertForwards(topology, daemon, 4);
                }
                assertThat(frames(daemon.status())).as("the workers' counts go on").isGreaterThan(framesBefore);
                if (port.startsWith("afxdp"))
                {
                    assertThat(daemon.status().get("chunks-reclaimed")).as("the old sockets' chunks back in the UMEM")
                        .isPositive();
                    assertThat(Netns.ip(topology.directorNamespace(), "-d", "link", "show", "dev", device))
                        .as("the program attached to the new device").contains("xdp");
                }
            }
        }
    }

    /**
     * The client-side device made again with {@code vip-arp on}: the VIP announcer's sockets, bound to the removed
     * device, follow the new one, so the clients' ARP for the VIP is answered again (from its new MAC).
     */
    @Test
    void shouldAnswerForItsVipsOnAClientDeviceMadeAgainWithVipArp() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dfvagain").realServers(1).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String vip = topology.vip4().getHostAddress();
            topology.inNamespace(topology.clientNamespace(), "ip", "route", "replace", vip + "/32", "dev",
                LbTopology.CLIENT_DEVICE);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm() + "vip-arp on\n" + natService(topology)))
            {
                assertForwards(topology, daemon, 2);

                final String device = LbTopology.DIRECTOR_CLIENT_DEVICE;
                Netns.ip(topology.directorNamespace(), "link", "del", "dev", device);
                daemon.awaitLog("interface " + device + " (port 0) was removed", Duration.ofSeconds(5));
                Netns.ipBatch(topology.clientSwitchNamespace(), Wiring.port("pl", topology.directorNamespace(),
                    device, 1500));
                Netns.ipBatch(topology.directorNamespace(), Wiring.addresses(device, "10.0.0.1/24", null));
                daemon.awaitLog(" info interface " + device + " was made again (ifindex ", Duration.ofSeconds(5));
                final String mac = Netns.mac(topology.directorNamespace(), device);

                Netns.ip(topology.clientNamespace(), "neigh", "flush", "dev", LbTopology.CLIENT_DEVICE);
                assertForwards(topology, daemon, 2);
                assertThat(Netns.ip(topology.clientNamespace(), "neigh", "show", vip))
                    .as("the VIP answered from the new device's MAC").contains(mac);
            }
        }
    }

    /**
     * Waits until the status shows the condition. An idle worker sleeps only after 16 spins and 128 sched_yields, and
     * on a busy core each yield can wait out the other task's time slice: with a busy loop on each core, the worker
     * was still yielding more than 1.5 s after its last frame, so a second's count of its sleeps was 0 whether it
     * slept well or spun on a socket's error, and the ENETDOWN was not read yet.
     */
    private static void awaitStatus(final DaemonProcess daemon, final String what,
        final Predicate<Map<String, Long>> condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + STATUS_WAIT.toNanos();
        Map<String, Long> status = daemon.status();
        while (!condition.test(status))
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError(what + " not seen in " + STATUS_WAIT + ": " + new TreeMap<>(status) +
                    "\n" + String.join("\n", daemon.log()));
            }
            Thread.sleep(20);
            status = daemon.status();
        }
    }

    /**
     * From {@code ip -j}, by pattern: {@code ip} may print "Error: Peer netns reference is invalid." first, and still
     * succeed, when a namespace is being made or removed as it names the veth peer's (another test's, at the same
     * time); this test read that word as the ifindex once in 8 runs beside another test class.
     */
    private static int ifindex(final LbTopology topology, final String device)
    {
        return Netns.ifindex(topology.directorNamespace(), device);
    }

    private static long frames(final Map<String, Long> status)
    {
        return status.entrySet().stream().filter(e -> e.getKey().matches("worker\\.\\d+\\.frames"))
            .mapToLong(Map.Entry::getValue).sum();
    }

    @Test
    void shouldMakeTheControlSocketAgainAtAReloadWhenSomeoneRemovedIt() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dfsock").realServers(1).ipv6(false).build())
        {
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm("afpacket") + natService(topology)))
            {
                Files.delete(daemon.control());

                daemon.signal("HUP");

                assertThat(daemon.awaitLog("had been removed", Duration.ofSeconds(10))).contains(" warning ")
                    .endsWith("reload (SIGHUP): control socket " + daemon.control() + " had been removed: made again");
                daemon.awaitLog("info reload (SIGHUP): no change", Duration.ofSeconds(10));
                assertThat(daemon.status()).containsEntry("workers", 1L);
                daemon.signal("TERM");
                assertThat(daemon.awaitExit(Duration.ofSeconds(20))).isZero();
                assertThat(daemon.control()).doesNotExist();
            }
        }
    }

    @Test
    void shouldLetTheHostRefuseAConnectionAsBeforeAfterTheInterfacesMacChanged() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dfmac").realServers(1).ipv6(false).build())
        {
            topology.inNamespace(topology.clientNamespace(), "ethtool", "-K", LbTopology.CLIENT_DEVICE, "tx", "off");
            topology.inNamespace(topology.directorNamespace(), "ip", "addr", "add",
                topology.vip4().getHostAddress() + "/32", "dev", "lo");
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm() + natService(topology)))
            {
                assertRefusedAtOnce(topology, 9999);

                Netns.ip(topology.directorNamespace(), "link", "set", "dev", LbTopology.DIRECTOR_CLIENT_DEVICE,
                    "address", "02:00:00:00:aa:01");
                daemon.awaitLog("interface lc (port 0): mac ", Duration.ofSeconds(5));
                Netns.ip(topology.clientNamespace(), "neigh", "flush", "dev", LbTopology.CLIENT_DEVICE);

                assertRefusedAtOnce(topology, 9998);
                assertThat(Netns.mac(topology.directorNamespace(), "jvs0")).as("the TAP's MAC").isEqualTo(
                    "02:00:00:00:aa:01");
                assertThat(daemon.status().get("host-passed")).as("through the TAP").isPositive();
            }
        }
    }

    @Test
    void shouldAnnounceAndAnswerForItsVipsFromTheInterfacesNewMacWithVipArp() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dfvmac").realServers(1).ipv6(false).build())
        {
            final String vip = topology.vip4().getHostAddress();
            topology.inNamespace(topology.clientNamespace(), "ip", "route", "replace", vip + "/32", "dev",
                LbTopology.CLIENT_DEVICE);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm() + "vip-arp on\n" + natService(topology)))
            {
                assertThat(LbTopology.callIn(topology.clientNamespace(), () -> topology.vip4().isReachable(2000)))
                    .isTrue();

                Netns.ip(topology.directorNamespace(), "link", "set", "dev", LbTopology.DIRECTOR_CLIENT_DEVICE,
                    "address", "02:00:00:00:aa:02");
                daemon.awaitLog("interface lc (port 0): mac ", Duration.ofSeconds(5));

                final long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
                String entry = Netns.ip(topology.clientNamespace(), "neigh", "show", vip);
                while (!entry.contains("02:00:00:00:aa:02") && System.nanoTime() < deadline)
                {
                    Thread.sleep(50);
                    entry = Netns.ip(topology.clientNamespace(), "neigh", "show", vip);
                }
                assertThat(entry).as("the client's entry, updated by the announcement").contains("02:00:00:00:aa:02");
                Netns.ip(topology.clientNamespace(), "neigh", "flush", "dev", LbTopology.CLIENT_DEVICE);
                assertThat(LbTopology.callIn(topology.clientNamespace(), () -> topology.vip4().isReachable(2000)))
                    .isTrue();
                assertThat(Netns.ip(topology.clientNamespace(), "neigh", "show", vip)).as("answered from the new MAC")
                    .contains("02:00:00:00:aa:02");
            }
        }
    }

    /** A SYN to a VIP port without a service, passed to the host (the VIP is on its lo), is refused with a reset. */
    private static void assertRefusedAtOnce(final LbTopology topology, final int port)
    {
        final long started = System.nanoTime();
        assertThatThrownBy(() -> LbTopology.callIn(topology.clientNamespace(), () ->
        {
            try (Socket socket = new Socket())
            {
                socket.connect(new InetSocketAddress(topology.vip4(), port), 3000);
            }
            return null;
        })).hasRootCauseInstanceOf(ConnectException.class);
        assertThat((System.nanoTime() - started) / 1_000_000).as("refused, not timed out").isLessThan(2500);
    }

    @Test
    void shouldRefuseASecondDaemonWithTheSameFileInOneLineBeforeTouchingTheFirstsInterfaces() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dftwice").realServers(1).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + natService(topology);
            try (DaemonProcess first = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final String links = Netns.ip(topology.directorNamespace(), "-d", "link");
                final Object socket = Files.readAttributes(first.control(), BasicFileAttributes.class).fileKey();

                try (DaemonProcess second = DaemonProcess.launch(topology.directorNamespace(), directory, config))
                {
                    assertThat(second.awaitExit(Duration.ofSeconds(20))).as(() -> String.join("\n", second.log()))
                        .isEqualTo(2);
                    assertThat(second.log()).singleElement().asString().contains(" error ")
                        .endsWith(directory.resolve("jvs.conf") + ":1: control " + first.control() +
                            ": another jvs daemon answers on this control socket (is it already running with this " +
                            "file?)");
                }

                assertThat(Netns.ip(topology.directorNamespace(), "-d", "link")).as("the first's XDP programs and TAPs")
                    .isEqualTo(links);
                assertThat(Files.readAttributes(first.control(), BasicFileAttributes.class).fileKey()).isEqualTo(socket);
                assertForwards(topology, first, 2);
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
}
