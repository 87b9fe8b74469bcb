package io.jvs.forwarder.port.packet;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real UDP socket in gen sends through g0 with the veth default tx-checksumming on, so its datagrams leave
 * with only the pseudo-header sum in the checksum field and fA's ring marks them TP_STATUS_CSUMNOTREADY. The
 * port must complete them: the sink receives datagrams whose checksum verifies. Needs root, as CI has.
 */
class AfPacketChecksumOffloadTest
{
    private static final int DATAGRAMS = 5;
    private static final int ETH_P_IP = 0x0800;
    private static final int UDP_CHECKSUM = 14 + 20 + 6;

    @Test
    void shouldCompleteTheChecksumOfDatagramsALocalSenderOffloaded() throws Exception
    {
        try (ForwardingNetwork net = new ForwardingNetwork("afpcsum"))
        {
            net.network.inNamespace(net.gen, "ip", "addr", "add", "10.77.1.1/24", "dev", "g0");
            // A neighbour entry, so no ARP: only our datagrams cross the links.
            net.network.inNamespace(net.gen, "ip", "neigh", "add", "10.77.1.2", "lladdr", "02:00:00:00:00:fa",
                "dev", "g0", "nud", "permanent");
            final TestNetwork.Result features = TestNetwork.tryRun("ip", "netns", "exec", net.gen, "ethtool", "-k", "g0");
            if (features.status() == 0)
            {
                assertThat(features.output()).as("the veth default this test relies on").contains("tx-checksumming: on");
            }
            try (RawPacketSocket sink = RawPacketSocket.openIncoming(net.sink, "s0", ETH_P_IP);
                AfPacketForwardingPair pair = TestNetwork.callIn(net.fwd,
                    () -> AfPacketForwardingPair.open(Syscalls.create(), "fA", "fB", AfPacketForwardingTest.SMALL)))
            {
                TestNetwork.callIn(net.gen, () ->
                {
                    try (DatagramChannel channel = DatagramChannel.open())
                    {
                        for (int i = 0; i < DATAGRAMS; i++)
                        {
                            final ByteBuffer payload = ByteBuffer.allocate(17 + i * 100);
                            while (payload.hasRemaining())
                            {
                                payload.put((byte)(payload.position() * 13 + i));
                            }
                            channel.send(payload.flip(), new InetSocketAddress("10.77.1.2", 5000 + i));
                        }
                    }
                    return null;
                });

                final List<byte[]> arrived = forward(pair, sink);

                assertThat(arrived).hasSize(DATAGRAMS);
                for (final byte[] frame : arrived)
                {
                    assertThat(frame[14 + 9]).as("UDP").isEqualTo((byte)17);
                    assertThat(TestPackets.word(frame, UDP_CHECKSUM))
                        .as("a completed checksum, %d bytes", frame.length)
                        .isNotZero()
                        .isEqualTo(TestPackets.referenceTransportChecksum(frame, 14));
                }
                assertThat(pair.receiveCounters().checksumsCompleted()).isEqualTo(DATAGRAMS);
                assertThat(pair.receiveCounters().checksumsNotCompleted()).isZero();
            }
        }
    }

    private static List<byte[]> forward(final AfPacketForwardingPair pair, final RawPacketSocket sink)
    {
        final MacRewriteLoop loop = new MacRewriteLoop(
            pair.receivePort(), pair.transmitPort(), TestPackets.NEW_DESTINATION, TestPackets.NEW_SOURCE);
        final List<byte[]> arrived = new ArrayList<>();
        final long deadline = System.nanoTime() + 5_000_000_000L;
        final long quietAfter = System.nanoTime() + 100_000_000L;
        while (System.nanoTime() < deadline && (arrived.size() < DATAGRAMS || System.nanoTime() < quietAfter))
        {
            loop.poll(System.nanoTime());
            byte[] frame;
            while ((frame = sink.receive(Duration.ZERO)) != null)
            {
                arrived.add(frame);
            }
        }
        return arrived;
    }
}
