package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Debian's keepalived, unmodified, configures a running daemon through {@code tools/jvs with-ipvs} and keeps it in
 * step with its TCP_CHECKs on three NAT real servers: the service and servers appear as its virtual_server block
 * says; when one server's listener goes away its check takes it out within the check's retries times delay_loop
 * (and ipvsadm's listing shows it), transfers already running to the other two finish whole, new connections
 * avoid it while the others keep serving, and when the listener is back keepalived puts the server back and it
 * takes connections again; a second block (DR, wlc, persistence, a MISC_CHECK) appears as its lines say.
 * A reload of the daemon's file that adds a mark rule (as a {@code virtual_server fwmark} needs) and changes a
 * timeout leaves keepalived's virtual servers and its {@code lvs_timeouts} alone: the file never declared them.
 * Debian's ipvsadm through the same library lists what ctl lists.
 */
class DaemonKeepalivedTest
{
    private static final int PORT = 8080;
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final int DELAY_LOOP_S = 1;
    private static final int RETRY = 1;

    @TempDir
    Path directory;

    @BeforeAll
    static void buildTheLibrary() throws Exception
    {
        PreloadLibrary.build();
    }

    @Test
    void shouldFollowKeepalivedsHealthChecksOnTheLiveDaemon() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("kalive").mode(Mode.NAT).realServers(3).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            final List<TcpDigestServer> listeners = new ArrayList<>(topology.startTcpServers(PORT, false));
            final String vip = topology.vip4().getHostAddress();
            final StringBuilder servers = new StringBuilder();
            for (final Host server : topology.realServers())
            {
                servers.append("""
                        real_server %s %d {
                            weight 1
                            TCP_CHECK {
                                connect_timeout 1
                                retry %d
                                delay_before_retry 1
                            }
                        }
                    """.formatted(server.ipv4().getHostAddress(), PORT, RETRY));
            }
            final Path conf = Files.writeString(directory.resolve("keepalived.conf"), """
                global_defs {
                    router_id jvs_daemon_test
                    lvs_timeouts udp 77
                }
                virtual_server %s %d {
                    delay_loop %d
                    lb_algo rr
                    lb_kind NAT
                    protocol TCP
                %s}
                virtual_server %s 8443 {
                    delay_loop 1
                    lb_algo wlc
                    lb_kind DR
                    persistence_timeout 60
                    protocol TCP
                    real_server %s 8443 {
                        weight 2
                        MISC_CHECK {
                            misc_path "/bin/true"
                        }
                    }
                }
                """.formatted(vip, PORT, DELAY_LOOP_S, servers, vip,
                    topology.realServers().get(0).ipv4().getHostAddress()));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory,
                DaemonConfigs.twoArm()))
            {
                final Path log = directory.resolve("keepalived.log");
                final Process keepalived = new ProcessBuilder("ip", "netns", "exec", topology.directorNamespace(),
                    ROOT.resolve("tools/jvs").toString(), "with-ipvs", "--socket", daemon.control().toString(), "--",
                    "/usr/sbin/keepalived", "-n", "-l", "-D", "-C", "-f", conf.toString(),
                    "-p", directory.resolve("keepalived.pid").toString(),
                    "-c", directory.resolve("checkers.pid").toString(),
                    "-r", directory.resolve("vrrp.pid").toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
                try
                {
                    final InetSocketAddress service = new InetSocketAddress(topology.vip4(), PORT);
                    awaitListing(daemon, log, Duration.ofSeconds(30), listing -> topology.realServers().stream()
                        .allMatch(server -> listing.contains("  -> " + server.ipv4().getHostAddress() + ":" + PORT)));
                    // The second block: DR, wlc, persistence, a MISC_CHECK, as its lines say.
                    awaitListing(daemon, log, Duration.ofSeconds(20), listing -> listing.contains(
                        "TCP  " + vip + ":8443 wlc persistent 60\n  -> " +
                        topology.realServers().get(0).ipv4().getHostAddress() + ":8443"));
                    assertThat(listing(daemon)).containsPattern("8443\\s+Route\\s+2\\s");
                    assertThat(DaemonConfigs.byServer(load(topology, service, 30))).as("all three serve")
                        .containsOnlyKeys("rs1", "rs2", "rs3");
                    assertThat(ctl(daemon, "-L", "--timeout")).isEqualTo("Timeout (tcp tcpfin udp): 900 120 77\n");

                    // A reload for a mark rule and a timeout of the file: keepalived's state stays.
                    final String before = listing(daemon);
                    daemon.rewrite(directory, DaemonConfigs.twoArm() + "mark 5 dst 203.0.113.0/24\n" +
                        "timeout tcpfin 60\n");
                    daemon.signal("HUP");
                    assertThat(daemon.awaitLog(" info reload (SIGHUP): ", Duration.ofSeconds(10))).endsWith(
                        " info reload (SIGHUP): 2 changes: mark rules: 1 added; timeouts tcp 900 tcpfin 60 udp 77; " +
                        "left to control: 2 services, timeouts udp 77");
                    assertThat(listing(daemon).replaceAll("\\d+\\s+\\d+\\n", "\n"))
                        .isEqualTo(before.replaceAll("\\d+\\s+\\d+\\n", "\n"));
                    assertThat(ctl(daemon, "-L", "--timeout")).isEqualTo("Timeout (tcp tcpfin udp): 900 60 77\n");
                    assertThat(DaemonConfigs.byServer(load(topology, service, 30))).as("all three still serve")
                        .containsOnlyKeys("rs1", "rs2", "rs3");

                    // Long transfers, three to each server, still running when rs2's listener goes away: keepalived's
                    // check takes it out, within its retries of delay_loop, and the six to the others go on.
                    final java.util.concurrent.CompletableFuture<List<TcpDigestClient.Connection>> transfers =
                        java.util.concurrent.CompletableFuture.supplyAsync(() -> TcpDigestClient.run(
                            topology.clientNamespace(), TcpDigestClient.Load.of(service, 9, 96L << 20).parallel(9)));
                    Thread.sleep(500);
                    final Host rs2 = topology.realServer("rs2");
                    listeners.get(1).close();
                    final long stopped = System.nanoTime();
                    assertThat(transfers).as("transfers still running when rs2 stopped").isNotDone();
                    awaitListing(daemon, log, Duration.ofSeconds(20),
                        listing -> !listing.contains("  -> " + rs2.ipv4().getHostAddress() + ":" + PORT));
                    final long outMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
                    assertThat(outMs).as("ms until rs2 was taken out")
                        .isLessThan(TimeUnit.SECONDS.toMillis((RETRY + 1L) * (DELAY_LOOP_S + 1) + 5));
                    final List<TcpDigestClient.Connection> established = transfers.get(120, TimeUnit.SECONDS);
                    assertThat(established).filteredOn(TcpDigestClient.Connection::ok)
                        .as("the transfers to rs1 and rs3 finished whole").hasSize(6)
                        .allSatisfy(connection -> assertThat(connection.serverIdentity()).isIn("rs1", "rs3"))
                        .allSatisfy(connection -> assertThat(connection.bytesConfirmed()).isEqualTo(96L << 20));
                    final List<TcpDigestClient.Connection> without = load(topology, service, 20);
                    assertThat(TcpDigestClient.failures(without)).isEmpty();
                    assertThat(DaemonConfigs.byServer(without)).as("new connections avoid rs2")
                        .containsOnlyKeys("rs1", "rs3");

                    // Its listener is back: so is it.
                    topology.register(TcpDigestServer.start(rs2.namespace(), rs2.name(), PORT, false));
                    awaitListing(daemon, log, Duration.ofSeconds(20),
                        listing -> listing.contains("  -> " + rs2.ipv4().getHostAddress() + ":" + PORT));
                    assertThat(DaemonConfigs.byServer(load(topology, service, 30))).containsKey("rs2");

                    // Debian's ipvsadm, through the same library, lists the same as ctl.
                    final Process ipvsadm = new ProcessBuilder(ROOT.resolve("tools/jvs").toString(), "with-ipvs",
                        "--socket", daemon.control().toString(), "--", "/usr/sbin/ipvsadm", "-L", "-n").start();
                    final String debian = new String(ipvsadm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertThat(ipvsadm.waitFor(30, TimeUnit.SECONDS)).isTrue();
                    assertThat(ipvsadm.exitValue()).isZero();
                    assertThat(debian).isEqualTo(listing(daemon));
                }
                finally
                {
                    keepalived.destroy();
                    if (!keepalived.waitFor(20, TimeUnit.SECONDS))
                    {
                        keepalived.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                }
            }
        }
    }

    private static List<TcpDigestClient.Connection> load(final LbTopology topology, final InetSocketAddress service,
        final int connections) throws Exception
    {
        return TcpDigestClient.run(topology.clientNamespace(), TcpDigestClient.Load.of(service, connections, 4096)
            .parallel(3));
    }

    private static String listing(final DaemonProcess daemon) throws IOException
    {
        return ctl(daemon, "-L", "-n");
    }

    private static String ctl(final DaemonProcess daemon, final String... arguments) throws IOException
    {
        final ControlResponse response = ControlClient.exchange(daemon.control(),
            new ControlRequest.Ipvsadm(List.of(arguments), new byte[0]), Duration.ofSeconds(10));
        assertThat(response).isInstanceOf(ControlResponse.Result.class);
        return new String(((ControlResponse.Result)response).output(), StandardCharsets.UTF_8);
    }

    private static void awaitListing(final DaemonProcess daemon, final Path log, final Duration timeout,
        final java.util.function.Predicate<String> condition) throws Exception
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        String last = "";
        while (System.nanoTime() - deadline < 0)
        {
            last = listing(daemon);
            if (condition.test(last))
            {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("not within " + timeout + "; ipvsadm -L -n:\n" + last + "\nkeepalived:\n" +
            (Files.exists(log) ? Files.readString(log) : "") + "\ndaemon:\n" + String.join("\n", daemon.log()));
    }
}
