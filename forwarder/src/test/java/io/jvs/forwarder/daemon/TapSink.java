package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.PollFd;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.SockaddrLl;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the kernel receives on a device, as an AF_PACKET socket sees it: for the tests of the host path, where
 * a frame written to a TAP is a frame the device received. Open it in the device's namespace
 * ({@code TestNetwork.callIn}); it keeps that namespace when read from the test's thread. The kernel's own
 * transmissions on the device (IPv6 neighbour discovery and the like) are left out.
 */
final class TapSink implements AutoCloseable
{
    private final Syscalls syscalls = Syscalls.create();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer = arena.allocate(65_536);
    private final MemorySegment pollFd = arena.allocate(PollFd.LAYOUT);
    private final int fd;

    TapSink(final String device)
    {
        fd = syscalls.socket(AfPacket.AF_PACKET, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC,
            Sockets.htons(AfPacket.ETH_P_ALL));
        assertThat(fd).as("AF_PACKET socket").isPositive();
        final MemorySegment one = arena.allocate(JAVA_INT);
        one.set(JAVA_INT, 0, 1);
        assertThat(syscalls.setsockopt(fd, AfPacket.SOL_PACKET, AfPacket.PACKET_IGNORE_OUTGOING, one.address(),
            Integer.BYTES)).isZero();
        final MemorySegment address = arena.allocate(SockaddrLl.LAYOUT);
        address.set(JAVA_SHORT, SockaddrLl.FAMILY_OFFSET, (short)AfPacket.AF_PACKET);
        address.set(JAVA_SHORT, SockaddrLl.PROTOCOL_OFFSET, (short)Sockets.htons(AfPacket.ETH_P_ALL));
        address.set(JAVA_INT, SockaddrLl.IFINDEX_OFFSET, syscalls.ifNameToIndex(device));
        assertThat(syscalls.bind(fd, address.address(), SockaddrLl.SIZE)).as("bind to " + device).isZero();
    }

    /** @return the next frame received, or null when none comes within the timeout. */
    byte[] receive(final int timeoutMs)
    {
        pollFd.set(JAVA_INT, PollFd.FD_OFFSET, fd);
        pollFd.set(JAVA_SHORT, PollFd.EVENTS_OFFSET, PollFd.POLLIN);
        if (syscalls.poll(pollFd.address(), 1, timeoutMs) <= 0)
        {
            return null;
        }
        final long length = syscalls.recvfrom(fd, buffer.address(), buffer.byteSize(), Sockets.MSG_DONTWAIT, 0, 0);
        return length < 0 ? null : buffer.asSlice(0, length).toArray(JAVA_BYTE);
    }

    /** @return the next received frame of EtherType IPv4 (skipping others), or null. */
    byte[] receiveIpv4(final int timeoutMs)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < deadline)
        {
            final byte[] frame = receive((int)Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
            if (frame != null && frame.length >= 14 && frame[12] == 0x08 && frame[13] == 0x00)
            {
                return frame;
            }
        }
        return null;
    }

    @Override
    public void close()
    {
        syscalls.close(fd);
        arena.close();
    }
}
