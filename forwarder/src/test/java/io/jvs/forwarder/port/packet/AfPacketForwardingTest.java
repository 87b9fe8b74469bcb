package io.jvs.forwarder.port.packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real forwarding through veth pairs in three namespaces: a raw socket in gen sends distinct frames into fA,
 * an {@link AfPacketForwardingPair} in fwd forwards them with {@link MacRewriteLoop}, a raw socket in sink
 * collects them from s0. Every frame must arrive once, intact but for its two addresses, and be counted.
 * Needs root, as CI has.
 */
class AfPacketForwardingTest
{
    static final AfPacketSettings SMALL = AfPacketSettings.DEFAULT
        .withRxRing(128 << 10, 16, 2)
        .withTxRing(AfPacket.TPACKET_V3, 64 << 10, 1024);
    private static final int FRAMES = 2000;
    private static final int CHUNK = 100;
    private static final long DEADLINE_NS = 10_000_000_000L;

    @ParameterizedTest(name = "TX ring TPACKET_V{0}, linear {1}")
    @CsvSource({"2, true", "3, true", "2, false", "3, false"})
    void shouldForwardEveryFrameIntactWithItsAddressesRewritten(final int txVersionNumber, final boolean linear)
    {
        final AfPacketSettings settings = SMALL.withTxRing(txVersionNumber - 1, 64 << 10, 1024)
            .withLinearTransmit(linear);
        try (ForwardingNetwork net = new ForwardingNetwork("afpfwd");
            RawPacketSocket generator = RawPacketSocket.openIncoming(net.gen, "g0", 0);
            RawPacketSocket sink = RawPacketSocket.openIncoming(net.sink, "s0", TestPackets.ETH_P_EXPERIMENTAL);
            AfPacketForwardingPair pair = TestNetwork.callIn(net.fwd,
                () -> AfPacketForwardingPair.open(Syscalls.create(), "fA", "fB", settings)))
        {
            assertThat(pair.describe()).contains("afpacket:fA RECEIVE", "afpacket:fB TRANSMIT",
                "TPACKET_V" + txVersionNumber);
            final List<byte[]> arrived = sendAndForward(generator, sink, pair, FRAMES);

            assertArrivedIntactAndCounted(arrived, FRAMES, pair.receiveCounters(), pair.transmitCounters());
            assertThat(pair.receiveCounters().blocksReturned()).isPositive();
            assertThat(pair.receivePort().framesLent()).isZero();
        }
    }

    /**
     * One interface in and out, with the qdisc path (bypass off): our transmissions then pass the taps, and only
     * PACKET_IGNORE_OUTGOING keeps the receive ring from forwarding them again, and again.
     */
    @Test
    void shouldForwardBackOutOfTheSameInterfaceWithoutSeeingItsOwnTransmissions()
    {
        final AfPacketSettings settings = SMALL.withQdiscBypass(false);
        try (ForwardingNetwork net = new ForwardingNetwork("afpsame");
            RawPacketSocket generator = RawPacketSocket.openIncoming(net.gen, "g0", TestPackets.ETH_P_EXPERIMENTAL);
            AfPacketForwardingPair pair = TestNetwork.callIn(net.fwd,
                () -> AfPacketForwardingPair.open(Syscalls.create(), "fA", "fA", settings)))
        {
            assertThat(pair.receivePort()).isSameAs(pair.transmitPort());
            assertThat(pair.describe()).contains("afpacket:fA BOTH", "qdisc bypass off");
            final int frames = 500;

            final List<byte[]> arrived = sendAndForward(generator, generator, pair, frames);

            assertArrivedIntactAndCounted(arrived, frames, pair.receiveCounters(), pair.transmitCounters());
        }
    }

    /**
     * veth takes the 802.1Q tag off every received frame (rx-vlan-offload) and AF_PACKET reports it beside the
     * frame: the port must put it back, or the forwarder would strip VLANs. The sink is an AF_PACKET port too,
     * because a plain packet socket would not show the tag s0 strips in turn.
     */
    @Test
    void shouldForwardVlanTaggedFramesWithTheirTag()
    {
        final int frames = 50;
        try (ForwardingNetwork net = new ForwardingNetwork("afpvlan");
            RawPacketSocket generator = RawPacketSocket.openIncoming(net.gen, "g0", 0);
            AfPacketPort sink = TestNetwork.callIn(net.sink,
                () -> AfPacketPort.open(Syscalls.create(), 2, "s0", SMALL, AfPacketPort.Direction.RECEIVE));
            AfPacketForwardingPair pair = TestNetwork.callIn(net.fwd,
                () -> AfPacketForwardingPair.open(Syscalls.create(), "fA", "fB", SMALL)))
        {
            final MacRewriteLoop loop = new MacRewriteLoop(
                pair.receivePort(), pair.transmitPort(), TestPackets.NEW_DESTINATION, TestPackets.NEW_SOURCE);
            for (int i = 0; i < frames; i++)
            {
                generator.send(tagged(i, TestPackets.experimental(i, 60 + i)));
            }
            final List<byte[]> arrived = new ArrayList<>();
            final FrameBurst burst = new FrameBurst();
            final long deadline = System.nanoTime() + DEADLINE_NS;
            while (arrived.size() < frames && System.nanoTime() < deadline)
            {
                loop.poll(System.nanoTime());
                burst.clear();
                final int count = sink.receive(burst, 0);
                for (int i = 0; i < count; i++)
                {
                    arrived.add(MemorySegment.ofAddress(burst.address(i)).reinterpret(burst.length(i))
                        .toArray(ValueLayout.JAVA_BYTE));
                }
                sink.release(burst);
            }

            assertThat(arrived).hasSize(frames);
            for (int i = 0; i < frames; i++)
            {
                final byte[] expected = tagged(i, TestPackets.experimental(i, 60 + i));
                System.arraycopy(TestPackets.NEW_DESTINATION, 0, expected, 0, 6);
                System.arraycopy(TestPackets.NEW_SOURCE, 0, expected, 6, 6);
                assertThat(arrived.get(i)).as("frame %d", i).isEqualTo(expected);
            }
            assertThat(pair.receiveCounters().vlanTagsRestored()).isEqualTo(frames);
            assertThat(pair.transmitCounters().txBytes()).isEqualTo(pair.receiveCounters().rxBytes());
        }
    }

    /** The frame with an 802.1Q tag (priority 1, VLAN 100 + sequence) after its addresses. */
    private static byte[] tagged(final int sequence, final byte[] frame)
    {
        final byte[] tagged = new byte[frame.length + 4];
        System.arraycopy(frame, 0, tagged, 0, 12);
        tagged[12] = (byte)0x81;
        tagged[13] = 0;
        tagged[14] = 0x20;
        tagged[15] = (byte)(100 + sequence);
        System.arraycopy(frame, 12, tagged, 16, frame.length - 12);
        return tagged;
    }

    @Test
    void shouldWakeAnIdleWorkerWhenFramesArrive()
    {
        try (ForwardingNetwork net = new ForwardingNetwork("afpwake");
            RawPacketSocket generator = RawPacketSocket.openIncoming(net.gen, "g0", 0);
            AfPacketForwardingPair pair = TestNetwork.callIn(net.fwd,
                () -> AfPacketForwardingPair.open(Syscalls.create(), "fA", "fB", SMALL)))
        {
            final AfPacketPort port = pair.receivePort();
            assertThat(port.awaitFrames(20)).as("nothing sent yet").isFalse();

            generator.send(TestPackets.experimental(1, 60));

            // The frame's block is handed over by the retire timeout (2 ms here), which wakes the poll.
            assertThat(port.awaitFrames(1000)).isTrue();
            final FrameBurst burst = new FrameBurst();
            assertThat(port.receive(burst, 0)).isOne();
            port.release(burst);
            assertThat(port.counters().wakeups()).isEqualTo(2);
        }
    }

    static List<byte[]> sendAndForward(
        final RawPacketSocket generator, final RawPacketSocket sink, final AfPacketForwardingPair pair,
        final int frames)
    {
        final MacRewriteLoop loop = new MacRewriteLoop(
            pair.receivePort(), pair.transmitPort(), TestPackets.NEW_DESTINATION, TestPackets.NEW_SOURCE);
        final List<byte[]> arrived = new ArrayList<>();
        final long deadline = System.nanoTime() + DEADLINE_NS;
        int sent = 0;
        while (sent < frames)
        {
            for (int i = 0; i < CHUNK && sent < frames; i++, sent++)
            {
                generator.send(TestPackets.experimental(sent, length(sent)));
            }
            while (arrived.size() < sent && System.nanoTime() < deadline)
            {
                loop.poll(System.nanoTime());
                collect(sink, arrived, 0);
            }
        }
        // A while longer: nothing more may come (no duplicates, no echoes of our own frames).
        final long quiet = System.nanoTime() + 50_000_000L;
        while (System.nanoTime() < quiet)
        {
            loop.poll(System.nanoTime());
            collect(sink, arrived, 1);
        }
        assertThat(loop.received()).isEqualTo(frames);
        assertThat(loop.forwarded()).isEqualTo(frames);
        return arrived;
    }

    static void assertArrivedIntactAndCounted(
        final List<byte[]> arrived, final int frames, final AfPacketCounters in, final AfPacketCounters out)
    {
        assertThat(arrived).hasSize(frames);
        for (int i = 0; i < frames; i++)
        {
            final byte[] expected = TestPackets.experimental(i, length(i));
            System.arraycopy(TestPackets.NEW_DESTINATION, 0, expected, 0, 6);
            System.arraycopy(TestPackets.NEW_SOURCE, 0, expected, 6, 6);
            final byte[] frame = arrived.get(i);
            if (!Arrays.equals(frame, expected))
            {
                assertThat(frame).as("frame %d, in order", i).isEqualTo(expected);
            }
        }
        long bytes = 0;
        for (int i = 0; i < frames; i++)
        {
            bytes += length(i);
        }
        in.refresh();
        assertThat(in.rxFrames()).isEqualTo(frames);
        assertThat(in.rxBytes()).isEqualTo(bytes);
        assertThat(out.txFrames()).isEqualTo(frames);
        assertThat(out.txBytes()).isEqualTo(bytes);
        assertThat(out.txCopied()).isEqualTo(frames);
        assertThat(out.txRingFull()).isZero();
        assertThat(out.txKickErrors()).isZero();
        assertThat(out.wakeups()).isPositive();
        assertThat(in.kernelRxDropped()).isZero();
        assertThat(in.kernelRxPackets()).isEqualTo(frames);
        assertThat(in.truncatedFrames()).isZero();
    }

    private static void collect(final RawPacketSocket sink, final List<byte[]> arrived, final int timeoutMs)
    {
        byte[] frame;
        while ((frame = sink.receive(Duration.ofMillis(timeoutMs))) != null)
        {
            arrived.add(frame);
        }
    }

    private static int length(final int sequence)
    {
        return 60 + sequence * 7 % 1440;
    }
}
