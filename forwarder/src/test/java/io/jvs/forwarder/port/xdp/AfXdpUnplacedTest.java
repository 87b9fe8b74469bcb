package io.jvs.forwarder.port.xdp;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.Port;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Frames the VIP filter program cannot place: fA has two queues and a socket on queue 0 only. UDP datagrams to a
 * VIP (held on fwd's lo, with a kernel socket bound to it) from many flows leave g0 on both queues; those of queue
 * 0 reach the AF_XDP port, those of queue 1 reach the kernel's socket instead of vanishing, and each of them is
 * counted as unplaced. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AfXdpUnplacedTest
{
    private static final String VIP = "10.77.2.2";
    private static final int PORT = 9999;
    private static final int FRAMES = 200;
    private static final int FLOWS = 64;

    @Test
    void shouldCountAndPassToTheKernelTheFramesOfAQueueWithoutASocket() throws Exception
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxu", 2);
             AfXdpForwardingPair pair = AfXdpForwardingTest.openIn(network.forwarder, AfXdpSettings.defaults(
                 XdpMode.DRV).withChunks(4096).withSteering(XdpSteering.VIP_FILTER).withQueues(0, 1));
             RawPacketSocket generator = RawPacketSocket.open(network.generator, ForwardingNetwork.GENERATOR_DEVICE,
                 AfPacket.ETH_P_IP))
        {
            network.network.inNamespace(network.forwarder, "ip", "addr", "add", VIP + "/32", "dev", "lo");
            pair.vipFilter().addVip(InetAddress.getByName(VIP));
            try (DatagramSocket kernel = TestNetwork.callIn(network.forwarder,
                () -> new DatagramSocket(new InetSocketAddress(VIP, PORT))))
            {
                kernel.setSoTimeout(200);
                for (int i = 0; i < FRAMES; i++)
                {
                    generator.send(datagram(i));
                }
                final FrameBurst burst = new FrameBurst();
                final Port queue0 = pair.receivePort(0);
                int atPort = 0;
                int atKernel = 0;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (atPort + atKernel < FRAMES && System.nanoTime() - deadline < 0)
                {
                    burst.clear();
                    atPort += queue0.receive(burst, System.nanoTime());
                    queue0.release(burst);
                    atKernel += receiveAll(kernel);
                }

                assertThat(atPort + atKernel).isEqualTo(FRAMES);
                assertThat(atPort).as("frames on queue 0 (the kernel had %d)", atKernel).isPositive();
                assertThat(atKernel).as("frames on queue 1 (the port had %d)", atPort).isPositive();
                assertThat(pair.vipFilter().unplacedFrames()).isEqualTo(atKernel);
            }
        }
    }

    private static int receiveAll(final DatagramSocket socket) throws Exception
    {
        final DatagramPacket packet = new DatagramPacket(new byte[128], 128);
        int received = 0;
        try
        {
            while (true)
            {
                socket.receive(packet);
                received++;
                socket.setSoTimeout(1);
            }
        }
        catch (final SocketTimeoutException ex)
        {
            socket.setSoTimeout(50);
            return received;
        }
    }

    /** UDP from 10.77.1.1 to the VIP, flow {@code i % FLOWS} by its source port, with a valid IP checksum. */
    private static byte[] datagram(final int i)
    {
        final byte[] frame = ForwardingNetwork.udpFrame(64, 2, 20_000 + i % FLOWS, PORT);
        int sum = 0;
        for (int at = 14; at < 34; at += 2)
        {
            sum += (frame[at] & 0xFF) << 8 | frame[at + 1] & 0xFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = ~((sum & 0xFFFF) + (sum >>> 16)) & 0xFFFF;
        frame[24] = (byte)(sum >>> 8);
        frame[25] = (byte)sum;
        return frame;
    }
}
