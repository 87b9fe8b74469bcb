package io.jvs.forwarder.port.xdp;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.OpenDescriptors;
import io.jvs.forwarder.port.PortCountersDescriptor;
import io.jvs.nativebindings.Errno;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpMode;
import org.agrona.UnsafeApi;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real AF_XDP ports over rings the test plays the kernel's side of: frames a source writes arrive through
 * {@link AfXdpPort#receive} after the kernel's headroom, a frame sent out of the other port (the same UMEM, no copy)
 * comes back through the completion ring, every chunk returns to the UMEM, kicks succeed while the kernel keeps up
 * and fail with EAGAIN while it does not, and closing gives every descriptor back. No privilege, no device.
 */
class SimulatedXdpKernelTest
{
    private static final AfXdpSettings SETTINGS = AfXdpSettings.defaults(XdpMode.DRV).withChunks(1024)
        .withRings(256, 256, 256, 256);

    private final Syscalls syscalls = Syscalls.create();

    @Test
    void shouldReceiveTheSourcesFramesAndTakeBackWhatIsSent()
    {
        try (SimulatedXdpKernel kernel = SimulatedXdpKernel.open(syscalls, SETTINGS, new int[] {3, 5}))
        {
            final AfXdpPort in = kernel.port(0);
            final AfXdpPort out = kernel.port(1);
            assertThat(in.index()).isEqualTo(3);
            assertThat(out.index()).isEqualTo(5);
            final FrameBurst burst = new FrameBurst();
            assertThat(in.receive(burst, 1)).as("stocks the fill ring, nothing arrived").isZero();
            final int free = in.umem().freeCount();

            final int[] written = {0};
            assertThat(kernel.deliver(0, 10, (address, capacity) ->
            {
                assertThat(capacity).isEqualTo(SETTINGS.chunkSize() - SimulatedXdpKernel.KERNEL_HEADROOM);
                final int length = 60 + written[0];
                UnsafeApi.setMemory(address, length, (byte)written[0]);
                written[0]++;
                return length;
            })).isEqualTo(10);

            assertThat(in.receive(burst, 77)).isEqualTo(10);
            final int[] indices = new int[10];
            for (int i = 0; i < 10; i++)
            {
                assertThat(burst.length(i)).isEqualTo(60 + i);
                assertThat(burst.headroom(i)).isEqualTo(SimulatedXdpKernel.KERNEL_HEADROOM);
                assertThat(UnsafeApi.getByte(burst.address(i) + 59 + i)).isEqualTo((byte)i);
                assertThat(burst.receiveTimeNs(i)).isEqualTo(77);
                indices[i] = i;
            }
            assertThat(out.transmit(burst, indices, 6)).isEqualTo(6);
            in.release(burst);
            out.flush();
            assertThat(in.umem().freeCount()).as("six chunks in flight on TX").isEqualTo(free - 6);
            assertThat(out.transmitPending()).as("kicked, not yet sent by the kernel").isTrue();
            assertThat(in.transmitPending()).isFalse();

            kernel.complete();
            assertThat(out.transmitPending()).as("the kernel took them").isFalse();
            out.flush();

            assertThat(kernel.completed()).isEqualTo(6);
            assertThat(kernel.delivered()).isEqualTo(10);
            assertThat(kernel.kicked()).as("each transmit and flush kicked").isPositive();
            assertThat(in.umem().freeCount()).as("every chunk back, refilled into the fill ring").isEqualTo(free);
            assertThat(out.counters().get(PortCountersDescriptor.TX_FRAMES)).isEqualTo(6);
            assertThat(in.counters().get(PortCountersDescriptor.RX_FRAMES)).isEqualTo(10);
        }
    }

    @Test
    void shouldStopDeliveringWhenTheSourceEndsOrTheRingsRunOut()
    {
        try (SimulatedXdpKernel kernel = SimulatedXdpKernel.open(syscalls, SETTINGS, new int[] {0}))
        {
            final FrameBurst burst = new FrameBurst();
            final int[] left = {3};
            assertThat(kernel.deliver(0, 8, (address, capacity) -> left[0]-- > 0 ? 60 : 0)).isEqualTo(3);
            assertThat(kernel.port(0).receive(burst, 0)).isEqualTo(3);

            assertThat(kernel.deliver(0, 10_000, (address, capacity) -> 60)).as("the fill ring's chunks, restocked")
                .isEqualTo(256);
            assertThat(kernel.deliver(0, 10_000, (address, capacity) -> 60)).as("none left, the RX ring full")
                .isZero();
        }
    }

    @Test
    void shouldReceiveNoMoreThanACopyModeKickSendsAtATime()
    {
        assertThat(SETTINGS.batchSize()).isGreaterThan(AfXdpPort.COPY_MODE_KICK_FRAMES);
        try (SimulatedXdpKernel kernel = SimulatedXdpKernel.open(syscalls, SETTINGS, new int[] {0}))
        {
            assertThat(kernel.deliver(0, 100, (address, capacity) -> 60)).isEqualTo(100);
            final int[] counts = new int[4];
            for (int i = 0; i < counts.length; i++)
            {
                final FrameBurst burst = new FrameBurst();
                counts[i] = kernel.port(0).receive(burst, 0);
                kernel.port(0).release(burst);
            }
            assertThat(counts).containsExactly(32, 32, 32, 4);
        }
    }

    @Test
    void shouldStopKickingAtTheFirstKickThatSentNothing()
    {
        try (SimulatedXdpKernel kernel = SimulatedXdpKernel.open(syscalls, SETTINGS, new int[] {0, 1}))
        {
            final FrameBurst burst = new FrameBurst();
            kernel.port(0).receive(burst, 0);
            assertThat(kernel.deliver(0, 20, (address, capacity) -> 60)).isEqualTo(20);
            assertThat(kernel.port(0).receive(burst, 0)).isEqualTo(20);
            final int[] indices = new int[20];
            for (int i = 0; i < indices.length; i++)
            {
                indices[i] = i;
            }
            kernel.port(1).transmit(burst, indices, indices.length);

            kernel.port(1).flush();

            assertThat(kernel.socket(1).kicks().take()).as("the transmit's kick, and one more from the flush")
                .isEqualTo(2);
            kernel.complete();
            kernel.port(1).flush();
            assertThat(kernel.socket(1).kicks().take()).as("nothing left to send").isZero();
        }
    }

    @Test
    void shouldLetKicksSucceedWhileTheKernelKeepsUpAndFailWhileItDoesNot()
    {
        try (XdpSocket socket = XdpSocket.simulated(syscalls, "simulated0", SETTINGS))
        {
            assertThat(socket.tx().needsWakeup()).as("a copy-mode TX ring asks for kicks").isTrue();
            assertThat(socket.fill().needsWakeup()).isFalse();
            assertThat(syscalls.kickTransmit(socket.fd())).isZero();
            long result = 0;
            int kicks = 1;
            while (kicks < 1000 && (result = syscalls.kickTransmit(socket.fd())) == 0)
            {
                kicks++;
            }
            assertThat(result).as("after %d kicks nobody took", kicks).isEqualTo(-Errno.EAGAIN);
            assertThat(kicks).isLessThan(100);

            int taken = 0;
            while (syscalls.kickReceive(socket.kicks().peer()) >= 0)
            {
                taken++;
            }
            assertThat(taken).isEqualTo(kicks);
            assertThat(syscalls.kickTransmit(socket.fd())).isZero();
        }
    }

    @Test
    void shouldGiveBackEveryDescriptorWhenClosed() throws IOException
    {
        final SimulatedXdpKernel kernel = SimulatedXdpKernel.open(syscalls, SETTINGS, new int[] {0, 1});
        final Set<String> sockets = new HashSet<>();
        for (int p = 0; p < 2; p++)
        {
            sockets.add(OpenDescriptors.target(kernel.port(p).socketFd()));
            sockets.add(OpenDescriptors.target(kernel.socket(p).kicks().peer()));
        }
        assertThat(sockets).hasSize(4).allMatch(socket -> socket.startsWith("socket:"));

        kernel.close();

        assertThat(OpenDescriptors.targets()).doesNotContainAnyElementsOf(sockets);
    }
}
