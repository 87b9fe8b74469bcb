package io.jvs.forwarder.port.packet;

import java.lang.foreign.Arena;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.TestCapabilities;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What an AF_PACKET port says when it cannot open, and how it behaves when its transmit ring is full or
 * after it is closed. Needs root, as CI has.
 */
class AfPacketFailureTest
{
    @Test
    void shouldNameAMissingInterface()
    {
        assertThatThrownBy(() -> AfPacketPort.open(
            Syscalls.create(), 0, "jvsnosuch0", AfPacketSettings.DEFAULT, AfPacketPort.Direction.BOTH))
            .isInstanceOf(AfPacketException.class)
            .hasMessage("no interface named jvsnosuch0 in this network namespace");
    }

    @Test
    void shouldRefuseAnInterfaceThatIsDown()
    {
        try (TestNetwork network = TestNetwork.create("afpdown"))
        {
            final String left = network.namespace("l");
            final String right = network.namespace("r");
            network.veth(left, "dn0", right, "dn1");
            network.inNamespace(left, "ip", "link", "set", "dn0", "down");
            for (final AfPacketPort.Direction direction : AfPacketPort.Direction.values())
            {
                assertThatThrownBy(() -> TestNetwork.callIn(left, () -> AfPacketPort.open(
                    Syscalls.create(), 0, "dn0", AfPacketForwardingTest.SMALL, direction)))
                    .isInstanceOf(AfPacketException.class)
                    .hasMessage("interface dn0 is down: ip link set dn0 up");
            }
        }
    }

    @Test
    void shouldNameTheCapabilityWhenNotPrivileged()
    {
        TestCapabilities.callWithout(new int[] {TestCapabilities.CAP_NET_RAW}, () ->
        {
            assertThatThrownBy(() -> AfPacketPort.open(
                Syscalls.create(), 0, "lo", AfPacketForwardingTest.SMALL, AfPacketPort.Direction.RECEIVE))
                .isInstanceOf(NativeCallException.class)
                .hasMessageStartingWith("socket failed: EPERM")
                .hasMessageContaining("AF_PACKET receive socket for lo")
                .hasMessageContaining("CAP_NET_RAW");
            return null;
        });
    }

    @Test
    void shouldCountWhatTheKernelDropsWhileTheReceiveRingIsFull()
    {
        final AfPacketSettings tiny = AfPacketForwardingTest.SMALL.withRxRing(4096, 2, 1);
        final int frames = 200;
        try (ForwardingNetwork net = new ForwardingNetwork("afpdrop");
            RawPacketSocket generator = RawPacketSocket.openIncoming(net.gen, "g0", 0);
            AfPacketPort port = TestNetwork.callIn(net.fwd,
                () -> AfPacketPort.open(Syscalls.create(), 0, "fA", tiny, AfPacketPort.Direction.RECEIVE)))
        {
            for (int i = 0; i < frames; i++)
            {
                generator.send(TestPackets.experimental(i, 1000));
            }
            final FrameBurst burst = new FrameBurst();
            long received = 0;
            final long deadline = System.nanoTime() + 100_000_000L;
            while (System.nanoTime() < deadline)
            {
                burst.clear();
                received += port.receive(burst, 0);
                port.release(burst);
            }
            port.counters().refresh();

            assertThat(received).isPositive();
            assertThat(port.counters().kernelRxDropped()).isPositive();
            assertThat(port.counters().kernelRxPackets()).as("offered: received and dropped").isEqualTo(frames);
            assertThat(received + port.counters().kernelRxDropped()).isEqualTo(frames);
            assertThat(port.counters().kernelRxFreezes()).isPositive();
        }
    }

    @Test
    void shouldCountFramesTheFullTransmitRingCannotTakeAndRecover()
    {
        // Two slots: the third frame of a burst finds the ring full.
        final AfPacketSettings twoSlots = AfPacketForwardingTest.SMALL.withTxRing(AfPacket.TPACKET_V3, 4096, 2);
        try (TestNetwork network = TestNetwork.create("afpfull"))
        {
            final String left = network.namespace("l");
            final String right = network.namespace("r");
            network.veth(left, "fu0", right, "fu1");
            try (Arena arena = Arena.ofConfined();
                AfPacketPort port = TestNetwork.callIn(left,
                    () -> AfPacketPort.open(Syscalls.create(), 3, "fu0", twoSlots, AfPacketPort.Direction.TRANSMIT)))
            {
                final FrameBurst burst = new FrameBurst();
                final long memory = arena.allocate(4096).address();
                for (int i = 0; i < 5; i++)
                {
                    burst.add(memory, 60 + i, 60 + i, 0, 0);
                }
                final int[] all = {0, 1, 2, 3, 4};

                assertThat(port.transmit(burst, all, 5)).isEqualTo(2);
                assertThat(port.counters().txRingFull()).isEqualTo(3);
                assertThat(port.counters().txFrames()).isEqualTo(2);
                assertThat(port.receive(burst, 0)).as("a transmit-only port receives nothing").isZero();

                port.flush();
                final long deadline = System.nanoTime() + 2_000_000_000L;
                int queued = 0;
                while (queued == 0 && System.nanoTime() < deadline)
                {
                    queued = port.transmit(burst, all, 1);
                }
                assertThat(queued).as("slots come back once the kernel has sent them").isOne();

                burst.length(4, twoSlots.txFrameCapacity() + 1);
                assertThat(port.transmit(burst, new int[] {4}, 1)).isZero();
                assertThat(port.counters().txTooLong()).isOne();
                port.flush();
                assertThat(port.counters().txKickErrors()).isZero();

                port.close();
                port.close();
                assertThat(port.transmit(burst, all, 1)).as("closed").isZero();
                port.flush();
            }
        }
    }
}
