package io.jvs.nativebindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Who is at the other end of a connected Unix socket, as the kernel recorded it when the peer connected:
 * {@code SO_PEERCRED}'s pid, user and group, and {@code SO_PEERGROUPS}'s supplementary groups (socket(7)). The
 * JDK's {@code jdk.net.ExtendedSocketOptions.SO_PEERCRED} gives names for the user and the primary group only,
 * which is not enough to decide whether a peer belongs to a group it joined as a supplementary one.
 *
 * @param pid    the peer's process id.
 * @param uid    its effective user id.
 * @param gid    its effective group id.
 * @param groups its supplementary groups.
 */
public record PeerCredentials(int pid, int uid, int gid, int[] groups)
{
    /** {@code struct ucred}: pid, uid, gid as three 32-bit integers. */
    private static final int UCRED_LENGTH = 12;
    /** Enough for NGROUPS_MAX (65536) groups, the kernel's own limit. */
    private static final int MOST_GROUPS = 65_536;

    public PeerCredentials
    {
        groups = groups.clone();
    }

    /**
     * Reads the credentials of a connected Unix socket's peer.
     *
     * @param syscalls the calling thread's bindings.
     * @param fd       the connected socket.
     * @return the peer's credentials.
     * @throws NativeCallException when the descriptor is not a connected Unix socket.
     */
    public static PeerCredentials of(final Syscalls syscalls, final int fd)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment ucred = arena.allocate(UCRED_LENGTH, 4);
            final MemorySegment length = arena.allocate(JAVA_INT);
            length.set(JAVA_INT, 0, UCRED_LENGTH);
            Syscalls.check("getsockopt(SO_PEERCRED)", syscalls.getsockopt(fd, Sockets.SOL_SOCKET,
                Sockets.SO_PEERCRED, ucred.address(), length.address()), "control client");
            int capacity = 64;
            while (true)
            {
                final MemorySegment groups = arena.allocate((long)capacity * Integer.BYTES, 4);
                length.set(JAVA_INT, 0, capacity * Integer.BYTES);
                final int result = syscalls.getsockopt(fd, Sockets.SOL_SOCKET, Sockets.SO_PEERGROUPS,
                    groups.address(), length.address());
                final int needed = length.get(JAVA_INT, 0) / Integer.BYTES;
                if (result == -Errno.ERANGE && needed > capacity && needed <= MOST_GROUPS)
                {
                    capacity = needed;
                    continue;
                }
                Syscalls.check("getsockopt(SO_PEERGROUPS)", result, "control client");
                return new PeerCredentials(ucred.get(JAVA_INT, 0), ucred.get(JAVA_INT, 4), ucred.get(JAVA_INT, 8),
                    groups.asSlice(0, (long)needed * Integer.BYTES).toArray(JAVA_INT));
            }
        }
    }

    /**
     * @param group a group id.
     * @return whether the peer is in that group, as its effective group or a supplementary one.
     */
    public boolean inGroup(final int group)
    {
        return gid == group || Arrays.stream(groups).anyMatch(member -> member == group);
    }

    @Override
    public int[] groups()
    {
        return groups.clone();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof PeerCredentials that && pid == that.pid && uid == that.uid && gid == that.gid &&
            Arrays.equals(groups, that.groups);
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * (31 * pid + uid) + gid) + Arrays.hashCode(groups);
    }

    @Override
    public String toString()
    {
        return "pid " + pid + " uid " + uid + " gid " + gid + " groups " + Arrays.toString(groups);
    }
}
