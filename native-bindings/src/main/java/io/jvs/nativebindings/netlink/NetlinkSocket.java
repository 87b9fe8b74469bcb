package io.jvs.nativebindings.netlink;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.jvs.nativebindings.Errno;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.PollFd;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A NETLINK_ROUTE socket with the off-heap memory its calls use, allocated once: the receive buffer, the request
 * buffer, the kernel's address, and the scratch words of setsockopt and poll. Not thread-safe: it belongs to the
 * thread that owns its {@link Syscalls}.
 */
final class NetlinkSocket implements AutoCloseable
{
    /**
     * Larger than any datagram the kernel sends: dump parts are capped at 32 KiB (netlink_recvmsg's
     * max_recvmsg_len), a single object's message is far smaller.
     */
    static final int RECEIVE_BUFFER = 64 * 1024;
    /** Requests are one header, one fixed structure and a few addresses. */
    static final int REQUEST_BUFFER = 1024;

    private final Syscalls syscalls;
    private final Arena arena;
    private final int fd;
    private final MemorySegment receive;
    private final MemorySegment request;
    private final MemorySegment kernel;
    private final MemorySegment sender;
    private final MemorySegment senderLength;
    private final MemorySegment word;
    private final MemorySegment pollFd;
    private boolean closed;

    private NetlinkSocket(final Syscalls syscalls, final Arena arena, final int fd)
    {
        this.syscalls = syscalls;
        this.arena = arena;
        this.fd = fd;
        this.receive = arena.allocate(RECEIVE_BUFFER, 8);
        this.request = arena.allocate(REQUEST_BUFFER, 8);
        this.kernel = arena.allocate(SockaddrNl.LAYOUT);
        this.sender = arena.allocate(SockaddrNl.LAYOUT);
        this.senderLength = arena.allocate(JAVA_INT);
        this.word = arena.allocate(JAVA_INT);
        this.pollFd = arena.allocate(PollFd.LAYOUT);
        kernel.set(JAVA_SHORT, SockaddrNl.FAMILY_OFFSET, (short)Rtnetlink.AF_NETLINK);
    }

    /**
     * Opens a NETLINK_ROUTE socket bound to a port id the kernel chooses, in the calling thread's network
     * namespace.
     *
     * @param syscalls    the owning thread's system calls.
     * @param nonBlocking whether the socket is SOCK_NONBLOCK.
     * @param what        what it is for, for error messages.
     */
    static NetlinkSocket open(final Syscalls syscalls, final boolean nonBlocking, final String what)
    {
        return open(syscalls, nonBlocking, Rtnetlink.NETLINK_ROUTE, what);
    }

    /**
     * As {@link #open(Syscalls, boolean, String)} for another netlink protocol (NETLINK_GENERIC).
     */
    static NetlinkSocket open(final Syscalls syscalls, final boolean nonBlocking, final int protocol,
        final String what)
    {
        final int type = Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC | (nonBlocking ? Sockets.SOCK_NONBLOCK : 0);
        final int fd = (int)Syscalls.check("socket AF_NETLINK",
            syscalls.socket(Rtnetlink.AF_NETLINK, type, protocol), what);
        final Arena arena = Arena.ofShared();
        final NetlinkSocket socket;
        try
        {
            socket = new NetlinkSocket(syscalls, arena, fd);
        }
        catch (final RuntimeException | Error ex)
        {
            arena.close();
            syscalls.close(fd);
            throw ex;
        }
        try
        {
            final MemorySegment local = socket.sender;
            local.fill((byte)0);
            local.set(JAVA_SHORT, SockaddrNl.FAMILY_OFFSET, (short)Rtnetlink.AF_NETLINK);
            Syscalls.check("bind AF_NETLINK", syscalls.bind(fd, local.address(), SockaddrNl.SIZE), what);
        }
        catch (final RuntimeException ex)
        {
            socket.close();
            throw ex;
        }
        return socket;
    }

    int fd()
    {
        return fd;
    }

    MemorySegment receiveBuffer()
    {
        return receive;
    }

    MemorySegment requestBuffer()
    {
        return request;
    }

    /**
     * setsockopt(2) of a 4-byte value.
     *
     * @return 0, or -errno.
     */
    int setOption(final int level, final int option, final int value)
    {
        word.set(JAVA_INT, 0, value);
        return syscalls.setsockopt(fd, level, option, word.address(), 4);
    }

    /**
     * setsockopt(2) of a 4-byte value that must succeed.
     *
     * @param name the option's name for the error message, e.g. "NETLINK_EXT_ACK".
     */
    void setOptionOrThrow(final int level, final int option, final int value, final String name, final String what)
    {
        Syscalls.check("setsockopt " + name, setOption(level, option, value), what);
    }

    /**
     * getsockopt(2) of a 4-byte value.
     */
    int getOption(final int level, final int option, final String name, final String what)
    {
        word.set(JAVA_INT, 0, 0);
        senderLength.set(JAVA_INT, 0, 4);
        Syscalls.check("getsockopt " + name,
            syscalls.getsockopt(fd, level, option, word.address(), senderLength.address()), what);
        return word.get(JAVA_INT, 0);
    }

    /**
     * Sends the first {@code length} bytes of the request buffer to the kernel.
     */
    void send(final int length, final String what)
    {
        final long sent = Syscalls.check("sendto AF_NETLINK",
            syscalls.sendto(fd, request.address(), length, 0, kernel.address(), SockaddrNl.SIZE), what);
        if (sent != length)
        {
            throw new IllegalStateException(what + ": sendto took " + sent + " of the request's " + length + " bytes");
        }
    }

    /**
     * Receives one datagram into the receive buffer without blocking, with MSG_TRUNC so that a datagram longer
     * than the buffer reports its real length (and is lost) rather than passing for a short one.
     *
     * @return its length (more than {@link #RECEIVE_BUFFER} when it did not fit), or -errno (EAGAIN when none is
     * queued, ENOBUFS when the queue overflowed since the last call).
     */
    long receive()
    {
        senderLength.set(JAVA_INT, 0, SockaddrNl.SIZE);
        sender.set(JAVA_INT, SockaddrNl.PID_OFFSET, -1);
        return syscalls.recvfrom(fd, receive.address(), RECEIVE_BUFFER, Sockets.MSG_DONTWAIT | Rtnetlink.MSG_TRUNC,
            sender.address(), senderLength.address());
    }

    /**
     * @return the length of the next datagram from the kernel (others' are skipped), waiting at most
     *         {@code timeoutMs} for it.
     * @throws NetlinkFormatException when it did not fit the buffer.
     * @throws IllegalStateException when none came in time.
     */
    int receiveFromKernel(final int timeoutMs, final String what)
    {
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (true)
        {
            final long received = receive();
            if (received >= 0)
            {
                if (received > RECEIVE_BUFFER)
                {
                    throw new NetlinkFormatException(what + ": an answer of " + received + " bytes did not fit the " +
                        RECEIVE_BUFFER + "-byte buffer");
                }
                if (senderPort() == 0)
                {
                    return (int)received;
                }
                continue;
            }
            if (received != -Errno.EAGAIN && received != -Errno.EINTR)
            {
                throw new NativeCallException("recvfrom AF_NETLINK", (int)-received, what);
            }
            final long remainingMs = (deadline - System.nanoTime()) / 1_000_000L;
            if (remainingMs <= 0)
            {
                throw new IllegalStateException(what + ": the kernel did not answer within " + timeoutMs + " ms");
            }
            awaitReadable((int)remainingMs, what);
        }
    }

    /**
     * @return the port id the last received datagram came from: 0 for the kernel. Other processes with
     * CAP_NET_ADMIN could send to the groups too; only the kernel's messages are believed.
     */
    int senderPort()
    {
        return sender.get(JAVA_INT, SockaddrNl.PID_OFFSET);
    }

    /**
     * Waits with poll(2) until a datagram is queued or the time is up.
     *
     * @return false when the time ran out.
     */
    boolean awaitReadable(final int timeoutMs, final String what)
    {
        pollFd.set(JAVA_INT, PollFd.FD_OFFSET, fd);
        pollFd.set(JAVA_SHORT, PollFd.EVENTS_OFFSET, PollFd.POLLIN);
        pollFd.set(JAVA_SHORT, PollFd.REVENTS_OFFSET, (short)0);
        final int ready = syscalls.poll(pollFd.address(), 1, timeoutMs);
        if (ready == -Errno.EINTR)
        {
            return true;
        }
        Syscalls.check("poll", ready, what);
        return ready > 0;
    }

    /**
     * Closes the socket and frees its memory; a second call does nothing.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        final int result = syscalls.close(fd);
        arena.close();
        if (result < 0)
        {
            throw new NativeCallException("close", -result, "netlink socket " + fd);
        }
    }
}
