package io.jvs.forwarder.daemon.it;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import io.jvs.forwarder.daemon.it.Host;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TUN topology's real servers decapsulate with the {@link TunnelDecapsulator} XDP program: a frame
 * built by hand in the director's namespace, the client's packet to the VIP inside an outer header to the
 * real server, reaches the server's socket on the VIP as if it had come bare, and the answer goes from
 * the VIP straight to the client through the router, never through the director. Without the program the
 * same frame reaches nobody. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TunnelFixtureTest
{
    private static final int UDP_PORT = 5353;
    private static final int TCP_PORT = 8080;
    private static final int CLIENT_PORT = 40000;
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(3);

    static Stream<Arguments> families()
    {
        return Stream.of(
            Arguments.of("IPv4 in IPv4", true, true),
            Arguments.of("IPv6 in IPv4", true, false),
            Arguments.of("IPv4 in IPv6", false, true),
            Arguments.of("IPv6 in IPv6", false, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("families")
    void shouldDeliverATunnelledDatagramToTheVipAndAnswerTheClientAroundTheDirector(final String name,
        final boolean outerIpv4, final boolean innerIpv4) throws IOException
    {
        try (LbTopology topology = LbTopology.builder("tun").mode(Mode.TUN).realServers(2).build())
        {
            final List<UdpDigestServer> servers = topology.startUdpServers(UDP_PORT);
            final Host target = topology.realServer(2);
            final InetAddress client = innerIpv4 ? topology.client().ipv4() : topology.client().ipv6();
            final InetAddress vip = innerIpv4 ? topology.vip4() : topology.vip6();
            final byte[] request = "a datagram for the VIP, sent in a tunnel".getBytes();
            try (DatagramChannel socket = clientSocket(topology, client);
                 RawPacketSocket watch = RawPacketSocket.openIncoming(topology.clientNamespace(),
                     LbTopology.CLIENT_DEVICE, AfPacket.ETH_P_ALL))
            {
                sendTunnelled(topology, target, outerIpv4, TestPackets.ip(client, vip, TestPackets.IPPROTO_UDP,
                    TestPackets.udp(client, vip, CLIENT_PORT, UDP_PORT, request)));

                final DatagramPacket answer = receive(socket);
                assertThat(answer).as("an answer to the tunnelled datagram").isNotNull();
                assertThat(answer.getSocketAddress()).isEqualTo(new InetSocketAddress(vip, UDP_PORT));
                final TrafficProtocol.UdpAnswer read = TrafficProtocol.readUdpAnswer(
                    ByteBuffer.wrap(answer.getData(), 0, answer.getLength()));
                assertThat(read.identity()).isEqualTo("rs2");
                assertThat(read.digest()).isEqualTo(TrafficProtocol.sha256().digest(request));
                assertThat(servers.get(1).asked()).singleElement().satisfies(asked ->
                {
                    assertThat(asked.client()).isEqualTo(new InetSocketAddress(client, CLIENT_PORT));
                    assertThat(asked.local()).isEqualTo(new InetSocketAddress(vip, UDP_PORT));
                });
                assertThat(servers.get(0).asked()).isEmpty();
                final byte[] arrived = watch.await(received -> isFrom(received, vip, UDP_PORT),
                    Duration.ofSeconds(1));
                assertThat(arrived).as("the answer's frame on the client's device").isNotNull();
                assertThat(arrived).startsWith(topology.client().macBytes());
                assertThat(TestPackets.parse(arrived).sourceMac())
                    .as("the answer comes from the router, not the director")
                    .isEqualTo(topology.routerClientSide().orElseThrow().macBytes());
            }
        }
    }

    @Test
    void shouldAnswerATunnelledSynWithASynAckStraightToTheClient()
    {
        try (LbTopology topology = LbTopology.builder("syn").mode(Mode.TUN).realServers(1).build())
        {
            topology.startTcpServers(TCP_PORT, false);
            final InetAddress client = topology.client().ipv4();
            try (RawPacketSocket watch = RawPacketSocket.openIncoming(topology.clientNamespace(),
                LbTopology.CLIENT_DEVICE, AfPacket.ETH_P_IP))
            {
                sendTunnelled(topology, topology.realServer(1), true, TestPackets.ip(client, topology.vip4(),
                    TestPackets.IPPROTO_TCP, TestPackets.tcp(client, topology.vip4(), CLIENT_PORT + 1, TCP_PORT,
                        1000, 0, TestPackets.TCP_SYN)));

                final byte[] synAck = watch.await(received -> isFrom(received, topology.vip4(), TCP_PORT),
                    ANSWER_TIMEOUT);
                assertThat(synAck).as("the server's answer to the SYN").isNotNull();
                final TestPackets.Frame frame = TestPackets.parse(synAck);
                assertThat(frame.hasTcpFlags(TestPackets.TCP_SYN | TestPackets.TCP_ACK)).isTrue();
                assertThat(frame.destination()).isEqualTo(client);
                assertThat(frame.destinationPort()).isEqualTo(CLIENT_PORT + 1);
                assertThat(frame.sourceMac()).isEqualTo(topology.routerClientSide().orElseThrow().macBytes());
            }
        }
    }

    @Test
    void shouldHoldTheProgramForTheTopologysLifeAndDeliverNothingWithoutIt() throws IOException
    {
        try (LbTopology topology = LbTopology.builder("nodc").mode(Mode.TUN).realServers(1).build())
        {
            final Host server = topology.realServer(1);
            assertThat(Netns.ip(server.namespace(), "-d", "link", "show", "dev", LbTopology.REAL_SERVER_DEVICE))
                .contains("xdpgeneric").contains(TunnelDecapsulator.PROGRAM_NAME);
            final List<UdpDigestServer> servers = topology.startUdpServers(UDP_PORT);
            final InetAddress client = topology.client().ipv4();
            final byte[] inner = TestPackets.ip(client, topology.vip4(), TestPackets.IPPROTO_UDP,
                TestPackets.udp(client, topology.vip4(), CLIENT_PORT, UDP_PORT, new byte[16]));
            try (DatagramChannel socket = clientSocket(topology, client))
            {
                topology.decapsulatorLinks().getFirst().close();
                assertThat(Netns.ip(server.namespace(), "-d", "link", "show", "dev", LbTopology.REAL_SERVER_DEVICE))
                    .doesNotContain("xdpgeneric");

                sendTunnelled(topology, server, true, inner);

                assertThat(receive(socket, Duration.ofMillis(500))).as("an answer without the decapsulator").isNull();
                assertThat(servers.getFirst().asked()).isEmpty();
            }
        }
    }

    /** Sends {@code inner} from the director's server side to the real server inside an outer header. */
    private static void sendTunnelled(final LbTopology topology, final Host server, final boolean outerIpv4,
        final byte[] inner)
    {
        final NetInterface director = topology.directorServerSide();
        final InetAddress outerSource = outerIpv4 ? director.ipv4() : director.ipv6();
        final InetAddress outerDestination = outerIpv4 ? server.ipv4() : server.ipv6();
        try (RawPacketSocket sender = RawPacketSocket.open(director.namespace(), director.name(), 0))
        {
            sender.send(TestPackets.ethernet(server.nic().macBytes(), director.macBytes(),
                TestPackets.etherType(outerSource), TestPackets.encapsulate(outerSource, outerDestination, inner)));
        }
    }

    private static DatagramChannel clientSocket(final LbTopology topology, final InetAddress client)
    {
        return TestNetwork.callIn(topology.clientNamespace(), () ->
        {
            final DatagramChannel channel = DatagramChannel.open(client instanceof Inet4Address ?
                StandardProtocolFamily.INET : StandardProtocolFamily.INET6);
            channel.bind(new InetSocketAddress(client, CLIENT_PORT));
            return channel;
        });
    }

    private static DatagramPacket receive(final DatagramChannel channel) throws IOException
    {
        return receive(channel, ANSWER_TIMEOUT);
    }

    private static DatagramPacket receive(final DatagramChannel channel, final Duration timeout) throws IOException
    {
        final DatagramSocket socket = channel.socket();
        socket.setSoTimeout((int)timeout.toMillis());
        final DatagramPacket packet = new DatagramPacket(new byte[2048], 2048);
        try
        {
            socket.receive(packet);
            return packet;
        }
        catch (final SocketTimeoutException ex)
        {
            return null;
        }
    }

    private static boolean isFrom(final byte[] received, final InetAddress source, final int port)
    {
        final TestPackets.Frame frame = TestPackets.parse(received);
        return frame != null && frame.source().equals(source) && frame.sourcePort() == port;
    }
}
