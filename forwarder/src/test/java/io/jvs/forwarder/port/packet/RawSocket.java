package io.jvs.forwarder.port.packet;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.jvs.nativebindings.PollFd;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.SockaddrLl;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain AF_PACKET socket (no ring) for the tests' generators and sinks: open it in the namespace of its
 * interface (TestNetwork.callIn); it keeps that namespace when used from the test thread. Not the code under
 * test, so it is as simple as it can be.
 */
final class RawSocket implements AutoCloseable
{
    private static final int SO_RCVBUFFORCE = 33;

    private final Syscalls syscalls = Syscalls.create();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer = arena.allocate(65_536);
    private final MemorySegment pollFd = arena.allocate(PollFd.LAYOUT);
    private final int fd;

    /**
     * @param device   the interface to bind to.
     * @param protocol the EtherType to receive, or 0 for a socket that only sends.
     */
    RawSocket(final String device, final int protocol)
    {
        fd = syscalls.socket(AfPacket.AF_PACKET, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC, Sockets.htons(protocol));
        assertThat(fd).as("raw socket").isPositive();
        // Our own transmissions are not what a sink waits for.
        setInt(AfPacket.SOL_PACKET, AfPacket.PACKET_IGNORE_OUTGOING, 1);
        // Room for every frame of a test, so the sink never drops while the test thread forwards.
        setInt(Sockets.SOL_SOCKET, SO_RCVBUFFORCE, 16 << 20);
        final MemorySegment address = arena.allocate(SockaddrLl.LAYOUT);
        address.set(JAVA_SHORT, SockaddrLl.FAMILY_OFFSET, (short)AfPacket.AF_PACKET);
        address.set(JAVA_SHORT, SockaddrLl.PROTOCOL_OFFSET, (short)Sockets.htons(protocol));
        address.set(JAVA_INT, SockaddrLl.IFINDEX_OFFSET, syscalls.ifNameToIndex(device));
        assertThat(syscalls.bind(fd, address.address(), SockaddrLl.SIZE)).as("bind to " + device).isZero();
    }

    void send(final byte[] frame)
    {
        MemorySegment.copy(frame, 0, buffer, JAVA_BYTE, 0, frame.length);
        assertThat(syscalls.sendto(fd, buffer.address(), frame.length, 0, 0, 0)).isEqualTo(frame.length);
    }

    /** @return the next frame, or null when none arrives within the timeout. */
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

    private void setInt(final int level, final int option, final int value)
    {
        final MemorySegment segment = arena.allocate(JAVA_INT);
        segment.set(JAVA_INT, 0, value);
        assertThat(syscalls.setsockopt(fd, level, option, segment.address(), Integer.BYTES)).isZero();
    }

    @Override
    public void close()
    {
        syscalls.close(fd);
        arena.close();
    }
}
