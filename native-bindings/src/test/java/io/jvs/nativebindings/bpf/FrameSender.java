package io.jvs.nativebindings.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.SockaddrLl;
import io.jvs.nativebindings.testing.TestNetwork;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An AF_PACKET socket that only sends whole frames out of one device, for tests that put hand-built frames
 * (VLAN tags included) on a veth. Opened in the device's namespace, it keeps that namespace on any thread.
 */
final class FrameSender implements AutoCloseable
{
    private final Syscalls syscalls = Syscalls.create();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer = arena.allocate(4096);
    private final int fd;

    private FrameSender(final String device)
    {
        // Protocol 0: the socket receives nothing.
        fd = syscalls.socket(AfPacket.AF_PACKET, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC, 0);
        assertThat(fd).as("AF_PACKET socket").isPositive();
        final MemorySegment address = arena.allocate(SockaddrLl.LAYOUT);
        address.set(JAVA_SHORT, SockaddrLl.FAMILY_OFFSET, (short)AfPacket.AF_PACKET);
        address.set(JAVA_INT, SockaddrLl.IFINDEX_OFFSET, syscalls.ifNameToIndex(device));
        assertThat(syscalls.bind(fd, address.address(), SockaddrLl.SIZE)).as("bind to " + device).isZero();
    }

    /**
     * @return a sender on {@code device} of {@code namespace}.
     */
    static FrameSender open(final String namespace, final String device)
    {
        return TestNetwork.callIn(namespace, () -> new FrameSender(device));
    }

    void send(final byte[] frame)
    {
        MemorySegment.copy(frame, 0, buffer, JAVA_BYTE, 0, frame.length);
        assertThat(syscalls.sendto(fd, buffer.address(), frame.length, 0, 0, 0)).isEqualTo(frame.length);
    }

    @Override
    public void close()
    {
        syscalls.close(fd);
        arena.close();
    }
}
