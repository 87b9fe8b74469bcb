package io.jvs.nativebindings.testing;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.function.Predicate;

import io.jvs.nativebindings.PollFd;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.SockaddrLl;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A plain AF_PACKET raw socket (no ring) on one device of a namespace, for the tests' generators, sinks and
 * watchers: it sends whole Ethernet frames and receives the frames of one EtherType the device sees. Opened
 * inside the namespace, it keeps that namespace when used from any thread afterwards. Not the code under test
 * and not for the hot path: it copies every frame.
 */
public final class RawPacketSocket implements AutoCloseable
{
    /** SO_RCVBUFFORCE: a receive buffer beyond rmem_max, for root. */
    private static final int SO_RCVBUFFORCE = 33;
    /** Room for every frame of a test, so a sink never drops while the test thread does something else. */
    private static final int RECEIVE_BUFFER = 32 << 20;
    private static final int BUFFER = 65_536;
    private static final long POLL_PAUSE_NANOS = 1_000_000;

    private final Syscalls syscalls = Syscalls.create();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer = arena.allocate(BUFFER, 64);
    private final MemorySegment pollFd = arena.allocate(PollFd.LAYOUT);
    private final String device;
    private int fd = -1;

    private RawPacketSocket(final String device)
    {
        this.device = device;
    }

    /**
     * A socket that queues every frame of {@code etherType} the device carries, in and out (the kernel's own
     * transmissions too, but not this socket's).
     *
     * @param etherType the EtherType received ({@link AfPacket#ETH_P_ALL} for every frame, 0 for none); sending
     *                  is not limited by it.
     */
    public static RawPacketSocket open(final String namespace, final String device, final int etherType)
    {
        return open(namespace, device, etherType, false);
    }

    /**
     * {@link #open} that leaves out the frames the device transmits ({@code PACKET_IGNORE_OUTGOING}): a sink
     * or a watcher of what arrives.
     */
    public static RawPacketSocket openIncoming(final String namespace, final String device, final int etherType)
    {
        return open(namespace, device, etherType, true);
    }

    private static RawPacketSocket open(final String namespace, final String device, final int etherType,
        final boolean incomingOnly)
    {
        return TestNetwork.callIn(namespace, () ->
        {
            final RawPacketSocket socket = new RawPacketSocket(device);
            try
            {
                socket.bind(etherType, incomingOnly);
            }
            catch (final RuntimeException ex)
            {
                socket.close();
                throw ex;
            }
            return socket;
        });
    }

    private void bind(final int etherType, final boolean incomingOnly)
    {
        fd = (int)Syscalls.check("socket", syscalls.socket(AfPacket.AF_PACKET, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC,
            Sockets.htons(etherType)), "AF_PACKET on " + device);
        if (incomingOnly)
        {
            setInt(AfPacket.SOL_PACKET, AfPacket.PACKET_IGNORE_OUTGOING, 1, "setsockopt PACKET_IGNORE_OUTGOING");
        }
        setInt(Sockets.SOL_SOCKET, SO_RCVBUFFORCE, RECEIVE_BUFFER, "setsockopt SO_RCVBUFFORCE");
        final MemorySegment address = arena.allocate(SockaddrLl.LAYOUT);
        address.set(JAVA_SHORT, SockaddrLl.FAMILY_OFFSET, (short)AfPacket.AF_PACKET);
        address.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), SockaddrLl.PROTOCOL_OFFSET, (short)etherType);
        address.set(JAVA_INT, SockaddrLl.IFINDEX_OFFSET, (int)Syscalls.check("if_nametoindex",
            syscalls.ifNameToIndex(device), device));
        Syscalls.check("bind", syscalls.bind(fd, address.address(), SockaddrLl.SIZE), "AF_PACKET on " + device);
    }

    private void setInt(final int level, final int option, final int value, final String call)
    {
        final MemorySegment segment = arena.allocate(JAVA_INT);
        segment.set(JAVA_INT, 0, value);
        Syscalls.check(call, syscalls.setsockopt(fd, level, option, segment.address(), Integer.BYTES), device);
    }

    /**
     * Sends one whole frame out of the device.
     *
     * @throws IllegalStateException when the kernel refuses it or sends only part of it.
     */
    public synchronized void send(final byte[] frame)
    {
        MemorySegment.copy(frame, 0, buffer, JAVA_BYTE, 0, frame.length);
        final long sent = Syscalls.check("sendto", syscalls.sendto(fd, buffer.address(), frame.length, 0, 0, 0),
            "a frame of " + frame.length + " bytes on " + device);
        if (sent != frame.length)
        {
            throw new IllegalStateException("sendto sent " + sent + " of a frame's " + frame.length + " bytes on " +
                device);
        }
    }

    /** @return the next queued frame, or null when none is queued. */
    public synchronized byte[] poll()
    {
        final long length = syscalls.recvfrom(fd, buffer.address(), BUFFER, Sockets.MSG_DONTWAIT, 0, 0);
        return length < 0 ? null : buffer.asSlice(0, length).toArray(JAVA_BYTE);
    }

    /** @return the next frame, waiting for it up to {@code timeout} (none: only a queued one); null if none came. */
    public synchronized byte[] receive(final Duration timeout)
    {
        pollFd.set(JAVA_INT, PollFd.FD_OFFSET, fd);
        pollFd.set(JAVA_SHORT, PollFd.EVENTS_OFFSET, PollFd.POLLIN);
        if (syscalls.poll(pollFd.address(), 1, (int)timeout.toMillis()) <= 0)
        {
            return null;
        }
        return poll();
    }

    /**
     * Waits for the first frame that matches, discarding the others.
     *
     * @return it, or null when none came within {@code timeout}.
     */
    public byte[] await(final Predicate<byte[]> wanted, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline)
        {
            final byte[] frame = poll();
            if (frame == null)
            {
                pause();
            }
            else if (wanted.test(frame))
            {
                return frame;
            }
        }
        return null;
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
