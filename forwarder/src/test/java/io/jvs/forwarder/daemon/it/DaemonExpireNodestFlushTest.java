package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * expire_nodest_conn 1 on a live daemon, its connection table of the default million slots and its worker idle
 * (sleeping between polls): after {@code -d} of a server of a persistent service, {@code -L -n -c} stops listing
 * the server's connections and templates within about a second, as the kernel's ip_vs_expire_nodest_conn_flush
 * deletes them at once, templates that already placed nothing included; the other server's stay; {@code -D} then
 * flushes the rest. Root only (namespaces, XDP), as CI runs.
 */
class DaemonExpireNodestFlushTest
{
    private static final int PORT = 5353;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void shouldStopListingADeletedServersEntriesWithinASecond() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dnflush").realServers(2).clientAddresses(6).ipv6(false)
            .build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final String vip = DaemonConfigs.endpoint(topology.vip4(), PORT);
            final String gone = DaemonConfigs.endpoint(topology.realServer(1).ipv4(), PORT);
            final String kept = DaemonConfigs.endpoint(topology.realServer(2).ipv4(), PORT);
            final String config = DaemonConfigs.twoArm() + "set expire_nodest_conn 1\n" +
                "timeout tcp 900 tcpfin 120 udp 3\n" +
                "-A -u " + vip + " -s rr -p 300\n-a -u " + vip + " -r " + gone + " -m\n-a -u " + vip + " -r " +
                kept + " -m\n";
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final List<InetAddress> sources = List.copyOf(topology.clientAddresses4());
                final InetSocketAddress target = new InetSocketAddress(topology.vip4(), PORT);
                // Three clients whose connections end (udp 3) while their templates (300 s) stay, placing nothing,
                // then three whose connections are open at the -d: they last 900 s, since with 3 s one of them ended
                // before the listing after the -d when the exchanges and listings took their time (a loaded box).
                exchange(topology, target, sources.subList(0, 3));
                awaitEntries(daemon, entries -> entries.size() == 3 && entries.stream().allMatch(fields ->
                    fields.get(3).endsWith(":0")), "only the three templates");
                ipvsadm(daemon, "--set", "0", "0", "900");
                exchange(topology, target, sources.subList(3, 6));
                final List<List<String>> before = entries(daemon);
                assertThat(before).as("connections and templates of both servers").hasSize(9)
                    .anySatisfy(fields -> assertThat(fields.get(5)).isEqualTo(gone))
                    .anySatisfy(fields -> assertThat(fields.get(5)).isEqualTo(kept));
                final long keptEntries = before.stream().filter(fields -> fields.get(5).equals(kept)).count();

                ipvsadm(daemon, "-d", "-u", vip, "-r", gone);
                Thread.sleep(1500);
                final List<List<String>> after = entries(daemon);
                assertThat(after).as("the deleted server's entries flushed, the other's kept").noneSatisfy(fields ->
                    assertThat(fields.get(5)).isEqualTo(gone)).hasSize((int)keptEntries);

                ipvsadm(daemon, "-D", "-u", vip);
                Thread.sleep(1500);
                assertThat(entries(daemon)).as("a deleted service's entries flushed").isEmpty();
            }
        }
    }

    private static void exchange(final LbTopology topology, final InetSocketAddress target,
        final List<InetAddress> sources)
    {
        assertThat(UdpDigestClient.run(topology.clientNamespace(), new UdpDigestClient.Load(target, sources.size(),
            100, 1, sources, Duration.ofSeconds(1), 3))).allSatisfy(exchange ->
            assertThat(exchange.ok()).as(exchange.toString()).isTrue());
    }

    private static void awaitEntries(final DaemonProcess daemon, final Predicate<List<List<String>>> condition,
        final String what) throws Exception
    {
        final long deadline = System.nanoTime() + TIMEOUT.toNanos();
        List<List<String>> entries = entries(daemon);
        while (!condition.test(entries))
        {
            assertThat(System.nanoTime() - deadline).as("%s within %s: %s", what, TIMEOUT, entries).isNegative();
            Thread.sleep(100);
            entries = entries(daemon);
        }
    }

    /** @return -L -n -c's entries, each as its fields: pro expire state source virtual destination. */
    private static List<List<String>> entries(final DaemonProcess daemon) throws Exception
    {
        return ipvsadm(daemon, "-L", "-n", "-c").lines().skip(2).map(line -> List.of(line.trim().split("\\s+")))
            .filter(fields -> fields.size() == 6).toList();
    }

    private static String ipvsadm(final DaemonProcess daemon, final String... arguments) throws Exception
    {
        final ControlResponse response = ControlClient.exchange(daemon.control(),
            new ControlRequest.Ipvsadm(List.of(arguments), new byte[0]), TIMEOUT);
        assertThat(response).isInstanceOf(ControlResponse.Result.class);
        final ControlResponse.Result result = (ControlResponse.Result)response;
        assertThat(result.status()).as(new String(result.error(), StandardCharsets.UTF_8)).isZero();
        return new String(result.output(), StandardCharsets.UTF_8);
    }
}
