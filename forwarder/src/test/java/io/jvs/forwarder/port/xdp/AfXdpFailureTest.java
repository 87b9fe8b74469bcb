package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.l2.MacRewriteLoop;
import io.jvs.forwarder.port.Port;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.testing.TestCapabilities;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static io.jvs.forwarder.port.xdp.ForwardingNetwork.RECEIVE_DEVICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an AF_XDP pair says and does when it cannot work as asked: a missing or down interface, ring sizes the
 * kernel would refuse, a full TX ring, a queue another socket holds or has just released, and a thread
 * without CAP_NET_RAW. Needs root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AfXdpFailureTest
{
    /** Small rings and UMEM: these tests move few frames. */
    private static final AfXdpSettings SMALL = AfXdpSettings.defaults(XdpMode.SKB).withChunks(1024)
        .withRings(256, 256, 256, 256);

    @Test
    void shouldNameAMissingInterface()
    {
        assertThatThrownBy(() -> AfXdpForwardingPair.open(Syscalls.create(), "jvsnosuch0", "jvsnosuch1", SMALL))
            .isInstanceOf(AfXdpPortException.class)
            .hasMessage("there is no interface named jvsnosuch0 in this network namespace");
    }

    @Test
    void shouldSayTheInterfaceIsDown()
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxd"))
        {
            network.network.inNamespace(network.forwarder, "ip", "link", "set", RECEIVE_DEVICE, "down");
            assertThatThrownBy(() -> AfXdpForwardingTest.openIn(network.forwarder, SMALL))
                .isInstanceOf(AfXdpPortException.class)
                .hasMessageStartingWith("interface fA is down");
            assertThat(network.receiveDeviceDetails()).doesNotContain("prog/xdp");
        }
    }

    @Test
    void shouldRefuseRingSizesThatAreNotPowersOfTwo()
    {
        assertThatThrownBy(() -> SMALL.withRings(1000, 256, 256, 256))
            .isInstanceOf(IllegalArgumentException.class).hasMessage("RX ring size 1000 is not a power of two");
        assertThatThrownBy(() -> SMALL.withRings(256, 256, 256, 300))
            .hasMessage("completion ring size 300 is not a power of two");
    }

    @Test
    void shouldCountAndDropWhatDoesNotFitTheTxRing()
    {
        final int ring = 64;
        final int frames = 200;
        try (ForwardingNetwork network = new ForwardingNetwork("afxr");
             AfXdpForwardingPair pair = AfXdpForwardingTest.openIn(network.forwarder,
                 SMALL.withRings(256, ring, 256, ring));
             RawPacketSocket sink = RawPacketSocket.open(network.sink, ForwardingNetwork.SINK_DEVICE,
                 AfXdpForwardingTest.TEST_ETHER_TYPE);
             Arena arena = Arena.ofConfined())
        {
            // Frames in the test's own memory: the port copies them into UMEM chunks, as it would any
            // frame from another port's memory.
            final FrameBurst burst = new FrameBurst();
            final int[] indices = new int[frames];
            for (int i = 0; i < frames; i++)
            {
                final byte[] frame = AfXdpForwardingTest.testFrame(i);
                final MemorySegment memory = arena.allocate(frame.length);
                MemorySegment.copy(frame, 0, memory, ValueLayout.JAVA_BYTE, 0, frame.length);
                indices[i] = burst.add(memory.address(), frame.length, frame.length, 0, 0);
            }
            final Port tx = pair.transmitPort();

            assertThat(tx.transmit(burst, indices, frames)).isEqualTo(ring);
            assertThat(tx.counters().txRingFull()).isEqualTo(frames - ring);
            assertThat(tx.counters().txCopied()).isEqualTo(ring);

            final List<String> received = new ArrayList<>();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (received.size() < ring && System.nanoTime() - deadline < 0)
            {
                tx.flush();
                for (byte[] frame = sink.poll(); frame != null; frame = sink.poll())
                {
                    received.add(AfXdpForwardingTest.hex(frame));
                }
            }
            assertThat(received).hasSize(ring).first().isEqualTo(AfXdpForwardingTest.hex(
                AfXdpForwardingTest.testFrame(0)));
            tx.flush();
            assertThat(tx.transmit(burst, indices, 1)).as("room again once the kernel sent them").isOne();
        }
    }

    @Test
    void shouldRetryABusyQueueForASecondThenSaySoAndRebindAtOnceAfterAClose()
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxb"))
        {
            final AfXdpForwardingPair first = AfXdpForwardingTest.openIn(network.forwarder, SMALL);
            final long start = System.nanoTime();
            assertThatThrownBy(() -> AfXdpForwardingTest.openIn(network.forwarder, SMALL))
                .isInstanceOf(NativeCallException.class)
                .hasMessageContaining("EBUSY").hasMessageContaining("fA queue 0")
                .hasMessageContaining("after retrying for 1 s").hasMessageContaining("another socket holds the queue");
            assertThat(System.nanoTime() - start).as("retried for about a second")
                .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(900));

            first.close();
            // The kernel releases the queue some milliseconds after the close: the bind retries EBUSY until then.
            try (AfXdpForwardingPair second = AfXdpForwardingTest.openIn(network.forwarder, SMALL))
            {
                assertThat(second.describe()).contains("afxdp:fA/0");
                assertThat(network.receiveDeviceDetails()).contains("prog/xdp");
            }
            first.close();
            assertThat(network.receiveDeviceDetails()).doesNotContain("prog/xdp");
        }
    }

    @Test
    void shouldNameTheCapabilityWhenTheSocketIsRefused()
    {
        TestCapabilities.callWithout(new int[] {TestCapabilities.CAP_NET_RAW}, () ->
        {
            assertThatThrownBy(() -> AfXdpForwardingPair.open(Syscalls.create(), "lo", "lo", SMALL))
                .isInstanceOf(NativeCallException.class)
                .hasMessageStartingWith("socket failed: EPERM")
                .hasMessageContaining("AF_XDP socket on lo queue 0")
                .hasMessageContaining("CAP_NET_RAW");
            return null;
        });
    }

    @Test
    void shouldWorkBothWaysOnOneDeviceWithOneSocket()
    {
        try (ForwardingNetwork network = new ForwardingNetwork("afxo");
             AfXdpForwardingPair pair = TestNetwork.callIn(network.forwarder, () ->
                 AfXdpForwardingPair.open(Syscalls.create(), RECEIVE_DEVICE, RECEIVE_DEVICE, SMALL));
             RawPacketSocket generator = RawPacketSocket.open(network.generator, ForwardingNetwork.GENERATOR_DEVICE,
                 AfXdpForwardingTest.TEST_ETHER_TYPE))
        {
            assertThat(pair.transmitPort()).isSameAs(pair.receivePort());
            final MacRewriteLoop loop = new MacRewriteLoop(pair.receivePort(), pair.transmitPort(),
                ForwardingNetwork.SINK_MAC, ForwardingNetwork.RECEIVE_MAC);
            final List<String> expected = new ArrayList<>();
            for (int i = 0; i < 50; i++)
            {
                final byte[] frame = AfXdpForwardingTest.testFrame(i);
                generator.send(frame);
                final byte[] back = frame.clone();
                System.arraycopy(ForwardingNetwork.SINK_MAC, 0, back, 0, 6);
                System.arraycopy(ForwardingNetwork.RECEIVE_MAC, 0, back, 6, 6);
                expected.add(AfXdpForwardingTest.hex(back));
            }
            final List<String> received = new ArrayList<>();
            // Back out of fA to g0, where the generator's socket receives them (with its own sent frames,
            // which carry the original addresses and are skipped here).
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (received.size() < expected.size() && System.nanoTime() - deadline < 0)
            {
                loop.poll(System.nanoTime());
                for (byte[] frame = generator.poll(); frame != null; frame = generator.poll())
                {
                    final String hex = AfXdpForwardingTest.hex(frame);
                    if (hex.startsWith(ForwardingNetwork.mac(ForwardingNetwork.SINK_MAC).replace(":", "")))
                    {
                        received.add(hex);
                    }
                }
            }
            assertThat(received).containsExactlyElementsOf(expected);
            assertThat(pair.receivePort().counters().txCopied()).isZero();
        }
    }
}
