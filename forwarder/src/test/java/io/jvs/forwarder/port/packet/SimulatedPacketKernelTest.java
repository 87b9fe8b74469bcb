package io.jvs.forwarder.port.packet;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.OpenDescriptors;
import io.jvs.forwarder.port.PortCountersDescriptor;
import io.jvs.nativebindings.Errno;
import io.jvs.nativebindings.Syscalls;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real AF_PACKET ports over rings the test plays the kernel's side of: frames a source writes arrive through
 * {@link AfPacketPort#receive} a block at a time with PACKET_RESERVE in front, a block goes back once released and
 * is filled again, frames sent out of another port are taken off its transmit ring, kicks succeed while the kernel
 * keeps up and fail with EAGAIN while it does not, and closing gives every descriptor back. No privilege, no device.
 */
class SimulatedPacketKernelTest
{
    private static final AfPacketSettings SETTINGS = AfPacketSettings.DEFAULT;

    private final Syscalls syscalls = Syscalls.create();

    @Test
    void shouldReceiveTheSourcesFramesABlockAtATimeAndTakeWhatIsSent()
    {
        try (SimulatedPacketKernel kernel = SimulatedPacketKernel.open(syscalls, SETTINGS, new int[] {2, 4}))
        {
            final AfPacketPort in = kernel.port(0);
            final AfPacketPort out = kernel.port(1);
            assertThat(in.index()).isEqualTo(2);
            assertThat(out.index()).isEqualTo(4);
            final FrameBurst burst = new FrameBurst();
            assertThat(in.receive(burst, 1)).isZero();

            final int[] written = {0};
            assertThat(kernel.deliver(0, 10, (address, capacity) ->
            {
                final int length = 60 + written[0];
                UnsafeApi.setMemory(address, length, (byte)written[0]);
                written[0]++;
                return length;
            })).isEqualTo(10);
            assertThat(in.receive(burst, 1)).as("the block is still the kernel's").isZero();
            kernel.expire(0);
            kernel.expire(0);
            assertThat(kernel.deliver(0, 1, (address, capacity) -> 60)).isEqualTo(1);
            kernel.expire(0);

            assertThat(in.receive(burst, 77)).isEqualTo(11);
            final int[] indices = new int[10];
            for (int i = 0; i < 10; i++)
            {
                assertThat(burst.length(i)).isEqualTo(60 + i);
                assertThat(burst.headroom(i)).isGreaterThanOrEqualTo(SETTINGS.headroom());
                assertThat(UnsafeApi.getByte(burst.address(i) + 59 + i)).isEqualTo((byte)i);
                assertThat(burst.receiveTimeNs(i)).isEqualTo(77);
                indices[i] = i;
            }
            assertThat(out.transmit(burst, indices, 6)).isEqualTo(6);
            in.release(burst);
            out.flush();
            kernel.complete();

            assertThat(kernel.delivered()).isEqualTo(11);
            assertThat(kernel.completed()).isEqualTo(6);
            assertThat(out.counters().get(PortCountersDescriptor.TX_FRAMES)).isEqualTo(6);
            assertThat(in.counters().get(PortCountersDescriptor.RX_FRAMES)).isEqualTo(11);
            assertThat(in.counters().get(PortCountersDescriptor.BLOCKS_RETIRED_BY_TIMEOUT)).isEqualTo(2);
            assertThat(out.transmit(burst, indices, 6)).as("the slots are free again").isEqualTo(6);
        }
    }

    @Test
    void shouldFillEveryBlockAndWaitForTheOneStillLent()
    {
        try (SimulatedPacketKernel kernel = SimulatedPacketKernel.open(syscalls, SETTINGS, new int[] {0}))
        {
            for (int block = 0; block < SETTINGS.rxBlockCount(); block++)
            {
                assertThat(kernel.deliver(0, 1, (address, capacity) -> 60)).isOne();
                kernel.expire(0);
            }
            assertThat(kernel.deliver(0, 1, (address, capacity) -> 60)).as("the ring is the user's").isZero();

            final FrameBurst burst = new FrameBurst();
            assertThat(kernel.port(0).receive(burst, 0)).isEqualTo(Math.min(SETTINGS.receiveBurst(),
                SETTINGS.rxBlockCount()));
            kernel.port(0).release(burst);
            assertThat(kernel.deliver(0, 3, (address, capacity) -> 60)).as("the first block back").isEqualTo(3);
        }
    }

    @Test
    void shouldRetireAFullBlockWithoutTheTimerAndLendItsFramesOverSeveralBursts()
    {
        try (SimulatedPacketKernel kernel = SimulatedPacketKernel.open(syscalls, SETTINGS, new int[] {0}))
        {
            final AfPacketPort port = kernel.port(0);
            final int[] sent = {0};
            assertThat(kernel.deliver(0, 20_000, (address, capacity) -> capacity < 60 ? 0 : (sent[0]++ & 1) + 60))
                .isEqualTo(20_000);
            final FrameBurst burst = new FrameBurst();
            long received = 0;
            int bursts = 0;
            int count;
            while ((count = port.receive(burst, 0)) > 0)
            {
                assertThat(count).isLessThanOrEqualTo(SETTINGS.receiveBurst());
                received += count;
                bursts++;
                port.release(burst);
                burst.clear();
            }
            assertThat(port.counters().get(PortCountersDescriptor.BLOCKS_RETIRED_BY_TIMEOUT)).isZero();
            assertThat(received).as("the full blocks' frames; the last block is still being filled")
                .isPositive().isLessThan(20_000);
            assertThat(bursts).isGreaterThan((int)(received / SETTINGS.receiveBurst()) - 1);
            kernel.expire(0);
            while ((count = port.receive(burst, 0)) > 0)
            {
                received += count;
                port.release(burst);
                burst.clear();
            }
            assertThat(received).isEqualTo(20_000);
            assertThat(port.counters().get(PortCountersDescriptor.BLOCKS_RETIRED_BY_TIMEOUT)).isOne();
        }
    }

    @Test
    void shouldLetKicksSucceedWhileTheKernelKeepsUpAndFailWhileItDoesNot()
    {
        try (SimulatedPacketKernel kernel = SimulatedPacketKernel.open(syscalls, SETTINGS, new int[] {0}))
        {
            final int fd = kernel.port(0).transmitSocket().fd();
            long result = 0;
            int kicks = 0;
            while (kicks < 1000 && (result = syscalls.kickTransmit(fd)) == 0)
            {
                kicks++;
            }
            assertThat(kicks).isBetween(1, 100);
            assertThat(result).isEqualTo(-Errno.EAGAIN);
            kernel.complete();
            assertThat(syscalls.kickTransmit(fd)).isZero();
        }
    }

    @Test
    void shouldSayFramesArePendingFromTheirTransmitUntilAKickSucceeds()
    {
        try (SimulatedPacketKernel kernel = SimulatedPacketKernel.open(syscalls, SETTINGS, new int[] {0}))
        {
            final AfPacketPort port = kernel.port(0);
            assertThat(port.transmitPending()).as("nothing given").isFalse();
            assertThat(kernel.deliver(0, 1, (address, capacity) -> 60)).isOne();
            kernel.expire(0);
            final FrameBurst burst = new FrameBurst();
            assertThat(port.receive(burst, 0)).isOne();
            assertThat(port.transmit(burst, new int[] {0}, 1)).isOne();
            port.release(burst);
            assertThat(port.transmitPending()).as("queued, not kicked").isTrue();

            final int fd = port.transmitSocket().fd();
            while (syscalls.kickTransmit(fd) == 0)
            {
                // The simulated kernel falls behind: its next kicks are refused.
            }
            port.flush();
            assertThat(port.transmitPending()).as("the kick was refused").isTrue();

            kernel.complete();
            port.flush();
            assertThat(port.transmitPending()).as("the kernel took them").isFalse();
        }
    }

    @Test
    void shouldGiveBackEveryDescriptorWhenClosed() throws IOException
    {
        final SimulatedPacketKernel kernel = SimulatedPacketKernel.open(syscalls, SETTINGS, new int[] {0, 1});
        final Set<String> sockets = new HashSet<>();
        for (int p = 0; p < 2; p++)
        {
            for (final PacketSocket socket : new PacketSocket[] {kernel.port(p).receiveSocket(),
                kernel.port(p).transmitSocket()})
            {
                sockets.add(OpenDescriptors.target(socket.fd()));
                sockets.add(OpenDescriptors.target(socket.kicks().peer()));
            }
        }
        assertThat(sockets).hasSize(8).allMatch(socket -> socket.startsWith("socket:"));

        kernel.close();

        assertThat(OpenDescriptors.targets()).doesNotContainAnyElementsOf(sockets);
    }
}
