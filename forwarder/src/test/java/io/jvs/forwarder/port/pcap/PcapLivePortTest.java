package io.jvs.forwarder.port.pcap;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.memory.FrameTemplates;
import io.jvs.forwarder.port.memory.MemoryPort;
import io.jvs.nativebindings.testing.TestNetwork;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two live ports on the two ends of a veth pair, each in a network namespace of its own: what one injects the
 * other captures, whole and in order, both ways. Needs root (namespaces, packet sockets), as CI has.
 */
class PcapLivePortTest
{
    /** IEEE 802 local experimental EtherType: nothing in the namespaces answers it. */
    private static final int EXPERIMENTAL = 0x88B5;
    private static final String ONLY_TEST_FRAMES = "ether proto 0x88b5";
    private static final long DEADLINE_NS = 10_000_000_000L;
    /** How long to look for frames that must not come, once those sent at the same time have come. */
    private static final long SETTLE_NS = 200_000_000L;
    private static final int[] ALL = new int[FrameBurst.MAX_FRAMES];

    static
    {
        for (int i = 0; i < ALL.length; i++)
        {
            ALL[i] = i;
        }
    }

    private TestNetwork network;
    private String left;
    private String right;

    @BeforeEach
    void buildVethPair()
    {
        network = TestNetwork.create("pcap");
        left = network.namespace("l");
        right = network.namespace("r");
        network.veth(left, "pl0", right, "pr0");
    }

    @AfterEach
    void removeNamespaces()
    {
        network.close();
    }

    @Test
    void shouldCarryEveryFrameIntactBothWays() throws Exception
    {
        final PcapLiveSettings settings = PcapLiveSettings.DEFAULT.withFilter(ONLY_TEST_FRAMES);
        try (PcapLivePort leftPort = TestNetwork.callIn(left, () -> PcapLivePort.open(1, "pl0", settings));
            PcapLivePort rightPort = TestNetwork.callIn(right, () -> PcapLivePort.open(2, "pr0", settings)))
        {
            final List<byte[]> toRight = frames(300, 1);
            final List<byte[]> toLeft = frames(300, 2);

            send(leftPort, toRight);
            send(rightPort, toLeft);

            assertThat(receive(rightPort, toRight.size())).containsExactlyElementsOf(toRight);
            assertThat(receive(leftPort, toLeft.size())).containsExactlyElementsOf(toLeft);
            assertThat(receive(leftPort, 1, SETTLE_NS)).as("a port does not capture what it sent").isEmpty();
            for (final PcapLivePort port : List.of(leftPort, rightPort))
            {
                port.counters().refresh();
                assertThat(port.counters().txFrames()).isEqualTo(300);
                assertThat(port.counters().rxFrames()).isEqualTo(300);
                assertThat(port.counters().rxBytes()).isEqualTo(bytes(port == leftPort ? toLeft : toRight));
                assertThat(port.counters().kernelRxDropped()).isZero();
                assertThat(port.counters().txErrors() + port.counters().txRingFull()).isZero();
                assertThat(port.failure()).isEmpty();
                assertThat(port.pool().freeCount()).isEqualTo(port.pool().bufferCount());
            }
        }
    }

    @Test
    void shouldNotCaptureWhatOthersSendOutOfItsInterfaceUnlessAsked() throws Exception
    {
        final PcapLiveSettings inbound = PcapLiveSettings.DEFAULT.withFilter(ONLY_TEST_FRAMES);
        try (PcapLivePort inboundOnly = TestNetwork.callIn(left, () -> PcapLivePort.open(1, "pl0", inbound));
            PcapLivePort both = TestNetwork.callIn(left, () -> PcapLivePort.open(2, "pl0",
                inbound.withInboundOnly(false)));
            PcapLivePort sender = TestNetwork.callIn(left, () -> PcapLivePort.open(3, "pl0"));
            PcapLivePort peer = TestNetwork.callIn(right, () -> PcapLivePort.open(4, "pr0", inbound)))
        {
            final List<byte[]> frames = frames(20, 3);

            send(sender, frames);

            assertThat(receive(peer, 20)).containsExactlyElementsOf(frames);
            assertThat(receive(both, 20)).as("outbound frames, when asked for").containsExactlyElementsOf(frames);
            // The kernel hands a frame to every capture on the interface at once: 'both' has them, so would this.
            assertThat(receive(inboundOnly, 1, SETTLE_NS)).isEmpty();
        }
    }

    @Test
    void shouldSkipAndCountAFrameLongerThanItsBuffers() throws Exception
    {
        final PcapLiveSettings small = PcapLiveSettings.DEFAULT.withFilter(ONLY_TEST_FRAMES).withBuffers(64, 512, 256);
        try (PcapLivePort sender = TestNetwork.callIn(left, () -> PcapLivePort.open(1, "pl0"));
            PcapLivePort receiver = TestNetwork.callIn(right, () -> PcapLivePort.open(2, "pr0", small)))
        {
            final byte[] large = frame(400, 1);
            final byte[] fits = frame(256, 2);

            send(sender, List.of(large, fits));

            assertThat(receive(receiver, 1)).containsExactly(fits);
            assertThat(receiver.counters().rxTooLong()).isEqualTo(1);
        }
    }

    @Test
    void shouldInjectWithoutAllocating() throws Exception
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemoryEnabled()).as("this JVM measures allocation per thread").isTrue();
        try (PcapLivePort sender = TestNetwork.callIn(left, () -> PcapLivePort.open(1, "pl0"));
            MemoryPort source = new MemoryPort(0, FrameTemplates.repeating(frame(60, 3))))
        {
            final FrameBurst burst = new FrameBurst();
            source.receive(burst, 0);
            sender.transmit(burst, ALL, 32);

            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 1_000; i++)
            {
                sender.transmit(burst, ALL, 32);
            }
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

            assertThat(sender.counters().txFrames() + sender.counters().txRingFull()).isEqualTo(1_001 * 32);
            assertThat(allocated).as("32,000 sends").isLessThan(32 * 1024);
            source.release(burst);
        }
    }

    private static void send(final PcapLivePort port, final List<byte[]> frames)
    {
        try (MemoryPort source = new MemoryPort(0, new FrameTemplates(frames.size(), frames.toArray(byte[][]::new))))
        {
            final FrameBurst burst = new FrameBurst();
            while (source.receive(burst, 0) > 0)
            {
                assertThat(port.transmit(burst, ALL, burst.count)).isEqualTo(burst.count);
                source.release(burst);
                burst.clear();
            }
        }
    }

    private static List<byte[]> receive(final PcapLivePort port, final int count)
    {
        return receive(port, count, DEADLINE_NS);
    }

    private static List<byte[]> receive(final PcapLivePort port, final int count, final long waitNs)
    {
        final List<byte[]> received = new ArrayList<>();
        final FrameBurst burst = new FrameBurst();
        final long deadline = System.nanoTime() + waitNs;
        while (received.size() < count && System.nanoTime() < deadline)
        {
            burst.clear();
            port.receive(burst, System.nanoTime());
            for (int i = 0; i < burst.count; i++)
            {
                received.add(Frames.read(burst.address(i), burst.length(i)));
            }
            port.release(burst);
            Thread.onSpinWait();
        }
        return received;
    }

    private static List<byte[]> frames(final int count, final int sender)
    {
        final List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            frames.add(frame(60 + (i * 37) % 1455, sender << 16 | i));
        }
        return frames;
    }

    /** An Ethernet frame of the test EtherType whose payload is a numbered pattern. */
    private static byte[] frame(final int length, final int number)
    {
        final ByteBuffer frame = ByteBuffer.allocate(length);
        frame.putLong(0x0200_0000_0002L << 16).position(6).putShort((short)0x0200).putInt(number)
            .putShort((short)EXPERIMENTAL).putInt(number);
        while (frame.hasRemaining())
        {
            frame.put((byte)(frame.position() * 31 + number));
        }
        return frame.array();
    }

    private static long bytes(final List<byte[]> frames)
    {
        return frames.stream().mapToLong(frame -> frame.length).sum();
    }
}
