package io.jvs.forwarder.port.xdp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jvs.forwarder.port.xdp.ForwardingNetwork.SINK_MAC;
import static io.jvs.forwarder.port.xdp.ForwardingNetwork.TRANSMIT_MAC;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two queues on veths made with two: one socket and one UMEM per queue, the XSKMAP keyed by queue id. UDP
 * frames of many flows leave g0 on the queue their hash picks and arrive on the same queue of fA (native
 * XDP on veth keeps the queue); every frame crosses, whichever queue it took. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AfXdpQueuesTest
{
    private static final int QUEUES = 2;
    private static final int FRAMES = 400;
    private static final int FLOWS = 64;

    @Test
    void shouldForwardFromEveryQueueThroughItsOwnSocket()
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxq", QUEUES);
             AfXdpForwardingPair pair = AfXdpForwardingTest.openIn(network.forwarder,
                 AfXdpSettings.defaults(XdpMode.DRV).withChunks(4096).withQueues(0, QUEUES));
             RawPacketSocket generator = RawPacketSocket.open(network.generator, ForwardingNetwork.GENERATOR_DEVICE,
                 AfPacket.ETH_P_IP);
             RawPacketSocket sink = RawPacketSocket.open(network.sink, ForwardingNetwork.SINK_DEVICE,
                 AfPacket.ETH_P_IP))
        {
            assertThat(pair.queues()).isEqualTo(QUEUES);
            assertThat(pair.describe()).contains("afxdp:fA/0 -> afxdp:fB/0, afxdp:fA/1 -> afxdp:fB/1");
            final MacRewriteLoop[] loops = new MacRewriteLoop[QUEUES];
            for (int i = 0; i < QUEUES; i++)
            {
                loops[i] = new MacRewriteLoop(pair.receivePort(i), pair.transmitPort(i), SINK_MAC, TRANSMIT_MAC);
            }
            final List<String> expected = new ArrayList<>();
            for (int i = 0; i < FRAMES; i++)
            {
                final byte[] frame = udpFrame(i);
                generator.send(frame);
                expected.add(AfXdpForwardingTest.hex(AfXdpForwardingTest.rewritten(frame)));
            }
            final List<String> received = new ArrayList<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (received.size() < FRAMES && System.nanoTime() - deadline < 0)
            {
                for (final MacRewriteLoop loop : loops)
                {
                    loop.poll(System.nanoTime());
                }
                for (byte[] frame = sink.poll(); frame != null; frame = sink.poll())
                {
                    received.add(AfXdpForwardingTest.hex(frame));
                }
            }

            assertThat(received).containsExactlyInAnyOrderElementsOf(expected);
            final long queue0 = pair.receivePort(0).counters().rxFrames();
            final long queue1 = pair.receivePort(1).counters().rxFrames();
            assertThat(queue0 + queue1).isEqualTo(FRAMES);
            assertThat(queue0).as("frames on queue 0 (queue 1 had %d)", queue1).isPositive();
            assertThat(queue1).as("frames on queue 1 (queue 0 had %d)", queue0).isPositive();
            assertThat(pair.transmitPort(0).counters().txFrames()).isEqualTo(queue0);
            assertThat(pair.transmitPort(1).counters().txFrames()).isEqualTo(queue1);
        }
    }

    /** An IPv4 UDP frame of flow {@code i % FLOWS} (its source port), numbered in its payload. */
    private static byte[] udpFrame(final int i)
    {
        final byte[] frame = ForwardingNetwork.udpFrame(80, 2, 20000 + i % FLOWS, 9999);
        frame[42] = (byte)(i >>> 8);
        frame[43] = (byte)i;
        return frame;
    }
}
