package io.jvs.forwarder.port;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;

/**
 * Where a simulated socket's transmit kicks go, for the simulated kernels of the daemon's warm-up: one end of an
 * AF_UNIX datagram socket pair, whose descriptor the socket gives as its own, with the smallest send buffer the kernel
 * allows. A kick (sendto with no data) is an empty datagram to the other end; it succeeds while {@link #take} keeps up
 * and, a few kicks after it stops, fails with EAGAIN, as a real kick does while the kernel is behind. So the JIT
 * compiles both outcomes of a kick (kicks that always failed, or never, would leave a profile that traps on the first
 * live one of the other kind), and nothing leaves the process.
 */
public final class SimulatedKicks implements AutoCloseable
{
    private final Syscalls syscalls;
    private int fd = -1;
    private int peer = -1;

    private SimulatedKicks(final Syscalls syscalls)
    {
        this.syscalls = syscalls;
    }

    /**
     * @param what the socket, for an error's message, e.g. "a simulated AF_XDP socket".
     * @throws io.jvs.nativebindings.NativeCallException when the kernel refuses the pair or its buffer size.
     */
    public static SimulatedKicks open(final Syscalls syscalls, final String what)
    {
        final SimulatedKicks kicks = new SimulatedKicks(syscalls);
        try (Arena scratch = Arena.ofConfined())
        {
            final MemorySegment pair = scratch.allocate(ValueLayout.JAVA_INT, 2);
            Syscalls.check("socketpair", syscalls.socketpair(Sockets.AF_UNIX, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC |
                Sockets.SOCK_NONBLOCK, 0, pair.address()), what);
            kicks.fd = pair.getAtIndex(ValueLayout.JAVA_INT, 0);
            kicks.peer = pair.getAtIndex(ValueLayout.JAVA_INT, 1);
            final MemorySegment size = scratch.allocate(ValueLayout.JAVA_INT);
            size.set(ValueLayout.JAVA_INT, 0, 1);
            Syscalls.check("setsockopt SO_SNDBUF", syscalls.setsockopt(kicks.fd, Sockets.SOL_SOCKET,
                Sockets.SO_SNDBUF, size.address(), Integer.BYTES), what);
            return kicks;
        }
        catch (final RuntimeException ex)
        {
            kicks.close();
            throw ex;
        }
    }

    /** @return the descriptor the simulated socket gives as its own: its kicks are sent on it. */
    public int fd()
    {
        return fd;
    }

    /** @return where the kicks arrive (for tests). */
    public int peer()
    {
        return peer;
    }

    /** @return how many kicks arrived since the last take, all taken. */
    public int take()
    {
        int taken = 0;
        while (syscalls.kickReceive(peer) >= 0)
        {
            taken++;
        }
        return taken;
    }

    /** Closes both ends. Safe to call twice. */
    @Override
    public void close()
    {
        if (fd >= 0)
        {
            syscalls.close(fd);
            fd = -1;
        }
        if (peer >= 0)
        {
            syscalls.close(peer);
            peer = -1;
        }
    }
}
