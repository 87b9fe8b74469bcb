package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Tells systemd how the daemon is doing ({@code Type=notify}): one datagram to the Unix socket named by
 * {@code $NOTIFY_SOCKET}, e.g. {@code READY=1}, as sd_notify(3) sends it; a name starting with {@code @} is
 * in the abstract namespace. Without the variable (not run by systemd) it does nothing.
 */
final class SystemdNotify
{
    private static final int AF_UNIX = 1;
    private static final int SOCKADDR_UN_SIZE = 110;
    private static final int PATH_OFFSET = 2;

    private SystemdNotify()
    {
    }

    /**
     * @param state newline-separated assignments, e.g. {@code READY=1\nSTATUS=forwarding}.
     * @return whether a message was sent.
     */
    static boolean notify(final String state)
    {
        return notify(System.getenv("NOTIFY_SOCKET"), state);
    }

    /**
     * As {@link #notify(String)}, to the socket named by {@code target} (what {@code $NOTIFY_SOCKET} holds: a path,
     * or {@code @name} in the abstract namespace); tests pass their own, as the environment cannot be set here.
     *
     * @param target the socket, or null or empty for none.
     * @return whether a message was sent.
     */
    static boolean notify(final String target, final String state)
    {
        if (target == null || target.isEmpty())
        {
            return false;
        }
        final byte[] path = target.getBytes(StandardCharsets.UTF_8);
        if (path.length >= SOCKADDR_UN_SIZE - PATH_OFFSET)
        {
            DaemonLog.warning("NOTIFY_SOCKET is too long for a Unix socket address: not telling systemd");
            return false;
        }
        final Syscalls syscalls = Syscalls.create();
        final int fd = syscalls.socket(AF_UNIX, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
        if (fd < 0)
        {
            DaemonLog.warning("cannot tell systemd " + state.replace('\n', ' ') + ": socket failed, errno " + -fd);
            return false;
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment address = arena.allocate(SOCKADDR_UN_SIZE);
            address.set(JAVA_SHORT, 0, (short)AF_UNIX);
            MemorySegment.copy(path, 0, address, JAVA_BYTE, PATH_OFFSET, path.length);
            if (path[0] == '@')
            {
                address.set(JAVA_BYTE, PATH_OFFSET, (byte)0);
            }
            final byte[] message = state.getBytes(StandardCharsets.UTF_8);
            final MemorySegment buffer = arena.allocateFrom(JAVA_BYTE, message);
            final long sent = syscalls.sendto(fd, buffer.address(), message.length, 0, address.address(),
                PATH_OFFSET + path.length);
            if (sent < 0)
            {
                DaemonLog.warning("cannot tell systemd " + state.replace('\n', ' ') + ": sendto failed, errno " +
                    -sent);
                return false;
            }
            return true;
        }
        finally
        {
            syscalls.close(fd);
        }
    }
}
