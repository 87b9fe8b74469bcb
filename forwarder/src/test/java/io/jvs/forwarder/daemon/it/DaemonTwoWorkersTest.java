package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
 * receive on its own queue, and what one worker hands off is what the other receives. Over AF_PACKET the
 * fanout program gives each worker its own clients' frames, so nothing is handed over at all.
 */
class DaemonTwoWorkersTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldGiveEveryFrameToItsClientsWorkerAndCarryEveryTransfer(final String port) throws Exception
    {
        final boolean xdp = port.startsWith("afxdp");
        try (LbTopology topology = LbTopology.builder("two").mode(Mode.NAT).realServers(3).clientAddresses(6)
            .directorQueues(2).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm(port, "2") + DaemonConfigs.service('t', topology.vip4(), PORT,
                "rr", 'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(3));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                // Two workers are warmed as two scratch workers handing frames to each other.
                assertThat(daemon.log()).anySatisfy(line -> assertThat(line).contains("warmed the data path"))
                    .noneSatisfy(line -> assertThat(line).contains("warm-up failed"));
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
                if (xdp)
                {
                    assertThat(status.get("worker.0.handed-off")).isPositive()
                        .isEqualTo(status.get("worker.1.handoff-received"));
                    assertThat(status.get("worker.1.handed-off")).isPositive()
                        .isEqualTo(status.get("worker.0.handoff-received"));
                    assertThat(status.get("xdp-unplaced")).as("every queue has its worker's socket").isZero();
                }
                else
                {
                    assertThat(status.get("handed-off")).as("fanout placed every frame").isZero();
                }
                assertThat(status.get("handoff-dropped")).isZero();
                daemon.signal("TERM");
                assertThat(daemon.awaitExit(Duration.ofSeconds(20))).isZero();
            }
        }
    }
}
