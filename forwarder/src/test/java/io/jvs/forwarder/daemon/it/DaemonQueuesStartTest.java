package io.jvs.forwarder.daemon.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An AF_XDP device's receive queues and the daemon's sockets: a frame the device steers to a queue without a
 * socket goes to the kernel, which answers a VIP on lo with a reset. So an interface that leaves out
 * {@code queues} is served on every queue its device has, and one whose {@code queues} leaves some out is refused
 * before the daemon touches it. Root only (namespaces, XDP), as CI runs.
 */
class DaemonQueuesStartTest
{
    private static final int PORT = 8080;
    private static final Duration EXIT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void shouldRefuseQueuesThatLeaveSomeOfTheDevicesOutAndTouchNothing() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dqfew").realServers(1).directorQueues(4).build())
        {
            // Line 1 is the control statement DaemonProcess writes; the client side's interface is line 2.
            final String config = DaemonConfigs.twoArm("afxdp queues 2", "2") + natService(topology);
            try (DaemonProcess daemon = DaemonProcess.launch(topology.directorNamespace(), directory, config))
            {
                assertThat(daemon.awaitExit(EXIT)).as(String.join("\n", daemon.log())).isEqualTo(2);
                assertThat(daemon.log()).anySatisfy(line -> assertThat(line).contains(" error ").contains(
                    directory.resolve("jvs.conf") + ":2: interface " + LbTopology.DIRECTOR_CLIENT_DEVICE +
                        " has 4 receive queues but queues 2: frames it steers to queues 2-3 would reach no socket " +
                        "and go to the kernel (write 'queues 4' or leave queues out, or give it 2 with 'ethtool -L " +
                        LbTopology.DIRECTOR_CLIENT_DEVICE + " combined 2' or 'rx 2')"));
                assertThat(Netns.ip(topology.directorNamespace(), "-d", "link")).doesNotContain("xdp")
                    .doesNotContain("jvs0").doesNotContain("jvs1");
                assertThat(Files.exists(daemon.control())).as(daemon.control().toString()).isFalse();
            }
        }
    }

    @Test
    void shouldServeEveryQueueOfTheDeviceWhenQueuesAndWorkersAreLeftOut() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("dqall").mode(LbTopology.Mode.NAT).realServers(3)
            .clientAddresses(6).directorQueues(2).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.interfaces("afxdp xdp-mode drv", LbTopology.DIRECTOR_CLIENT_DEVICE,
                LbTopology.DIRECTOR_SERVER_DEVICE) + natService(topology);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                assertThat(daemon.log()).anySatisfy(line -> assertThat(line).contains(" info ready: 2 workers, " +
                    LbTopology.DIRECTOR_CLIENT_DEVICE + " (afxdp xdp drv queues 0-1), "));
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 30, 64 << 10).parallel(3)
                        .sources(topology.clientAddresses4()));
                final Map<String, Long> status = daemon.status();
                assertThat(TcpDigestClient.failures(connections)).as(String.join("\n", daemon.log()) + "\n" + status)
                    .isEmpty();
                for (int worker = 0; worker < 2; worker++)
                {
                    assertThat(status.get("port." + worker + ".0.rx-frames")).as("queue %d on the client side",
                        worker).isPositive();
                }
                assertThat(status.get("xdp-unplaced")).as("every queue has a socket").isZero();
                daemon.signal("TERM");
                assertThat(daemon.awaitExit(EXIT)).isZero();
            }
        }
    }

    private static String natService(final LbTopology topology)
    {
        return DaemonConfigs.service('t', topology.vip4(), PORT, "rr", 'm', DaemonConfigs.serversV4(topology),
            DaemonConfigs.ones(topology.realServers().size()));
    }
}
