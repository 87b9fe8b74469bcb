package io.jvs.forwarder.port.packet;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two workers' ports in one PACKET_FANOUT group (hash mode) on fA: frames of many flows all arrive, and each
 * flow entirely at one port. Needs root, as CI has.
 */
class AfPacketFanoutTest
{
    /** With 32 flows, the chance that the hash puts them all on one of two sockets is 2^-31. */
    private static final int FLOWS = 32;
    private static final int FRAMES_PER_FLOW = 20;

    @Test
    void shouldKeepEachFlowOnOneSocketOfTheGroup()
    {
        final AfPacketSettings settings = AfPacketForwardingTest.SMALL.withFanout(4243, AfPacket.PACKET_FANOUT_HASH);
        try (ForwardingNetwork net = new ForwardingNetwork("afpfan");
            RawPacketSocket generator = RawPacketSocket.openIncoming(net.gen, "g0", 0);
            AfPacketPort first = TestNetwork.callIn(net.fwd,
                () -> AfPacketPort.open(Syscalls.create(), 0, "fA", settings, AfPacketPort.Direction.RECEIVE));
            AfPacketPort second = TestNetwork.callIn(net.fwd,
                () -> AfPacketPort.open(Syscalls.create(), 1, "fA", settings, AfPacketPort.Direction.RECEIVE)))
        {
            assertThat(first.describe()).contains("fanout group 4243");
            final Map<Integer, Set<Integer>> portsOfFlow = new HashMap<>();
            final Map<Integer, Integer> framesOfFlow = new HashMap<>();
            final FrameBurst burst = new FrameBurst();
            int received = 0;
            for (int round = 0; round < FRAMES_PER_FLOW; round++)
            {
                for (int flow = 0; flow < FLOWS; flow++)
                {
                    generator.send(TestPackets.udpV4(10_000 + flow, 53, 20 + round));
                }
            }
            final long deadline = System.nanoTime() + 5_000_000_000L;
            while (received < FLOWS * FRAMES_PER_FLOW && System.nanoTime() < deadline)
            {
                for (final AfPacketPort port : new AfPacketPort[] {first, second})
                {
                    burst.clear();
                    final int count = port.receive(burst, System.nanoTime());
                    for (int i = 0; i < count; i++)
                    {
                        final int flow = Frames.u16(burst.address(i) + 14 + 20) - 10_000;
                        portsOfFlow.computeIfAbsent(flow, f -> new HashSet<>()).add(port.index());
                        framesOfFlow.merge(flow, 1, Integer::sum);
                    }
                    port.release(burst);
                    received += count;
                }
            }

            assertThat(received).isEqualTo(FLOWS * FRAMES_PER_FLOW);
            assertThat(framesOfFlow).hasSize(FLOWS).allSatisfy((flow, frames) ->
                assertThat(frames).isEqualTo(FRAMES_PER_FLOW));
            assertThat(portsOfFlow).allSatisfy((flow, ports) -> assertThat(ports).as("flow %d", flow).hasSize(1));
            assertThat(first.counters().rxFrames()).isPositive();
            assertThat(second.counters().rxFrames()).isPositive();
            assertThat(first.counters().rxFrames() + second.counters().rxFrames()).isEqualTo(FLOWS * FRAMES_PER_FLOW);
        }
    }
}
