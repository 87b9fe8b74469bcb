package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ipvsadm -L -c of a firewall-mark service, whose servers have port 0: a connection entry names the port it
 * forwards to, the datagram's own (the kernel's cp->dport), and a persistence template port 0, assured once a reply
 * passed, as IPVS lists them.
 */
class DaemonFwmarkConnectionsTest
{
    private static final int PORT = 5353;
    private static final int CLIENT_PORT = 20_500;
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    Path directory;

    @Test
    void shouldListAFwmarkConnectionWithThePortItForwardsTo() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("fwmconn").mode(Mode.NAT).realServers(1).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final String vip = topology.vip4().getHostAddress();
            final String server = topology.realServers().get(0).ipv4().getHostAddress();
            final String config = DaemonConfigs.twoArm() +
                "mark 7 in " + LbTopology.DIRECTOR_CLIENT_DEVICE + " dst " + vip + " proto udp\n" +
                "-A -f 7 -s rr -p 60\n-a -f 7 -r " + server + " -m\n";
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                try (DatagramSocket socket = LbTopology.callIn(topology.clientNamespace(),
                    () -> new DatagramSocket(new InetSocketAddress(CLIENT_PORT))))
                {
                    socket.setSoTimeout(2000);
                    assertThat(UdpDigestClient.identityOrNull(socket, new InetSocketAddress(topology.vip4(), PORT)))
                        .as("%s", daemon.log()).isEqualTo("rs1");
                }
                // pro expire state source virtual destination, as ipvsadm prints an entry.
                final List<List<String>> entries = ipvsadm(daemon, "-L", "-c", "-n").lines()
                    .map(line -> List.of(line.trim().split("\\s+"))).filter(fields -> fields.size() == 6).toList();
                assertThat(entries).as("the connection, forwarded to the datagram's port").anySatisfy(fields ->
                    assertThat(fields.subList(2, 6)).containsExactly("UDP", "10.0.0.2:" + CLIENT_PORT,
                        vip + ":" + PORT, server + ":" + PORT));
                assertThat(entries).as("the template, ports 0, assured by the reply").anySatisfy(fields ->
                    assertThat(fields.subList(2, 6))
                        .containsExactly("ASSURED", "10.0.0.2:0", "0.0.0.7:0", server + ":0"));
            }
        }
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
