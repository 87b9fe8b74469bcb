package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.PollFd;
import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The descriptors a sleeping worker waits on: its receive sockets (an AF_XDP socket is readable when its RX
 * ring holds frames, an AF_PACKET one when a block is retired) and its wake-up eventfd, which another worker
 * writes after handing it frames. One poll(2) without errno capture, so sleeping allocates nothing. Used by the
 * worker's thread only.
 * <p>
 * A worker's set clears the pending error of a descriptor that reports POLLERR: a packet socket whose device goes
 * down or away gets {@code sk_err = ENETDOWN} (packet_notifier), which datagram_poll reports as POLLERR until
 * someone reads it (sock_error), also after the device is up again; a worker that never read it would find every
 * poll return at once and spin on its core for ever. The conductor's set does not: its rtnetlink socket reports an
 * overflow (ENOBUFS) through the error its next recv(2) returns, which makes it dump everything again.
 */
final class PollSet implements AutoCloseable
{
    private final Syscalls syscalls;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment fds;
    /** getsockopt(SO_ERROR)'s value and, after it, its length. */
    private final MemorySegment socketError;
    private final int count;
    private final boolean clearsErrors;
    private int errorsCleared;

    /**
     * @param syscalls    the worker's bindings.
     * @param descriptors the descriptors to wait on for POLLIN.
     */
    PollSet(final Syscalls syscalls, final int[] descriptors)
    {
        this(syscalls, descriptors, false);
    }

    /**
     * @param clearsErrors read (and so clear) the pending error of a descriptor that reports POLLERR: a worker's
     *                     receive sockets.
     */
    PollSet(final Syscalls syscalls, final int[] descriptors, final boolean clearsErrors)
    {
        this.syscalls = syscalls;
        this.clearsErrors = clearsErrors;
        this.count = descriptors.length;
        this.fds = arena.allocate(PollFd.LAYOUT.byteSize() * Math.max(1, count), 8);
        this.socketError = arena.allocate(2 * Integer.BYTES, 8);
        for (int i = 0; i < count; i++)
        {
            final long base = i * PollFd.LAYOUT.byteSize();
            fds.set(JAVA_INT, base + PollFd.FD_OFFSET, descriptors[i]);
            fds.set(JAVA_SHORT, base + PollFd.EVENTS_OFFSET, PollFd.POLLIN);
        }
    }

    /** Waits on {@code fd} instead of the {@code index}th descriptor from now on (the port there was replaced). */
    void descriptor(final int index, final int fd)
    {
        if (index < 0 || index >= count)
        {
            throw new IndexOutOfBoundsException("descriptor " + index + " of " + count);
        }
        fds.set(JAVA_INT, index * PollFd.LAYOUT.byteSize() + PollFd.FD_OFFSET, fd);
    }

    /**
     * Sleeps until a descriptor is readable or the time is up.
     *
     * @return how many are readable or in error (0 on timeout), or -errno (EINTR when a signal arrived).
     */
    int await(final int timeoutMs)
    {
        for (int i = 0; i < count; i++)
        {
            fds.set(JAVA_SHORT, i * PollFd.LAYOUT.byteSize() + PollFd.REVENTS_OFFSET, (short)0);
        }
        final int ready = syscalls.pollIdle(fds.address(), count, timeoutMs);
        errorsCleared = ready > 0 && clearsErrors ? clearErrors() : 0;
        return ready;
    }

    /** @return how many descriptors the last {@link #await} found in error (and cleared). */
    int errorsCleared()
    {
        return errorsCleared;
    }

    /**
     * Reads the pending error of each descriptor that reported POLLERR (getsockopt(SO_ERROR) returns and clears
     * it): rare, after a device event, so the errno capture of getsockopt does not matter here.
     */
    private int clearErrors()
    {
        int cleared = 0;
        for (int i = 0; i < count; i++)
        {
            final long base = i * PollFd.LAYOUT.byteSize();
            if ((fds.get(JAVA_SHORT, base + PollFd.REVENTS_OFFSET) & PollFd.POLLERR) != 0)
            {
                socketError.set(JAVA_INT, Integer.BYTES, Integer.BYTES);
                syscalls.getsockopt(fds.get(JAVA_INT, base + PollFd.FD_OFFSET), Sockets.SOL_SOCKET, Sockets.SO_ERROR,
                    socketError.address(), socketError.address() + Integer.BYTES);
                cleared++;
            }
        }
        return cleared;
    }

    @Override
    public void close()
    {
        arena.close();
    }
}
