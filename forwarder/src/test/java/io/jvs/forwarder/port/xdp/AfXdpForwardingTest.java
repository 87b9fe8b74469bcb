package io.jvs.forwarder.port.xdp;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.forwarder.port.PortCounters;
import io.jvs.forwarder.port.PortCountersDescriptor;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import static io.jvs.forwarder.port.xdp.ForwardingNetwork.RECEIVE_DEVICE;
import static io.jvs.forwarder.port.xdp.ForwardingNetwork.SINK_MAC;
import static io.jvs.forwarder.port.xdp.ForwardingNetwork.TRANSMIT_DEVICE;
import static io.jvs.forwarder.port.xdp.ForwardingNetwork.TRANSMIT_MAC;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Frames from a raw socket in namespace gen cross the AF_XDP pair in namespace fwd (fA to fB, MACs
 * rewritten by {@link MacRewriteLoop}) and reach a raw socket in namespace sink intact, in order, each
 * counted once, with the program attached in each XDP mode. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AfXdpForwardingTest
{
    /** IEEE 802 local experimental EtherType: nothing else on the test wires uses it. */
    static final int TEST_ETHER_TYPE = 0x88B5;
    private static final int FRAMES = 2000;
    private static final int FRAMES_PER_ROUND = 100;

    @ParameterizedTest
    @EnumSource(XdpMode.class)
    void shouldForwardEveryFrameIntactWithOnlyItsAddressesRewritten(final XdpMode mode)
    {
        forwardEveryFrame(AfXdpSettings.defaults(mode), false);
    }

    /**
     * With the device's interrupts deferred (napi_defer_hard_irqs, gro_flush_timeout) and SO_PREFER_BUSY_POLL,
     * the worker's recvfrom drives the queue: it still gets every frame, and it calls recvfrom whenever its RX
     * ring is empty (a veth schedules its NAPI from the sender's transmit as well, so frames also arrive
     * without those calls).
     */
    @ParameterizedTest
    @EnumSource(XdpMode.class)
    void shouldForwardEveryFrameWithPreferredBusyPolling(final XdpMode mode)
    {
        forwardEveryFrame(AfXdpSettings.defaults(mode).withBusyPoll(AfXdpSettings.DEFAULT_BATCH), true);
    }

    private static void forwardEveryFrame(final AfXdpSettings settings, final boolean busyPoll)
    {
        final XdpMode mode = settings.xdpMode();
        try (ForwardingNetwork network = new ForwardingNetwork("afxf");
             AfXdpForwardingPair pair = openIn(network.forwarder, settings);
             RawPacketSocket generator = RawPacketSocket.open(network.generator, ForwardingNetwork.GENERATOR_DEVICE,
                 TEST_ETHER_TYPE);
             RawPacketSocket sink = RawPacketSocket.open(network.sink, ForwardingNetwork.SINK_DEVICE, TEST_ETHER_TYPE))
        {
            assertThat(pair.describe()).contains("afxdp:fA/0 -> afxdp:fB/0").contains("copy")
                .contains("xdp " + mode);
            assertThat(network.receiveDeviceDetails()).contains(" " + mode.ipLinkName() + " ");
            assertThat(pair.transmitMac()).containsExactly(TRANSMIT_MAC);
            if (busyPoll)
            {
                network.network.inNamespace(network.forwarder, "sh", "-c",
                    "echo 2 > /sys/class/net/fA/napi_defer_hard_irqs; echo 200000 > /sys/class/net/fA/gro_flush_timeout");
                assertThat(pair.describe()).contains("preferred busy polling (budget 64)");
            }

            final MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(), SINK_MAC,
                TRANSMIT_MAC);
            final List<String> expected = new ArrayList<>();
            final List<String> received = new ArrayList<>();
            for (int first = 0; first < FRAMES; first += FRAMES_PER_ROUND)
            {
                for (int i = first; i < first + FRAMES_PER_ROUND; i++)
                {
                    final byte[] frame = testFrame(i);
                    generator.send(frame);
                    expected.add(hex(rewritten(frame)));
                }
                pump(loop, sink, received, first + FRAMES_PER_ROUND);
            }

            assertThat(received).hasSize(FRAMES).containsExactlyElementsOf(expected);
            final PortCounters rx = pair.receivePort().counters();
            final PortCounters tx = pair.transmitPort().counters();
            rx.refresh();
            assertThat(rx.rxFrames()).isEqualTo(FRAMES);
            assertThat(tx.txFrames()).isEqualTo(FRAMES);
            assertThat(tx.txCopied()).as("zero-copy between the ports: one UMEM").isZero();
            assertThat(tx.txRingFull()).isZero();
            assertThat(rx.kernelRxDropped()).isZero();
            assertThat(rx.kernelInvalid()).isZero();
            assertThat(loop.forwarded()).isEqualTo(FRAMES);
            assertThat(pair.umem().refusedFrees()).as("no chunk given back twice").isZero();
            final long wakeupsBefore = rx.wakeups();
            for (int i = 0; i < 3; i++)
            {
                assertThat(loop.poll(System.nanoTime())).isZero();
            }
            assertThat(rx.wakeups() - wakeupsBefore).as("recvfrom calls on an empty RX ring: busy polls only")
                .isEqualTo(busyPoll ? 3 : 0);
        }
    }

    /**
     * Frames the kernel cannot hand to a socket that is not polled are counted by why: with a small receive ring and
     * a full fill ring, as a full receive ring (the poller was behind); with a small fill ring, as a fill ring that ran
     * dry (copy mode finds no buffer to copy into before it looks at the receive ring). Both are kernel-rx-dropped.
     */
    @ParameterizedTest
    @CsvSource({"64, 256, true", "256, 64, false"})
    void shouldCountFramesTheKernelDroppedByWhetherTheReceiveRingOrTheFillRingRanOut(final int rxRing,
        final int fillRing, final boolean receiveRingFull)
    {
        final int sent = 200;
        final int dropped = sent - Math.min(rxRing, fillRing);
        try (ForwardingNetwork network = new ForwardingNetwork("afxd");
             AfXdpForwardingPair pair = openIn(network.forwarder,
                 AfXdpSettings.defaults(XdpMode.DRV).withRings(rxRing, 256, fillRing, 256));
             RawPacketSocket generator = RawPacketSocket.open(network.generator, ForwardingNetwork.GENERATOR_DEVICE,
                 TEST_ETHER_TYPE))
        {
            for (int i = 0; i < sent; i++)
            {
                generator.send(testFrame(i));
            }
            final PortCounters rx = pair.receivePort().counters();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            do
            {
                rx.refresh();
            }
            while (rx.kernelRxDropped() < dropped && System.nanoTime() - deadline < 0);

            assertThat(rx.kernelRxDropped()).isEqualTo(dropped);
            assertThat(rx.get(PortCountersDescriptor.KERNEL_RX_RING_FULL)).isEqualTo(receiveRingFull ? dropped : 0);
            assertThat(rx.kernelFillEmpty()).as("fill-ring misses").isEqualTo(receiveRingFull ? 0 : dropped);
            assertThat(rx.toString()).contains("kernel-rx-ring-full=" + (receiveRingFull ? dropped : 0));
        }
    }

    static AfXdpForwardingPair openIn(final String namespace, final AfXdpSettings settings)
    {
        return TestNetwork.callIn(namespace, () -> AfXdpForwardingPair.open(Syscalls.create(), RECEIVE_DEVICE,
            TRANSMIT_DEVICE, settings));
    }

    /** Polls the forwarder and drains the sink until {@code total} frames arrived, for at most 10 s. */
    static void pump(final MacRewriteLoop loop, final RawPacketSocket sink, final List<String> received,
        final int total)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.size() < total && System.nanoTime() - deadline < 0)
        {
            loop.poll(System.nanoTime());
            for (byte[] frame = sink.poll(); frame != null; frame = sink.poll())
            {
                received.add(hex(frame));
            }
        }
    }

    /** Frame {@code i}: 60 to 1514 bytes, its number and a pattern of its own, so no two are alike. */
    static byte[] testFrame(final int i)
    {
        final byte[] frame = new byte[60 + (i * 37) % 1455];
        for (int j = 0; j < frame.length; j++)
        {
            frame[j] = (byte)(i * 7 + j);
        }
        frame[0] = 0x02; // a local unicast destination, whatever the pattern made of it
        frame[6] = 0x02;
        frame[12] = (byte)(TEST_ETHER_TYPE >>> 8);
        frame[13] = (byte)TEST_ETHER_TYPE;
        frame[14] = (byte)(i >>> 8);
        frame[15] = (byte)i;
        return frame;
    }

    static byte[] rewritten(final byte[] frame)
    {
        final byte[] copy = frame.clone();
        System.arraycopy(SINK_MAC, 0, copy, 0, 6);
        System.arraycopy(TRANSMIT_MAC, 0, copy, 6, 6);
        return copy;
    }

    static String hex(final byte[] frame)
    {
        return HexFormat.of().formatHex(frame);
    }
}
