package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ipvsadm -D of the only service on a VIP while a connection to it is open, then -A and -a again (as -C then -R
 * does): IPVS finds the connection before any service, drops its packets meanwhile without a word, and takes the
 * server back with it; the connection goes on. Left to the box's kernel, which holds the VIP, it was reset.
 */
class DaemonDeletedServiceTest
{
    private static final int PORT = 8080;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void shouldKeepAConnectionOfADeletedServiceForTheServiceCreatedAgain() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("delsvc").mode(Mode.NAT).realServers(1).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            final ServerSocket listener = topology.register(LbTopology.callIn(
                topology.realServers().get(0).namespace(), () -> new ServerSocket(PORT)));
            Thread.ofPlatform().daemon().start(() -> echo(listener));
            final String vip = DaemonConfigs.endpoint(topology.vip4(), PORT);
            final String server = DaemonConfigs.endpoint(topology.realServers().get(0).ipv4(), PORT);
            final String config = DaemonConfigs.twoArm() + "-A -t " + vip + " -s rr\n-a -t " + vip + " -r " + server +
                " -m\n";
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config);
                Socket client = LbTopology.callIn(topology.clientNamespace(), () ->
                {
                    final Socket socket = new Socket();
                    socket.connect(new InetSocketAddress(topology.vip4(), PORT), 2000);
                    return socket;
                }))
            {
                client.setSoTimeout(8000);
                final OutputStream out = client.getOutputStream();
                final InputStream in = client.getInputStream();
                out.write("one".getBytes(StandardCharsets.US_ASCII));
                assertThat(new String(in.readNBytes(3), StandardCharsets.US_ASCII)).isEqualTo("one");

                ok(daemon, "-D", "-t", vip);
                out.write("two".getBytes(StandardCharsets.US_ASCII));
                // Dropped by jvs, not reset by the kernel: the service comes back once a segment was dropped.
                final long deadline = System.nanoTime() + TIMEOUT.toNanos();
                while (daemon.status().get("drop.server-removed") == 0)
                {
                    assertThat(System.nanoTime() - deadline).as(() -> "no drop within " + TIMEOUT + ": " +
                        daemon.status()).isNegative();
                    Thread.sleep(20);
                }
                ok(daemon, "-A", "-t", vip, "-s", "rr");
                ok(daemon, "-a", "-t", vip, "-r", server, "-m");

                assertThat(new String(in.readNBytes(3), StandardCharsets.US_ASCII)).as("retransmitted, and answered")
                    .isEqualTo("two");
            }
        }
    }

    /** Echoes every byte of the first connection back as it arrives. */
    private static void echo(final ServerSocket listener)
    {
        try (Socket connection = listener.accept())
        {
            connection.getInputStream().transferTo(connection.getOutputStream());
        }
        catch (final IOException ex)
        {
            // Closed with the topology.
        }
    }

    private static void ok(final DaemonProcess daemon, final String... arguments) throws Exception
    {
        final ControlResponse response = ControlClient.exchange(daemon.control(),
            new ControlRequest.Ipvsadm(List.of(arguments), new byte[0]), TIMEOUT);
        assertThat(response).isInstanceOf(ControlResponse.Result.class);
        final ControlResponse.Result result = (ControlResponse.Result)response;
        assertThat(result.status()).as(new String(result.error(), StandardCharsets.UTF_8)).isZero();
    }
}
