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
 * Two workers over AF_XDP on veths with two real receive queues each: native XDP spreads a sender's flows over
 * the queues by their hash, while a connection belongs to the worker its client address picks, so frames that
 * land on the other worker's queue are handed over. Every transfer must still be byte-exact, each worker must
 * receive on its own queue, and what one worker hands off is what the other receives.
 */
class DaemonTwoWorkersTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @Test
    void shouldHandFramesOfTheOtherWorkersClientsOverAndCarryEveryTransfer() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("two").mode(Mode.NAT).realServers(3).clientAddresses(6).build())
        {
            topology.inNamespace(topology.clientNamespace(), "ethtool", "-K", LbTopology.CLIENT_DEVICE, "tx", "off");
            for (final LbTopology.RealServer server : topology.realServers())
            {
                topology.inNamespace(server.namespace(), "ethtool", "-K", LbTopology.REAL_SERVER_DEVICE, "tx", "off");
            }
            // Two real queues on both ends of each of the director's veths (the bridge side picks the queue).
            for (final String device : List.of(LbTopology.DIRECTOR_CLIENT_DEVICE, LbTopology.DIRECTOR_SERVER_DEVICE))
            {
                topology.inNamespace(topology.directorNamespace(), "ethtool", "-L", device, "rx", "2", "tx", "2");
            }
            topology.inNamespace(topology.clientSwitchNamespace(), "ethtool", "-L", "pl", "rx", "2", "tx", "2");
            topology.inNamespace(topology.serverSwitchNamespace(), "ethtool", "-L", "pl", "rx", "2", "tx", "2");
            topology.startTcpServers(PORT, false);
            final String vip = topology.vip4().getHostAddress() + ":" + PORT;
            final StringBuilder config = new StringBuilder()
                .append("interface ").append(LbTopology.DIRECTOR_CLIENT_DEVICE).append(" port afxdp xdp-mode drv\n")
                .append("interface ").append(LbTopology.DIRECTOR_SERVER_DEVICE).append(" port afxdp xdp-mode drv\n")
                .append("workers 2\n")
                .append("-A -t ").append(vip).append(" -s rr\n");
            for (final LbTopology.RealServer server : topology.realServers())
            {
                config.append("-a -t ").append(vip).append(" -r ").append(server.ipv4().getHostAddress()).append(':')
                    .append(PORT).append(" -m -w 1\n");
            }
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config.toString()))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 30, MIB).parallel(3)
                        .sources(topology.clientAddresses4()));
                final Map<String, Long> status = daemon.status();
                assertThat(TcpDigestClient.failures(connections)).as(String.join("\n", daemon.log()) + "\n" + status)
                    .isEmpty();
                assertThat(connections).allSatisfy(connection ->
                    assertThat(connection.bytesConfirmed()).isEqualTo(MIB));
                for (int worker = 0; worker < 2; worker++)
                {
                    assertThat(status.get("port." + worker + ".0.rx-frames")).as("worker %d's queue on the client side",
                        worker).isPositive();
                    assertThat(status.get("worker." + worker + ".connections")).as("connections of worker %d", worker)
                        .isPositive();
                }
                assertThat(status.get("worker.0.handed-off")).isPositive()
                    .isEqualTo(status.get("worker.1.handoff-received"));
                assertThat(status.get("worker.1.handed-off")).isPositive()
                    .isEqualTo(status.get("worker.0.handoff-received"));
                assertThat(status.get("handoff-dropped")).isZero();
                daemon.signal("TERM");
                assertThat(daemon.awaitExit(Duration.ofSeconds(20))).isZero();
            }
        }
    }
}
