package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.control.netlink.InMemoryIpvsBackend;
import io.jvs.forwarder.control.netlink.IpvsDestination;
import io.jvs.forwarder.control.netlink.IpvsNetlink;
import io.jvs.forwarder.control.netlink.IpvsNetlinkRequest;
import io.jvs.forwarder.control.netlink.Netlink;
import io.jvs.forwarder.control.netlink.IpvsServiceKey;
import io.jvs.forwarder.control.netlink.IpvsServiceOptions;
import io.jvs.forwarder.control.netlink.IpvsStats;
import io.jvs.forwarder.control.netlink.IpvsTimeouts;
import io.jvs.forwarder.daemon.it.PreloadLibrary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Debian's unmodified {@code /usr/sbin/ipvsadm} (1.31, libnl-3) drives a control server through the preload
 * library, started as an operator would start it ({@code tools/jvs with-ipvs --socket PATH -- ipvsadm ...}): its
 * adds, edits and deletes reach the backend as the right requests; its listings ({@code -L -n}, {@code --stats},
 * {@code -S -n}, {@code --timeout}, {@code -c -n}) print the backend's state in ipvsadm's own format (ipvsadm itself
 * formats them: the expected texts are what it prints for the kernel); the kernel's refusals come back as ipvsadm's
 * messages and exit codes; a listing of 600 services, many netlink datagrams long, is complete.
 */
class IpvsadmThroughPreloadTest
{
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
    private static final Path LAUNCHER = ROOT.resolve("tools/jvs");
    private static final String IPVSADM = "/usr/sbin/ipvsadm";
    private static final int TCP = 6;
    private static final int UDP = 17;
    private static final String HEADER = "IP Virtual Server version 1.2.1 (size=4096)\n" +
        "Prot LocalAddress:Port Scheduler Flags\n" +
        "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n";

    @TempDir
    Path dir;

    private Path socket;
    private ControlServer server;
    private final InMemoryIpvsBackend backend = new InMemoryIpvsBackend();

    private record Run(int status, String out, String err)
    {
    }

    @BeforeAll
    static void buildTheLibrary() throws Exception
    {
        PreloadLibrary.build();
    }

    @BeforeEach
    void start() throws IOException
    {
        socket = dir.resolve("jvs.sock");
        server = ControlServer.open(socket, null, request -> new ControlResponse.Refused("not in this test"), backend);
    }

    @AfterEach
    void stop()
    {
        server.close();
    }

    private Run ipvsadm(final String... arguments) throws Exception
    {
        return ipvsadmWithInput("", arguments);
    }

    private Run ipvsadmWithInput(final String input, final String... arguments) throws Exception
    {
        final List<String> command = new ArrayList<>(List.of(LAUNCHER.toString(), "with-ipvs", "--socket",
            socket.toString(), "--", IPVSADM));
        command.addAll(List.of(arguments));
        final Process process = new ProcessBuilder(command).start();
        final CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> readAll(process, true));
        process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        final byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("ipvsadm " + String.join(" ", arguments) + " did not finish in 60 s");
        }
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8),
            new String(err.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
    }

    private static byte[] readAll(final Process process, final boolean error)
    {
        try
        {
            return (error ? process.getErrorStream() : process.getInputStream()).readAllBytes();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static IpvsServiceKey tcp(final String address, final int port)
    {
        return IpvsServiceKey.of(TCP, IpAddress.parse(address), port);
    }

    @Test
    void shouldAddAServiceAndServersAndListThem() throws Exception
    {
        assertThat(ipvsadm("-A", "-t", "10.0.0.1:80", "-s", "wrr")).isEqualTo(new Run(0, "", ""));
        assertThat(ipvsadm("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.2:8080", "-m", "-w", "3").status()).isZero();
        assertThat(ipvsadm("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.3:8080", "-g", "-w", "1").status()).isZero();

        final Run list = ipvsadm("-L", "-n");
        assertThat(list.status()).as(list.err()).isZero();
        assertThat(list.out()).isEqualTo(HEADER +
            "TCP  10.0.0.1:80 wrr\n" +
            "  -> 10.0.1.2:8080                Masq    3      0          0         \n" +
            "  -> 10.0.1.3:80                  Route   1      0          0         \n");
    }

    @Test
    void shouldEditAndDeleteServicesAndServers() throws Exception
    {
        ipvsadmOk("-A", "-t", "10.0.0.1:80", "-s", "rr");
        ipvsadmOk("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.2:80", "-m", "-w", "1");
        ipvsadmOk("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.3:80", "-m", "-w", "1");

        ipvsadmOk("-E", "-t", "10.0.0.1:80", "-s", "wlc", "-p", "300", "-M", "255.255.255.0");
        final IpvsServiceOptions options = backend.options(tcp("10.0.0.1", 80));
        assertThat(options.scheduler()).isEqualTo("wlc");
        assertThat(options.timeout()).isEqualTo(300);
        assertThat(options.netmask()).isEqualTo(0xFFFFFF00);
        assertThat(options.mergeFlags(0) & IpvsNetlink.SVC_F_PERSISTENT).isNotZero();

        ipvsadmOk("-e", "-t", "10.0.0.1:80", "-r", "10.0.1.2:80", "-m", "-w", "7", "-x", "100", "-y", "10");
        final IpvsDestination edited = backend.destination(tcp("10.0.0.1", 80), IpAddress.parse("10.0.1.2"), 80);
        assertThat(edited.weight()).isEqualTo(7);
        assertThat(edited.upperThreshold()).isEqualTo(100);
        assertThat(edited.lowerThreshold()).isEqualTo(10);
        assertThat(edited.forwarding()).isEqualTo(IpvsNetlink.CONN_F_MASQ);

        ipvsadmOk("-d", "-t", "10.0.0.1:80", "-r", "10.0.1.3:80");
        assertThat(backend.destination(tcp("10.0.0.1", 80), IpAddress.parse("10.0.1.3"), 80)).isNull();
        assertThat(ipvsadm("-L", "-n").out()).isEqualTo(HEADER +
            "TCP  10.0.0.1:80 wlc persistent 300 mask 255.255.255.0\n" +
            "  -> 10.0.1.2:80                  Masq    7      0          0         \n");
        assertThat(ipvsadm("-L", "-n", "--thresholds").out()).isEqualTo(
            "IP Virtual Server version 1.2.1 (size=4096)\n" +
            "Prot LocalAddress:Port            Uthreshold Lthreshold ActiveConn InActConn \n" +
            "  -> RemoteAddress:Port\n" +
            "TCP  10.0.0.1:80 wlc persistent 300 mask 255.255.255.0\n" +
            "  -> 10.0.1.2:80                  100        10         0          0         \n");

        ipvsadmOk("-D", "-t", "10.0.0.1:80");
        assertThat(backend.serviceCount()).isZero();
        assertThat(ipvsadm("-L", "-n").out()).isEqualTo(HEADER);
    }

    @Test
    void shouldListIpv6AndFwmarkServicesAndSaveThemAsIpvsadmWrites() throws Exception
    {
        ipvsadmOk("-A", "-f", "7", "-s", "sh", "-b", "sh-port,sh-fallback");
        ipvsadmOk("-a", "-f", "7", "-r", "10.0.2.1", "-i", "-w", "4");
        ipvsadmOk("-a", "-f", "7", "-r", "10.0.2.2", "-i", "-w", "1", "--tun-type", "gue", "--tun-port", "6080",
            "--tun-nocsum");
        ipvsadmOk("-A", "-u", "[2001:db8::1]:53", "-s", "rr", "-p", "60");
        ipvsadmOk("-a", "-u", "[2001:db8::1]:53", "-r", "[2001:db8::2]:53", "-m", "-w", "2");

        assertThat(backend.options(IpvsServiceKey.ofMark(Netlink.AF_INET, 7)).mergeFlags(0))
            .isEqualTo(IpvsNetlink.SVC_F_SCHED1 | IpvsNetlink.SVC_F_SCHED2);
        assertThat(backend.options(IpvsServiceKey.of(UDP, IpAddress.parse("2001:db8::1"), 53)).netmask())
            .as("an IPv6 service's netmask is its prefix length").isEqualTo(128);
        assertThat(ipvsadm("-L", "-n").out()).isEqualTo(HEADER +
            "UDP  [2001:db8::1]:53 rr persistent 60\n" +
            "  -> [2001:db8::2]:53             Masq    2      0          0         \n" +
            "FWM  7 sh (sh-fallback,sh-port)\n" +
            "  -> 10.0.2.1:0                   Tunnel  4      0          0         \n" +
            "  -> 10.0.2.2:0                   Tunnel  1      0          0         \n");
        final IpvsDestination gue = backend.destination(IpvsServiceKey.ofMark(Netlink.AF_INET, 7),
            IpAddress.parse("10.0.2.2"), 0);
        assertThat(gue.tunnelType()).as("IP_VS_CONN_F_TUNNEL_TYPE_GUE").isEqualTo(1);
        assertThat(gue.tunnelPort()).isEqualTo(6080);
        final Run save = ipvsadm("-S", "-n");
        assertThat(save.status()).isZero();
        assertThat(save.out()).isEqualTo(
            "-A -u [2001:db8::1]:53 -s rr -p 60\n" +
            "-a -u [2001:db8::1]:53 -r [2001:db8::2]:53 -m -w 2\n" +
            "-A -f 7 -s sh -b sh-fallback,sh-port\n" +
            "-a -f 7 -r 10.0.2.1:0 -i -w 4 --tun-type ipip\n" +
            "-a -f 7 -r 10.0.2.2:0 -i -w 1 --tun-type gue --tun-port 6080 --tun-nocsum\n");

        // What -S wrote, given back to -R after a flush, makes the same state.
        ipvsadmOk("-C");
        assertThat(backend.serviceCount()).isZero();
        final Run restore = ipvsadmWithInput(save.out(), "-R");
        assertThat(restore.status()).as(restore.err()).isZero();
        assertThat(ipvsadm("-S", "-n").out()).isEqualTo(save.out());
    }

    @Test
    void shouldPrintTheBackendsCountersAndRates() throws Exception
    {
        ipvsadmOk("-A", "-t", "10.0.0.1:80", "-s", "rr");
        ipvsadmOk("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.2:80", "-m");
        backend.setStats(tcp("10.0.0.1", 80), new IpvsStats(12, 3456, 789, 5_000_000_000L, 98_765, 2, 30, 7, 4000,
            900));
        backend.setDestStats(tcp("10.0.0.1", 80), IpAddress.parse("10.0.1.2"), 80, 5, 6,
            new IpvsStats(12, 3456, 789, 5_000_000_000L, 98_765, 2, 30, 7, 4000, 900));

        assertThat(ipvsadm("-L", "-n", "--stats").out()).isEqualTo(
            "IP Virtual Server version 1.2.1 (size=4096)\n" +
            "Prot LocalAddress:Port               Conns   InPkts  OutPkts  InBytes OutBytes\n" +
            "  -> RemoteAddress:Port\n" +
            "TCP  10.0.0.1:80                        12     3456      789    5000M    98765\n" +
            "  -> 10.0.1.2:80                        12     3456      789    5000M    98765\n");
        assertThat(ipvsadm("-L", "-n", "--rate").out()).isEqualTo(
            "IP Virtual Server version 1.2.1 (size=4096)\n" +
            "Prot LocalAddress:Port                 CPS    InPPS   OutPPS    InBPS   OutBPS\n" +
            "  -> RemoteAddress:Port\n" +
            "TCP  10.0.0.1:80                         2       30        7     4000      900\n" +
            "  -> 10.0.1.2:80                         2       30        7     4000      900\n");
        assertThat(ipvsadm("-L", "-n").out()).endsWith(
            "  -> 10.0.1.2:80                  Masq    1      5          6         \n");

        ipvsadmOk("-Z");
        assertThat(ipvsadm("-L", "-n", "--stats").out()).endsWith(
            "TCP  10.0.0.1:80                         0        0        0        0        0\n" +
            "  -> 10.0.1.2:80                         0        0        0        0        0\n");
        assertThat(backend.applied()).last().isInstanceOf(
            IpvsNetlinkRequest.Zero.class);
    }

    @Test
    void shouldSetAndShowTheTimeoutsAndListTheConnectionFile() throws Exception
    {
        assertThat(ipvsadm("-L", "--timeout").out()).isEqualTo("Timeout (tcp tcpfin udp): 900 120 300\n");
        ipvsadmOk("--set", "100", "0", "30");
        // 0 leaves a timeout as it is, as the kernel's set_config does for an absent attribute.
        assertThat(backend.timeouts()).isEqualTo(new IpvsTimeouts(100, 120, 30));
        assertThat(ipvsadm("-L", "--timeout").out()).isEqualTo("Timeout (tcp tcpfin udp): 100 120 30\n");

        backend.setConnections(
            "TCP 0A000102 9C40 0A000001 0050 0A000101 1F90 ESTABLISHED     890\n" +
            "UDP 0A000103 D431 0A000001 0035 0A000101 0035 UDP             299\n");
        final Run connections = ipvsadm("-L", "-c", "-n");
        assertThat(connections.status()).as(connections.err()).isZero();
        assertThat(connections.out()).isEqualTo(
            "IPVS connection entries\n" +
            "pro expire state       source             virtual            destination\n" +
            "TCP 14:50  ESTABLISHED 10.0.1.2:40000     10.0.0.1:80        10.0.1.1:8080\n" +
            "UDP 04:59  UDP         10.0.1.3:54321     10.0.0.1:53        10.0.1.1:53\n");
    }

    @Test
    void shouldGiveIpvsadmsMessagesAndExitCodesForWhatTheKernelRefuses() throws Exception
    {
        ipvsadmOk("-A", "-t", "10.0.0.1:80", "-s", "rr");
        ipvsadmOk("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.1:80", "-m");
        final int changes = backend.applied().size();

        assertThat(ipvsadm("-A", "-t", "10.0.0.1:80", "-s", "rr")).isEqualTo(
            new Run(255, "", "Service already exists\n"));
        assertThat(ipvsadm("-A", "-t", "10.0.0.2:80", "-s", "nosuch")).isEqualTo(
            new Run(255, "", "Scheduler or persistence engine not found\n"));
        assertThat(ipvsadm("-D", "-t", "10.0.0.9:80")).isEqualTo(new Run(255, "", "No such service\n"));
        assertThat(ipvsadm("-E", "-t", "10.0.0.9:80", "-s", "rr")).isEqualTo(new Run(255, "", "No such service\n"));
        assertThat(ipvsadm("-Z", "-t", "10.0.0.9:80")).isEqualTo(new Run(255, "", "No such service\n"));
        assertThat(ipvsadm("-a", "-t", "10.0.0.9:80", "-r", "10.0.1.1:80", "-m")).isEqualTo(
            new Run(255, "", "Service not defined\n"));
        assertThat(ipvsadm("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.1:80", "-m")).isEqualTo(
            new Run(255, "", "Destination already exists\n"));
        assertThat(ipvsadm("-a", "-t", "10.0.0.1:80", "-r", "10.0.1.5:80", "-m", "-x", "10", "-y", "20")).isEqualTo(
            new Run(255, "", "Numerical result out of range\n"));
        assertThat(ipvsadm("-e", "-t", "10.0.0.1:80", "-r", "10.0.1.7:80", "-m")).isEqualTo(
            new Run(255, "", "No such destination\n"));
        assertThat(ipvsadm("-d", "-t", "10.0.0.1:80", "-r", "10.0.1.7:80")).isEqualTo(
            new Run(255, "", "No such destination\n"));
        assertThat(ipvsadm("-d", "-t", "10.0.0.9:80", "-r", "10.0.1.7:80")).isEqualTo(
            new Run(255, "", "Service not defined\n"));
        assertThat(ipvsadm("-L", "-n", "-t", "10.0.0.9:80")).isEqualTo(new Run(1, "", "No such service\n"));

        assertThat(backend.applied()).as("no refused command changed anything").hasSize(changes);
        assertThat(ipvsadm("-L", "-n", "-t", "10.0.0.1:80").out()).isEqualTo(
            "Prot LocalAddress:Port Scheduler Flags\n" +
            "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n" +
            "TCP  10.0.0.1:80 rr\n" +
            "  -> 10.0.1.1:80                  Masq    1      0          0         \n");
    }

    @Test
    void shouldStartListAndStopASyncDaemon() throws Exception
    {
        assertThat(ipvsadm("-L", "--daemon")).isEqualTo(new Run(0, "", ""));
        ipvsadmOk("--start-daemon", "master", "--mcast-interface", "lo", "--syncid", "5");
        assertThat(ipvsadm("-L", "--daemon").out()).isEqualTo("master sync daemon (mcast=lo, syncid=5)\n");
        ipvsadmOk("--stop-daemon", "master");
        assertThat(ipvsadm("-L", "--daemon").out()).isEmpty();
    }

    @Test
    void shouldListSixHundredServicesCompletelyThroughManyDatagrams() throws Exception
    {
        final StringBuilder rules = new StringBuilder();
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < 600; i++)
        {
            final String service = "10.1." + (i / 200) + "." + (i % 200 + 1) + ":" + (1000 + i);
            rules.append("-A -t ").append(service).append(" -s wlc\n");
            rules.append("-a -t ").append(service).append(" -r 192.168.0.").append(i % 250 + 1)
                .append(":80 -m -w ").append(i % 9 + 1).append('\n');
            expected.add("-A -t " + service + " -s wlc");
            expected.add("-a -t " + service + " -r 192.168.0." + (i % 250 + 1) + ":80 -m -w " + (i % 9 + 1));
        }
        final Run restore = ipvsadmWithInput(rules.toString(), "-R");
        assertThat(restore.status()).as(restore.err()).isZero();
        assertThat(backend.serviceCount()).isEqualTo(600);

        final Run save = ipvsadm("-S", "-n");
        assertThat(save.status()).as(save.err()).isZero();
        assertThat(save.out().lines().toList()).hasSize(1200).containsExactlyInAnyOrderElementsOf(expected);
        final Run list = ipvsadm("-L", "-n");
        assertThat(list.out().lines().filter(line -> line.startsWith("TCP  10.1."))).hasSize(600);
        assertThat(list.out().lines().filter(line -> line.startsWith("  -> 192.168.0."))).hasSize(600);
    }

    private void ipvsadmOk(final String... arguments) throws Exception
    {
        final Run run = ipvsadm(arguments);
        assertThat(run).as("ipvsadm " + String.join(" ", arguments)).isEqualTo(new Run(0, "", ""));
    }
}
