package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.SockaddrLl;
import io.jvs.nativebindings.testing.TestNetwork;

/**
 * A test's traffic generator and sink: an AF_PACKET raw socket on one device of a namespace that sends
 * whole Ethernet frames and receives the frames of one EtherType. Opened inside the namespace; used from
 * the test thread afterwards (a socket keeps its namespace).
 */
final class RawSocket implements AutoCloseable
{
    /** SO_RCVBUFFORCE: a receive buffer beyond rmem_max, for root; the sink holds a whole test's frames. */
    private static final int SO_RCVBUFFORCE = 33;
    private static final int BUFFER = 2048;

    private final Syscalls syscalls = Syscalls.create();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer = arena.allocate(BUFFER, 64);
    private int fd = -1;

    private RawSocket()
    {
    }

    /**
     * @param etherType the EtherType received (frames of others are not queued); sending is not limited.
     */
    static RawSocket open(final String namespace, final String device, final int etherType)
    {
        return TestNetwork.callIn(namespace, () ->
        {
            final RawSocket socket = new RawSocket();
            socket.bind(device, etherType);
            return socket;
        });
    }

    private void bind(final String device, final int etherType)
    {
        fd = (int)Syscalls.check("socket", syscalls.socket(AfPacket.AF_PACKET, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC,
            Sockets.htons(etherType)), "AF_PACKET on " + device);
        final MemorySegment size = arena.allocate(ValueLayout.JAVA_INT);
        size.set(ValueLayout.JAVA_INT, 0, 32 << 20);
        Syscalls.check("setsockopt SO_RCVBUFFORCE", syscalls.setsockopt(fd, Sockets.SOL_SOCKET, SO_RCVBUFFORCE,
            size.address(), Integer.BYTES), device);
        final MemorySegment address = arena.allocate(SockaddrLl.LAYOUT);
        address.set(ValueLayout.JAVA_SHORT, SockaddrLl.FAMILY_OFFSET, (short)AfPacket.AF_PACKET);
        address.set(ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), SockaddrLl.PROTOCOL_OFFSET,
            (short)etherType);
        address.set(ValueLayout.JAVA_INT, SockaddrLl.IFINDEX_OFFSET, (int)Syscalls.check("if_nametoindex",
            syscalls.ifNameToIndex(device), device));
        Syscalls.check("bind", syscalls.bind(fd, address.address(), SockaddrLl.SIZE), "AF_PACKET on " + device);
    }

    /** Sends one whole frame out of the bound device. */
    void send(final byte[] frame)
    {
        MemorySegment.copy(frame, 0, buffer, ValueLayout.JAVA_BYTE, 0, frame.length);
        Syscalls.check("sendto", syscalls.sendto(fd, buffer.address(), frame.length, 0, 0, 0), "raw frame");
    }

    /**
     * @return the next queued frame, or null when none is queued.
     */
    byte[] poll()
    {
        final long length = syscalls.recvfrom(fd, buffer.address(), BUFFER, Sockets.MSG_DONTWAIT, 0, 0);
        if (length < 0)
        {
            return null;
        }
        return Arrays.copyOf(buffer.toArray(ValueLayout.JAVA_BYTE), (int)length);
    }

    @Override
    public void close()
    {
        if (fd >= 0)
        {
            syscalls.close(fd);
            fd = -1;
        }
        arena.close();
    }
}
