package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code offload on}: the NAT selftest's 30 TCP connections of 1 MiB, their established frames forwarded by the
 * AF_XDP ports' XDP program (XdpFlowTable) rather than by the worker, byte-exact; every connection offered once
 * established and withdrawn at its FIN; the frames the program forwarded counted in the service's and servers'
 * counters as the worker counts its own. The switch ports the director's veths lead to run NAPI (GRO on), as a
 * veth that takes redirected frames must (veth_xdp_xmit). Root only (namespaces, XDP).
 */
class DaemonOffloadTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @Test
    void shouldForwardEstablishedNatConnectionsInXdpByteExactAndCountThem() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("doff").mode(Mode.NAT).realServers(3).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            for (final String namespace : List.of(topology.clientSwitchNamespace(), topology.serverSwitchNamespace()))
            {
                topology.inNamespace(namespace, "ethtool", "-K", "pl", "gro", "on");
            }
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + "offload on\n" + DaemonConfigs.service('t',
                topology.vip4(), PORT, "rr", 'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(3));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 30, MIB).parallel(3));
                // Each connection is taken back at its FIN, and what the program forwarded for it counted then.
                final Map<String, Long> status = awaitStatus(daemon, "offload-withdrawn", 30);
                final String log = String.join("\n", daemon.log()) + "\n" + status;
                assertThat(TcpDigestClient.failures(connections)).as(log).isEmpty();
                assertThat(connections).allSatisfy(connection ->
                    assertThat(connection.bytesConfirmed()).isEqualTo(MIB));
                assertThat(status.get("offloaded")).as("offered once established: %s", log).isEqualTo(30);
                assertThat(status.get("offload-withdrawn")).as("withdrawn at the FINs").isEqualTo(30);
                assertThat(status.get("offload-refused")).isZero();
                final String service = "service.tcp-" + topology.vip4().getHostAddress() + ":" + PORT + ".";
                final long packets = status.get(service + "inpkts") + status.get(service + "outpkts");
                assertThat(status.get("offloaded-frames")).as("most frames forwarded in XDP")
                    .isGreaterThan(packets / 2);
                assertThat(status.get("frames")).as("the worker saw the rest").isLessThan(packets / 2);
                assertThat(status.get(service + "inbytes") + status.get(service + "outbytes"))
                    .as("IP bytes both ways").isGreaterThan(30L * MIB);
                for (final String field : List.of("inpkts", "outpkts", "inbytes", "outbytes"))
                {
                    assertThat(status.entrySet().stream()
                        .filter(entry -> entry.getKey().startsWith("server.") && entry.getKey().endsWith("." + field))
                        .mapToLong(Map.Entry::getValue).sum()).as("servers' " + field)
                        .isEqualTo(status.get(service + field));
                }
                daemon.signal("TERM");
                assertThat(daemon.awaitExit(Duration.ofSeconds(20))).isZero();
                assertThat(Netns.ip(topology.directorNamespace(), "-d", "link")).doesNotContain("xdp");
            }
        }
    }

    @Test
    void shouldLeaveConnectionsToTheWorkersWhileNoPortTakesRedirectedFramesAndOffloadOnceOneDoes() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("doff2").mode(Mode.NAT).realServers(1).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + "offload on\n" + DaemonConfigs.service('t',
                topology.vip4(), PORT, "rr", 'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(1));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                for (final String device : List.of(LbTopology.DIRECTOR_CLIENT_DEVICE + " (port 0)",
                    LbTopology.DIRECTOR_SERVER_DEVICE + " (port 1)"))
                {
                    assertThat(daemon.awaitLog("offload: " + device + ": its driver takes no redirected frames now",
                        Duration.ofSeconds(5))).contains(" warning ");
                }
                final InetSocketAddress vip = new InetSocketAddress(topology.vip4(), PORT);
                assertThat(TcpDigestClient.failures(TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(vip, 3, MIB)))).isEmpty();
                assertThat(daemon.status().get("offloaded")).as("nothing offered while no port takes any").isZero();

                // The server side's switch port runs NAPI: the clients' frames go in XDP, the replies through the
                // worker (the client side takes none: the program finds no egress for them).
                topology.inNamespace(topology.serverSwitchNamespace(), "ethtool", "-K", "pl", "gro", "on");
                daemon.awaitLog("offload: " + LbTopology.DIRECTOR_SERVER_DEVICE + " (port 1) takes redirected " +
                    "frames again", Duration.ofSeconds(5));
                final String service = "service.tcp-" + topology.vip4().getHostAddress() + ":" + PORT + ".";
                final Map<String, Long> before = daemon.status();
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(vip, 3, MIB));
                assertThat(TcpDigestClient.failures(connections)).isEmpty();
                final Map<String, Long> status = awaitStatus(daemon, "offload-withdrawn", 3);
                assertThat(status.get("offloaded")).as("offered now: %s", status).isEqualTo(3);
                assertThat(status.get("offloaded-frames")).as("the uploads' segments").isGreaterThan(3L * MIB / 1500);
                assertThat(status.get("frames") - before.get("frames")).as("the replies, through the worker")
                    .isGreaterThanOrEqualTo(status.get(service + "outpkts") - before.get(service + "outpkts"));
            }
        }
    }

    /** @return the daemon's status once {@code key} reached {@code value}, or after 10 s, whatever it says then. */
    private static Map<String, Long> awaitStatus(final DaemonProcess daemon, final String key, final long value)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Map<String, Long> status = daemon.status();
        while (status.getOrDefault(key, -1L) < value && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(50);
            status = daemon.status();
        }
        return status;
    }
}
