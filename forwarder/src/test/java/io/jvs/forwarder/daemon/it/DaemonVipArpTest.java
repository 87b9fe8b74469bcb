package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code vip-arp on}: the VIP is on no interface of the director, and the client reaches it on its own link
 * (no gateway), so it must ask for the VIP's MAC; jvs answers with the interface's MAC, and the connections
 * go through it byte-exact (VipAnnouncerTest shows that nothing else is answered); a ping to the VIP is answered by
 * jvs, since the box's kernel, which does not hold the VIP, cannot.
 */
class DaemonVipArpTest
{
    /** @return the CPUs the daemon's worker thread may run on, as /proc lists them. */
    private static String workerAffinity(final long pid) throws IOException
    {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task")))
        {
            for (final Path task : tasks.toList())
            {
                if (Files.readString(task.resolve("comm")).trim().equals("jvs-worker-0"))
                {
                    for (final String line : Files.readAllLines(task.resolve("status")))
                    {
                        if (line.startsWith("Cpus_allowed_list:"))
                        {
                            return line.substring("Cpus_allowed_list:".length()).trim();
                        }
                    }
                }
            }
        }
        return "no worker thread";
    }

    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @Test
    void shouldAnswerArpForItsVipsWhenAsked() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("vipa").mode(Mode.NAT).realServers(2).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            final String vipAddress = topology.vip4().getHostAddress();
            topology.inNamespace(topology.clientNamespace(), "ip", "route", "replace", vipAddress + "/32", "dev",
                LbTopology.CLIENT_DEVICE);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm("afxdp xdp-mode drv", "1 cpus 1") + "vip-arp on\n" +
                DaemonConfigs.service('t', topology.vip4(), PORT, "rr", 'm', DaemonConfigs.serversV4(topology),
                    DaemonConfigs.ones(2));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 10, MIB));
                final Map<String, Long> status = daemon.status();
                assertThat(TcpDigestClient.failures(connections)).as("%s\n%s", daemon.log(), status).isEmpty();
                final String neighbours = topology.inNamespace(topology.clientNamespace(), "ip", "neigh", "show",
                    vipAddress);
                assertThat(neighbours).as("the client's entry for the VIP")
                    .contains(topology.directorClientSide().orElseThrow().mac());
                assertThat(workerAffinity(daemon.pid())).as("the worker bound to the config's CPU").isEqualTo("1");

                // The box does not hold the VIP, so its kernel cannot answer a ping to it: jvs does.
                final boolean answered = LbTopology.callIn(topology.clientNamespace(),
                    () -> topology.vip4().isReachable(2000));
                final Map<String, Long> after = daemon.status();
                assertThat(answered).as("ping to the VIP: %s\n%s", daemon.log(), after).isTrue();
                assertThat(after.get("icmp-echo-answered")).as("%s", after).isPositive();
            }
        }
    }
}
