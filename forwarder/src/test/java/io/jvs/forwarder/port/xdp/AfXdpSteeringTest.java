package io.jvs.forwarder.port.xdp;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jvs.forwarder.port.xdp.ForwardingNetwork.SINK_MAC;
import static io.jvs.forwarder.port.xdp.ForwardingNetwork.TRANSMIT_MAC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The settings that choose what the pair takes and how it binds: the VIP filter program hands the pair only
 * frames to a VIP (the rest stay the kernel's), explicit copy mode says plainly "copy", and explicit
 * zero-copy on a veth fails with the kernel's EOPNOTSUPP instead of falling back. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AfXdpSteeringTest
{
    private static final AfXdpSettings SMALL = AfXdpSettings.defaults(XdpMode.SKB).withChunks(1024)
        .withRings(256, 256, 256, 256);

    @Test
    void shouldTakeOnlyFramesToAVipWithTheVipFilter() throws Exception
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxv");
             AfXdpForwardingPair pair = AfXdpForwardingTest.openIn(network.forwarder,
                 SMALL.withSteering(XdpSteering.VIP_FILTER));
             RawPacketSocket generator = RawPacketSocket.open(network.generator, ForwardingNetwork.GENERATOR_DEVICE,
                 AfPacket.ETH_P_IP);
             RawPacketSocket sink = RawPacketSocket.open(network.sink, ForwardingNetwork.SINK_DEVICE,
                 AfPacket.ETH_P_IP))
        {
            assertThat(pair.describe()).contains("steering VIP_FILTER");
            pair.vipFilter().addVip(InetAddress.getByName("10.77.2.2"));
            final MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(), SINK_MAC,
                TRANSMIT_MAC);
            final List<String> expected = new ArrayList<>();
            for (int i = 0; i < 20; i++)
            {
                final byte[] toVip = ipv4Frame(2, i);
                generator.send(toVip);
                generator.send(ipv4Frame(3, i));
                expected.add(AfXdpForwardingTest.hex(AfXdpForwardingTest.rewritten(toVip)));
            }
            final List<String> received = new ArrayList<>();
            AfXdpForwardingTest.pump(loop, sink, received, expected.size());
            // Give a frame to 10.77.2.3 wrongly taken a chance to show up too.
            final long settle = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
            while (System.nanoTime() - settle < 0)
            {
                loop.poll(System.nanoTime());
                for (byte[] frame = sink.poll(); frame != null; frame = sink.poll())
                {
                    received.add(AfXdpForwardingTest.hex(frame));
                }
            }
            assertThat(received).containsExactlyElementsOf(expected);
            assertThat(pair.receivePort().counters().rxFrames()).isEqualTo(expected.size());
        }
    }

    @Test
    void shouldSayCopyWithoutANoteWhenCopyIsAskedFor()
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxm");
             AfXdpForwardingPair pair = AfXdpForwardingTest.openIn(network.forwarder,
                 SMALL.withBindMode(XdpBindMode.COPY)))
        {
            assertThat(pair.describe()).contains(", copy, xdp SKB").doesNotContain("fell back");
        }
    }

    @Test
    void shouldRefuseZeroCopyOnAVethClearly()
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxz"))
        {
            assertThatThrownBy(() -> AfXdpForwardingTest.openIn(network.forwarder,
                SMALL.withBindMode(XdpBindMode.ZEROCOPY)))
                .isInstanceOf(NativeCallException.class)
                .hasMessageStartingWith("bind failed: EOPNOTSUPP")
                .hasMessageContaining("AF_XDP socket on fA queue 0 in zero-copy mode");
            assertThat(network.receiveDeviceDetails()).doesNotContain("prog/xdp");
        }
    }

    /** IPv4 UDP from 10.77.1.1 to 10.77.2.{@code lastByte}, numbered {@code i}. */
    private static byte[] ipv4Frame(final int lastByte, final int i)
    {
        return ForwardingNetwork.udpFrame(64, lastByte, i & 0xFF, 9);
    }
}
