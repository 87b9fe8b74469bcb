package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the daemon takes but the host must handle reaches the host: with the VIP on the director's {@code lo}
 * (as an IPVS box holds it), a ping to the VIP is answered by the kernel (the XDP and steal programs leave echo
 * requests to it), and a TCP SYN to a VIP port no service has is passed by the pipeline and reaches the kernel
 * (through the TAP when the port took it from the kernel), which refuses it with a reset at once instead of
 * the client timing out.
 */
class DaemonHostPathTest
{
    private static final int PORT = 8080;

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(strings = {"afxdp xdp-mode drv", "afpacket"})
    void shouldLetTheHostAnswerPingsAndRefuseConnectionsToPortsWithoutService(final String port) throws Exception
    {
        try (LbTopology topology = LbTopology.builder("host").mode(Mode.NAT).realServers(1).build())
        {
            topology.inNamespace(topology.clientNamespace(), "ethtool", "-K", LbTopology.CLIENT_DEVICE, "tx", "off");
            topology.inNamespace(topology.directorNamespace(), "ip", "addr", "add",
                topology.vip4().getHostAddress() + "/32", "dev", "lo");
            final String config = DaemonConfigs.twoArm(port) + DaemonConfigs.service('t', topology.vip4(), PORT, "rr",
                'm', DaemonConfigs.serversV4(topology), 1);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final boolean answered = LbTopology.callIn(topology.clientNamespace(),
                    () -> topology.vip4().isReachable(2000));
                assertThat(answered).as("ping to the VIP, log: %s", daemon.log()).isTrue();

                final long started = System.nanoTime();
                assertThatThrownBy(() -> LbTopology.callIn(topology.clientNamespace(), () ->
                {
                    try (Socket socket = new Socket())
                    {
                        socket.connect(new InetSocketAddress(topology.vip4(), 9999), 3000);
                    }
                    return null;
                })).hasRootCauseInstanceOf(ConnectException.class);
                assertThat((System.nanoTime() - started) / 1_000_000).as("refused, not timed out").isLessThan(2500);

                final Map<String, Long> status = daemon.status();
                assertThat(status.get("passed")).as("the SYN to port 9999 was passed: %s", status).isPositive();
                if (port.startsWith("afxdp"))
                {
                    assertThat(status.get("host-passed")).as("through the TAP").isPositive();
                    assertThat(status).as("counted on the XDP interface, nothing dropped")
                        .containsEntry("xdp." + LbTopology.DIRECTOR_CLIENT_DEVICE + ".aborted", 0L);
                }
                else
                {
                    assertThat(status).as("no XDP interface: no per-interface lines")
                        .doesNotContainKey("xdp." + LbTopology.DIRECTOR_CLIENT_DEVICE + ".aborted");
                }
                // Passed frames reach the kernel by the XDP program's XDP_PASS or the TAP, never by a drop.
                for (final String drop : List.of("xdp-aborted", "xdp-socket-refused", "xdp-device-refused",
                    "xdp-transmit-dropped"))
                {
                    assertThat(status.get(drop)).as(drop).isZero();
                }
            }
        }
    }
}
