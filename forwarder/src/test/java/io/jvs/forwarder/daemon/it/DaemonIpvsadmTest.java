package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ipvsadm's command lines against a running daemon with live traffic, through the control socket as
 * {@code tools/jvs ctl} sends them: a server added to a running service takes new connections, a weight set to 0
 * keeps new connections off a server while -L shows it, a refused command changes nothing and says ipvsadm's
 * words, -c lists the open connections, --stats counts them and -Z zeroes the counts, -S writes the running
 * rules; -d of a server treats its connections as {@code expire_nodest_conn} says, as IPVS does; and a server a
 * service created again takes back counts its --stats from zero, as IPVS's does.
 */
class DaemonIpvsadmTest
{
    private static final int PORT = 5353;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void shouldChangeListAndCountTheRunningServicesLikeIpvsadm() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("ipvsadm").mode(Mode.NAT).realServers(2).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final List<Host> servers = topology.realServers();
            final String vip = DaemonConfigs.endpoint(topology.vip4(), PORT);
            final String rs1 = DaemonConfigs.endpoint(servers.get(0).ipv4(), PORT);
            final String rs2 = DaemonConfigs.endpoint(servers.get(1).ipv4(), PORT);
            final String config = DaemonConfigs.twoArm() + "-A -u " + vip + " -s rr\n-a -u " + vip + " -r " + rs1 +
                " -m -w 1\n";
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final InetSocketAddress service = new InetSocketAddress(topology.vip4(), PORT);
                // Garbage, a request cut in half, and a client that never sends: the daemon keeps serving.
                try (SocketChannel silent = SocketChannel.open(UnixDomainSocketAddress.of(daemon.control())))
                {
                    send(daemon, "GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    final ByteBuffer whole = io.jvs.forwarder.control.ControlProtocol.encode(
                        new ControlRequest.Ipvsadm(List.of("-C"), new byte[0]));
                    send(daemon, java.util.Arrays.copyOf(whole.array(), whole.remaining() / 2));
                    assertThat(silent.isConnected()).isTrue();
                    assertThat(ok(daemon, "-L", "-n")).contains("  -> " + rs1);
                }
                final String listed = ok(daemon, "-L", "-n");
                assertThat(listed).startsWith("IP Virtual Server version 1.2.1 (size=")
                    .contains("UDP  " + vip + " rr").contains("  -> " + rs1).doesNotContain(rs2);
                assertThat(identities(topology, service, 4)).containsOnly("rs1");

                ok(daemon, "-a", "-u", vip, "-r", rs2, "-m", "-w", "1");
                assertThat(ok(daemon, "-L", "-n")).contains("  -> " + rs2);
                assertThat(identities(topology, service, 6)).as("rr over both").containsOnly("rs1", "rs2")
                    .contains("rs1", "rs2");

                ok(daemon, "-e", "-u", vip, "-r", rs1, "-m", "-w", "0");
                assertThat(identities(topology, service, 4)).as("weight 0 takes no new connection")
                    .containsOnly("rs2");

                final ControlResponse.Result duplicate = ipvsadm(daemon, "-a", "-u", vip, "-r", rs2, "-m");
                assertThat(duplicate.status()).isEqualTo(255);
                assertThat(text(duplicate.error())).contains("Destination already exists");
                assertThat(ok(daemon, "-L", "-n")).as("unchanged").contains("  -> " + rs2);

                final String entries = ok(daemon, "-L", "-c", "-n");
                assertThat(entries).startsWith("IPVS connection entries\n");
                assertThat(entries.lines().filter(line -> line.startsWith("UDP ") && line.contains(vip)).count())
                    .as("one entry per client socket").isGreaterThanOrEqualTo(14);

                final String stats = ok(daemon, "-L", "-n", "--stats");
                final String[] serviceLine = stats.lines().filter(line -> line.startsWith("UDP  " + vip)).findFirst()
                    .orElseThrow().trim().split("\\s+");
                assertThat(Long.parseLong(serviceLine[2])).as("Conns").isEqualTo(14);
                assertThat(Long.parseLong(serviceLine[3])).as("InPkts").isEqualTo(14);
                assertThat(Long.parseLong(serviceLine[4])).as("OutPkts").isEqualTo(14);

                final long latencyBefore = daemon.status().get("latency.count");
                assertThat(latencyBefore).as("a latency for every frame sent").isGreaterThanOrEqualTo(28);

                ok(daemon, "-Z");
                final String zeroed = ok(daemon, "-L", "-n", "--stats");
                assertThat(zeroed.lines().filter(line -> line.startsWith("UDP  " + vip)).findFirst().orElseThrow()
                    .trim().split("\\s+")[2]).isEqualTo("0");
                assertThat(daemon.status()).as("-Z zeroes the latency histogram too").containsEntry("latency.count", 0L)
                    .containsEntry("latency.max-ns", 0L);
                assertThat(identities(topology, service, 2)).isNotEmpty();
                assertThat(daemon.status().get("latency.count")).as("counted again from the -Z")
                    .isBetween(2L, latencyBefore - 1);

                // -S sorts servers by address, as libipvs's ipvs_cmp_dests does: rs1's address is the lower.
                assertThat(ok(daemon, "-S", "-n")).isEqualTo("-A -u " + vip + " -s rr\n" +
                    "-a -u " + vip + " -r " + rs1 + " -m -w 0\n" + "-a -u " + vip + " -r " + rs2 + " -m -w 1\n");
            }
        }
    }

    @Test
    void shouldStartTheStatsOfAServerTakenBackByAServiceCreatedAgainFromZero() throws Exception
    {
        // ipvsadm -D then -A and -a, as a keepalived restart does: IPVS takes the destination back from its trash
        // and __ip_vs_update_dest zeroes its stats, for it is bound to another service object than before.
        try (LbTopology topology = LbTopology.builder("ipvstrash").mode(Mode.NAT).realServers(1).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final String vip = DaemonConfigs.endpoint(topology.vip4(), PORT);
            final String rs1 = DaemonConfigs.endpoint(topology.realServers().get(0).ipv4(), PORT);
            final String config = DaemonConfigs.twoArm() + "-A -u " + vip + " -s rr\n-a -u " + vip + " -r " + rs1 +
                " -m -w 1\n";
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final InetSocketAddress service = new InetSocketAddress(topology.vip4(), PORT);
                assertThat(identities(topology, service, 3)).containsOnly("rs1");
                assertThat(statsOf(ok(daemon, "-L", "-n", "--stats"), "  -> " + rs1)[2]).as("Conns").isEqualTo("3");

                ok(daemon, "-D", "-u", vip);
                ok(daemon, "-A", "-u", vip, "-s", "rr");
                ok(daemon, "-a", "-u", vip, "-r", rs1, "-m", "-w", "1");
                final String again = ok(daemon, "-L", "-n");
                assertThat(again.lines().filter(line -> line.startsWith("  -> " + rs1)).findFirst().orElseThrow()
                    .trim().split("\\s+")[5]).as("its three connections taken back: InActConn").isEqualTo("3");
                final String zeroed = ok(daemon, "-L", "-n", "--stats");
                assertThat(statsOf(zeroed, "UDP  " + vip)).as("the new service").endsWith("0", "0", "0", "0", "0");
                assertThat(statsOf(zeroed, "  -> " + rs1)).as("the server taken back").endsWith("0", "0", "0", "0",
                    "0");

                assertThat(identities(topology, service, 1)).containsOnly("rs1");
                final String counted = ok(daemon, "-L", "-n", "--stats");
                assertThat(statsOf(counted, "UDP  " + vip)[2]).as("Conns").isEqualTo("1");
                assertThat(statsOf(counted, "  -> " + rs1)[2]).as("Conns, as its service's").isEqualTo("1");
            }
        }
    }

    @Test
    void shouldListAPersistentServicesTemplateAmongItsConnectionsAsIpvsDoes() throws Exception
    {
        // IPVS keeps a persistence template as a connection entry <UDP, client network, 0, VIP, port, server, port>,
        // in state ASSURED once a reply passed (udp_state_transition, ip_vs_control_assure_ct), and
        // ip_vs_conn_seq_show lists it in /proc/net/ip_vs_conn, which ipvsadm -L -c prints.
        try (LbTopology topology = LbTopology.builder("ipvstpl").mode(Mode.NAT).realServers(1).ipv6(false).build())
        {
            PreloadLibrary.build();
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final Host rs1 = topology.realServers().get(0);
            final String vip = DaemonConfigs.endpoint(topology.vip4(), PORT);
            final String server = DaemonConfigs.endpoint(rs1.ipv4(), PORT);
            final String config = DaemonConfigs.twoArm() + "-A -u " + vip + " -s rr -p 60 -M 255.255.255.0\n" +
                "-a -u " + vip + " -r " + server + " -m\n";
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final InetSocketAddress service = new InetSocketAddress(topology.vip4(), PORT);
                assertThat(identities(topology, service, 2)).containsOnly("rs1");

                final String byCtl = ok(daemon, "-L", "-n", "-c");
                assertThat(byCtl.lines().filter(line -> line.startsWith("UDP ") && line.contains(" UDP ")).count())
                    .as("the two connections").isEqualTo(2);
                final String template = templateLine(byCtl);
                // print_conn: "%-3s %-6s %-11s %-18s %-18s %s", the client network's port 0 (the clients' /24).
                assertThat(template).isEqualTo(String.format(java.util.Locale.ROOT, "%-3s %-6s %-11s %-18s %-18s %s",
                    "UDP", template.substring(4, 9), "ASSURED", "10.0.0.0:0", vip, server));
                final int seconds = Integer.parseInt(template.substring(4, 6)) * 60 +
                    Integer.parseInt(template.substring(7, 9));
                assertThat(seconds).as("persistence 60 s, just re-armed").isBetween(40, 60);

                // Debian's ipvsadm through the preload reads the daemon's /proc/net/ip_vs_conn and prints the same.
                final String byDebian = withIpvs(daemon, "/usr/sbin/ipvsadm", "-L", "-n", "-c");
                assertThat(templateLine(byDebian).substring(10)).isEqualTo(template.substring(10));
                final String proc = withIpvs(daemon, "/bin/cat", "/proc/net/ip_vs_conn");
                final String hex = String.format(java.util.Locale.ROOT,
                    "UDP 0A000000 0000 %08X %04X %08X %04X ASSURED",
                    java.nio.ByteBuffer.wrap(topology.vip4().getAddress()).getInt(), PORT,
                    java.nio.ByteBuffer.wrap(rs1.ipv4().getAddress()).getInt(), PORT);
                assertThat(proc.lines().filter(line -> line.startsWith(hex)).toList()).as(proc).singleElement()
                    .satisfies(line -> assertThat(line).matches(java.util.regex.Pattern.quote(hex) +
                        " {5} {1,6}\\d{1,2}"));

                // /proc/net/ip_vs and ip_vs_stats as ip_vs_info_seq_show and ip_vs_stats_show print them: the
                // persistence timeout in jiffies (60 s at this kernel's CONFIG_HZ of 250), the /24 as a mask.
                final String services = withIpvs(daemon, "/bin/cat", "/proc/net/ip_vs");
                final String listed = ok(daemon, "-L", "-n");
                final String[] counts = listed.lines().filter(line -> line.startsWith("  -> " + server)).findFirst()
                    .orElseThrow().trim().split("\\s+");
                assertThat(services).isEqualTo(listed.lines().findFirst().orElseThrow() + "\n" +
                    "Prot LocalAddress:Port Scheduler Flags\n" +
                    "  -> RemoteAddress:Port Forward Weight ActiveConn InActConn\n" +
                    String.format(java.util.Locale.ROOT, "UDP  %08X:%04X rr  persistent 15000 FFFFFF00\n",
                        java.nio.ByteBuffer.wrap(topology.vip4().getAddress()).getInt(), PORT) +
                    String.format(java.util.Locale.ROOT, "  -> %08X:%04X      Masq    1      %-10s %-10s\n",
                        java.nio.ByteBuffer.wrap(rs1.ipv4().getAddress()).getInt(), PORT, counts[4], counts[5]));
                final String totals = withIpvs(daemon, "/bin/cat", "/proc/net/ip_vs_stats");
                final String[] counted = statsOf(ok(daemon, "-L", "-n", "--stats", "--exact"), "UDP  " + vip);
                final String[] hexCounts = totals.lines().skip(2).findFirst().orElseThrow().trim().split("\\s+");
                for (int column = 0; column < 5; column++)
                {
                    assertThat(Long.parseLong(hexCounts[column], 16)).as("column %d of %s", column, totals)
                        .isEqualTo(Long.parseLong(counted[column + 2]));
                }
            }
        }
    }

    private static String templateLine(final String listing)
    {
        final List<String> templates = listing.lines().filter(line -> line.contains(" ASSURED ")).toList();
        assertThat(templates).as(listing).hasSize(1);
        return templates.getFirst();
    }

    /** Runs a program under {@code tools/jvs with-ipvs} against the daemon and gives its output. */
    private static String withIpvs(final DaemonProcess daemon, final String... command) throws Exception
    {
        final List<String> line = new ArrayList<>(List.of(PreloadLibrary.ROOT.resolve("tools/jvs").toString(),
            "with-ipvs", "--socket", daemon.control().toString(), "--"));
        line.addAll(List.of(command));
        final Process process = new ProcessBuilder(line).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        process.getOutputStream().close();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("%s: %s", line, out).isZero();
        return out;
    }

    /** The words of the --stats line that starts with {@code prefix}. */
    private static String[] statsOf(final String listing, final String prefix)
    {
        return listing.lines().filter(line -> line.startsWith(prefix)).findFirst().orElseThrow().trim()
            .split("\\s+");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void shouldTreatTheConnectionsOfADeletedServerAsExpireNodestConnSays(final int expire) throws Exception
    {
        try (LbTopology topology = LbTopology.builder("ipvsdel").mode(Mode.NAT).realServers(2).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final List<Host> servers = topology.realServers();
            final String vip = DaemonConfigs.endpoint(topology.vip4(), PORT);
            final String config = DaemonConfigs.twoArm() + "set expire_nodest_conn " + expire + "\n-A -u " + vip +
                " -s rr\n" + servers.stream().map(server -> "-a -u " + vip + " -r " +
                    DaemonConfigs.endpoint(server.ipv4(), PORT) + " -m -w 1\n").reduce("", String::concat);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config);
                DatagramSocket socket = LbTopology.callIn(topology.clientNamespace(), DatagramSocket::new))
            {
                socket.setSoTimeout(2000);
                final InetSocketAddress service = new InetSocketAddress(topology.vip4(), PORT);
                final String first = askOrNull(socket, service);
                assertThat(first).as("%s", daemon.log()).isIn("rs1", "rs2");
                final Host gone = first.equals("rs1") ? servers.get(0) : servers.get(1);
                final Host kept = first.equals("rs1") ? servers.get(1) : servers.get(0);

                ok(daemon, "-d", "-u", vip, "-r", DaemonConfigs.endpoint(gone.ipv4(), PORT));

                if (expire == 0)
                {
                    socket.setSoTimeout(1500);
                    assertThat(askOrNull(socket, service)).as("dropped: the connection's server is gone").isNull();
                    assertThat(daemon.status().get("drop.server-removed")).isPositive();
                }
                else
                {
                    assertThat(askOrNull(socket, service)).as("scheduled afresh").isEqualTo(kept.name());
                }
            }
        }
    }

    private static ControlResponse.Result ipvsadm(final DaemonProcess daemon, final String... arguments)
        throws IOException
    {
        final ControlResponse response = ControlClient.exchange(daemon.control(),
            new ControlRequest.Ipvsadm(List.of(arguments), new byte[0]), TIMEOUT);
        assertThat(response).as("answered").isInstanceOf(ControlResponse.Result.class);
        return (ControlResponse.Result)response;
    }

    private static String ok(final DaemonProcess daemon, final String... arguments) throws IOException
    {
        final ControlResponse.Result result = ipvsadm(daemon, arguments);
        assertThat(result.status()).as("ipvsadm %s: %s", String.join(" ", arguments), text(result.error()))
            .isZero();
        return text(result.output());
    }

    /** Writes bytes to the control socket and closes it without waiting for an answer. */
    private static void send(final DaemonProcess daemon, final byte[] bytes) throws IOException
    {
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(daemon.control())))
        {
            client.write(ByteBuffer.wrap(bytes));
        }
    }

    private static String text(final byte[] bytes)
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Which server answers each of {@code count} new clients (a socket each: a new connection each). */
    /** Below the kernel's ephemeral range (net.ipv4.ip_local_port_range), so no socket of the kernel's choice has one. */
    private static final AtomicInteger NEXT_CLIENT_PORT =
        new AtomicInteger(20_000);

    private static List<String> identities(final LbTopology topology, final InetSocketAddress service,
        final int count) throws Exception
    {
        final List<String> names = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            // A port of its own for each client: an ephemeral port the kernel picks at random may be one an earlier
            // client of this test had, whose UDP connection still names that client's server.
            final int port = NEXT_CLIENT_PORT.getAndIncrement();
            try (DatagramSocket socket = LbTopology.callIn(topology.clientNamespace(),
                () -> new DatagramSocket(new InetSocketAddress(port))))
            {
                socket.setSoTimeout(2000);
                final String name = askOrNull(socket, service);
                assertThat(name).as("an answer from %s", service).isNotNull();
                names.add(name);
            }
        }
        return names;
    }

    private static String askOrNull(final DatagramSocket socket, final InetSocketAddress service) throws IOException
    {
        return UdpDigestClient.identityOrNull(socket, service);
    }
}
