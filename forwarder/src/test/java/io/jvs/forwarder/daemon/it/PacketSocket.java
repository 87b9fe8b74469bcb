package io.jvs.forwarder.daemon.it;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.SockaddrLl;
import io.jvs.nativebindings.testing.TestNetwork;

/**
 * An AF_PACKET raw socket on one device of a namespace, for hand-built frames and for watching what
 * arrives: it sends whole Ethernet frames and receives every frame of one EtherType the device sees,
 * each with its packet type (to us, broadcast, outgoing...). Opened in the namespace; usable from any
 * thread afterwards (a socket keeps its namespace). Not for the hot path: it copies.
 */
public final class PacketSocket implements AutoCloseable
{
    /** SO_RCVBUFFORCE: a receive buffer beyond rmem_max, for root. */
    private static final int SO_RCVBUFFORCE = 33;
    private static final int BUFFER = 65536;
    private static final long POLL_PAUSE_NANOS = 1_000_000;

    private final Syscalls syscalls = Syscalls.create();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer = arena.allocate(BUFFER, 64);
    private final MemorySegment from = arena.allocate(SockaddrLl.LAYOUT);
    private final MemorySegment fromLength = arena.allocate(ValueLayout.JAVA_INT);
    private final String device;
    private int fd = -1;

    /** A frame received, with the {@code sll_pkttype} the kernel gave it ({@link AfPacket#PACKET_HOST}...). */
    public record Received(byte[] frame, int packetType)
    {
        /** @return whether it came in (to us, broadcast, multicast or to another host), not out. */
        public boolean incoming()
        {
            return packetType != AfPacket.PACKET_OUTGOING;
        }
    }

    private PacketSocket(final String device)
    {
        this.device = device;
    }

    /**
     * @param etherType the EtherType received ({@link AfPacket#ETH_P_ALL} for every frame); sending is not
     *                  limited by it.
     */
    public static PacketSocket open(final String namespace, final String device, final int etherType)
    {
        return TestNetwork.callIn(namespace, () ->
        {
            final PacketSocket socket = new PacketSocket(device);
            try
            {
                socket.bind(etherType);
            }
            catch (final RuntimeException ex)
            {
                socket.close();
                throw ex;
            }
            return socket;
        });
    }

    private void bind(final int etherType)
    {
        fd = (int)Syscalls.check("socket", syscalls.socket(AfPacket.AF_PACKET,
            Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC, Sockets.htons(etherType)), "AF_PACKET on " + device);
        final MemorySegment size = arena.allocate(ValueLayout.JAVA_INT);
        size.set(ValueLayout.JAVA_INT, 0, 8 << 20);
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

    /** Sends one whole frame out of the device. */
    public synchronized void send(final byte[] frame)
    {
        MemorySegment.copy(frame, 0, buffer, ValueLayout.JAVA_BYTE, 0, frame.length);
        Syscalls.check("sendto", syscalls.sendto(fd, buffer.address(), frame.length, 0, 0, 0),
            "a frame of " + frame.length + " bytes on " + device);
    }

    /**
     * @return the next queued frame, or null when none is queued.
     */
    public synchronized Received poll()
    {
        fromLength.set(ValueLayout.JAVA_INT, 0, SockaddrLl.SIZE);
        final long length = syscalls.recvfrom(fd, buffer.address(), BUFFER, Sockets.MSG_DONTWAIT, from.address(),
            fromLength.address());
        if (length < 0)
        {
            return null;
        }
        return new Received(buffer.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE),
            from.get(ValueLayout.JAVA_BYTE, SockaddrLl.PKTTYPE_OFFSET) & 0xff);
    }

    /**
     * Waits for the first frame that matches, discarding the others.
     *
     * @return it, or null when none came within {@code timeout}.
     */
    public Received await(final Predicate<Received> wanted, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline)
        {
            final Received received = poll();
            if (received == null)
            {
                pause();
            }
            else if (wanted.test(received))
            {
                return received;
            }
        }
        return null;
    }

    /**
     * @return every frame that arrives within {@code duration} and matches.
     */
    public List<Received> collect(final Predicate<Received> wanted, final Duration duration)
    {
        final List<Received> frames = new ArrayList<>();
        final long deadline = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() < deadline)
        {
            final Received received = poll();
            if (received == null)
            {
                pause();
            }
            else if (wanted.test(received))
            {
                frames.add(received);
            }
        }
        return frames;
    }

    private static void pause()
    {
        try
        {
            Thread.sleep(Duration.ofNanos(POLL_PAUSE_NANOS));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for a frame", ex);
        }
    }

    @Override
    public synchronized void close()
    {
        if (fd >= 0)
        {
            syscalls.close(fd);
            fd = -1;
        }
        arena.close();
    }
}
