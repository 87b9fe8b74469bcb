package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.jvs.core.packet.Checksums;
import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jvs.forwarder.port.xdp.ForwardingNetwork.GENERATOR_DEVICE;
import static io.jvs.forwarder.port.xdp.ForwardingNetwork.RECEIVE_MAC;
import static io.jvs.forwarder.port.xdp.ForwardingNetwork.SINK_DEVICE;
import static io.jvs.forwarder.port.xdp.ForwardingNetwork.SINK_MAC;
import static io.jvs.forwarder.port.xdp.ForwardingNetwork.TRANSMIT_MAC;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real UDP socket in gen sends through the pair. With the veth's default TX checksum offload the kernel
 * hands the frame to XDP as CHECKSUM_PARTIAL: the UDP checksum field holds only the pseudo-header sum, and
 * AF_XDP gives no sign of it, so the pair forwards a corrupt checksum. The approach taken here, and the one
 * the test setup of a veth sender needs: {@code ethtool -K g0 tx off} in the sender's namespace, after which
 * the forwarded checksum is valid. (A real NIC receiving from a wire has no such frames.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AfXdpChecksumTest
{
    private static final int ETHERNET_HEADER = 14;

    @ParameterizedTest
    @EnumSource(XdpMode.class)
    void shouldForwardAValidUdpChecksumOnceTheSendingVethComputesIt(final XdpMode mode) throws Exception
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxc");
             AfXdpForwardingPair pair = AfXdpForwardingTest.openIn(network.forwarder, AfXdpSettings.defaults(mode));
             RawPacketSocket sink = RawPacketSocket.open(network.sink, SINK_DEVICE, AfPacket.ETH_P_IP))
        {
            final TestNetwork test = network.network;
            test.inNamespace(network.generator, "ip", "addr", "add", "10.77.1.1/24", "dev", GENERATOR_DEVICE);
            test.inNamespace(network.generator, "ip", "neigh", "add", "10.77.1.2", "lladdr",
                ForwardingNetwork.mac(RECEIVE_MAC), "dev", GENERATOR_DEVICE, "nud", "permanent");
            final MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(), SINK_MAC,
                TRANSMIT_MAC);

            final byte[] partial = forwardOneDatagram(network, loop, sink);
            assertThat(udpChecksumValid(partial)).as("with TX checksum offload on g0: partial checksum %s",
                HexFormat.of().formatHex(partial)).isFalse();

            test.inNamespace(network.generator, "ethtool", "-K", GENERATOR_DEVICE, "tx", "off");
            final byte[] full = forwardOneDatagram(network, loop, sink);
            assertThat(udpChecksumValid(full)).as("with TX checksum offload off on g0: %s",
                HexFormat.of().formatHex(full)).isTrue();
        }
    }

    private static byte[] forwardOneDatagram(final ForwardingNetwork network, final MacRewriteLoop loop,
        final RawPacketSocket sink)
    {
        TestNetwork.callIn(network.generator, () ->
        {
            try (DatagramChannel channel = DatagramChannel.open())
            {
                channel.send(ByteBuffer.wrap("jvs AF_XDP checksum probe".getBytes(StandardCharsets.US_ASCII)),
                    new InetSocketAddress("10.77.1.2", 9999));
            }
            return null;
        });
        final List<String> received = new ArrayList<>();
        AfXdpForwardingTest.pump(loop, sink, received, 1);
        assertThat(received).as("the datagram crossed the pair").hasSize(1);
        return HexFormat.of().parseHex(received.get(0));
    }

    private static boolean udpChecksumValid(final byte[] frame)
    {
        assertThat(frame[ETHERNET_HEADER + 9]).as("UDP").isEqualTo((byte)17);
        final int ipHeader = (frame[ETHERNET_HEADER] & 0x0F) * 4;
        final int udp = ETHERNET_HEADER + ipHeader;
        final int udpLength = ((frame[udp + 4] & 0xFF) << 8) | (frame[udp + 5] & 0xFF);
        assertThat(frame[udp + 6] | frame[udp + 7]).as("the sender computed a checksum").isNotZero();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment copy = arena.allocateFrom(ValueLayout.JAVA_BYTE, frame);
            return Checksums.isTransportChecksumValidV4(copy.address() + ETHERNET_HEADER + 12, 17,
                copy.address() + udp, udpLength);
        }
    }
}
