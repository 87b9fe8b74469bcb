package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.PollFd;
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
 */
final class PollSet implements AutoCloseable
{
    private final Syscalls syscalls;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment fds;
    private final int count;

    /**
     * @param syscalls    the worker's bindings.
     * @param descriptors the descriptors to wait on for POLLIN.
     */
    PollSet(final Syscalls syscalls, final int[] descriptors)
    {
        this.syscalls = syscalls;
        this.count = descriptors.length;
        this.fds = arena.allocate(PollFd.LAYOUT.byteSize() * Math.max(1, count), 8);
        for (int i = 0; i < count; i++)
        {
            final long base = i * PollFd.LAYOUT.byteSize();
            fds.set(JAVA_INT, base + PollFd.FD_OFFSET, descriptors[i]);
            fds.set(JAVA_SHORT, base + PollFd.EVENTS_OFFSET, PollFd.POLLIN);
        }
    }

    /**
     * Sleeps until a descriptor is readable or the time is up.
     *
     * @return how many are readable (0 on timeout), or -errno (EINTR when a signal arrived).
     */
    int await(final int timeoutMs)
    {
        for (int i = 0; i < count; i++)
        {
            fds.set(JAVA_SHORT, i * PollFd.LAYOUT.byteSize() + PollFd.REVENTS_OFFSET, (short)0);
        }
        return syscalls.pollIdle(fds.address(), count, timeoutMs);
    }

    @Override
    public void close()
    {
        arena.close();
    }
}
