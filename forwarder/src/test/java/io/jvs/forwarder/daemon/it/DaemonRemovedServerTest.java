package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reload that removes a real server: its connections follow {@code expire_nodest_conn}, as IPVS's do. A UDP
 * client keeps one source port, so its datagrams are one connection; after its server is removed, with
 * {@code expire_nodest_conn 0} the next datagram is dropped ({@code server-removed}), with 1 the connection is
 * expired and the datagram scheduled afresh, to the server that is left. And a reload's {@code neighbour}
 * statement overrides the kernel's entry at once, and its removal gives the kernel's back.
 */
class DaemonRemovedServerTest
{
    private static final int PORT = 5353;

    @TempDir
    Path directory;

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void shouldTreatTheConnectionsOfARemovedServerAsExpireNodestConnSays(final int expire) throws Exception
    {
        try (LbTopology topology = LbTopology.builder("nodst").mode(Mode.NAT).realServers(2).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final List<Host> servers = topology.realServers();
            final String vip = DaemonConfigs.endpoint(topology.vip4(), PORT);
            final String head = DaemonConfigs.twoArm() + "set expire_nodest_conn " + expire + "\n" +
                "-A -u " + vip + " -s rr\n";
            final String both = head + serverLine(vip, servers.get(0)) + serverLine(vip, servers.get(1));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, both);
                DatagramSocket socket = LbTopology.callIn(topology.clientNamespace(), DatagramSocket::new))
            {
                socket.setSoTimeout(2000);
                final InetSocketAddress service = new InetSocketAddress(topology.vip4(), PORT);
                final String first = ask(socket, service);
                assertThat(first).as("%s", daemon.log()).isIn("rs1", "rs2");
                final Host kept = first.equals("rs1") ? servers.get(1) : servers.get(0);

                daemon.rewrite(directory, head + serverLine(vip, kept));
                daemon.signal("HUP");
                daemon.awaitLog("reload (SIGHUP): ", Duration.ofSeconds(10));

                if (expire == 0)
                {
                    socket.setSoTimeout(1500);
                    assertThat(askOrNull(socket, service)).as("dropped: the connection's server is gone").isNull();
                    assertThat(daemon.status().get("drop.server-removed")).isPositive();
                }
                else
                {
                    assertThat(ask(socket, service)).as("scheduled afresh").isEqualTo(kept.name());
                }
            }
        }
    }

    @org.junit.jupiter.api.Test
    void shouldApplyAReloadedNeighbourStatementAndItsRemoval() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("nbrld").mode(Mode.NAT).realServers(1).ipv6(false).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startUdpServers(PORT);
            final Host server = topology.realServers().get(0);
            final String vip = DaemonConfigs.endpoint(topology.vip4(), PORT);
            final String config = DaemonConfigs.twoArm() + "-A -u " + vip + " -s rr\n" + serverLine(vip, server);
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config);
                DatagramSocket socket = LbTopology.callIn(topology.clientNamespace(), DatagramSocket::new))
            {
                socket.setSoTimeout(2000);
                final InetSocketAddress service = new InetSocketAddress(topology.vip4(), PORT);
                assertThat(ask(socket, service)).isEqualTo("rs1");

                // A MAC nobody has: the frames leave for it, and no answer comes.
                daemon.rewrite(directory, config + "neighbour " + server.ipv4().getHostAddress() +
                    " mac 02:00:00:00:99:99 port 1\n");
                daemon.signal("HUP");
                daemon.awaitLog("neighbour overrides: 1 added", Duration.ofSeconds(10));
                socket.setSoTimeout(1000);
                assertThat(askOrNull(socket, service)).as("sent to the statement's MAC").isNull();

                daemon.rewrite(directory, config);
                daemon.signal("HUP");
                daemon.awaitLog("neighbour overrides: 1 removed", Duration.ofSeconds(10));
                socket.setSoTimeout(2000);
                assertThat(ask(socket, service)).as("the kernel's entry again").isEqualTo("rs1");
            }
        }
    }

    private static String serverLine(final String vip, final Host server)
    {
        return "-a -u " + vip + " -r " + DaemonConfigs.endpoint(server.ipv4(), PORT) + " -m -w 1\n";
    }

    private static String ask(final DatagramSocket socket, final InetSocketAddress service) throws IOException
    {
        final String identity = askOrNull(socket, service);
        assertThat(identity).as("an answer from %s", service).isNotNull();
        return identity;
    }

    private static String askOrNull(final DatagramSocket socket, final InetSocketAddress service) throws IOException
    {
        return UdpDigestClient.identityOrNull(socket, service);
    }
}
