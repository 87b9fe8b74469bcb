package io.jvs.nativebindings;

/**
 * Constants of socket(2), setsockopt(2) at the socket level and the send/receive flags (Linux, x86-64).
 * The families with structures of their own live beside them: {@code xdp.AfXdp}, {@code packet.AfPacket}.
 */
public final class Sockets
{
    public static final int AF_UNIX = 1;
    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;

    public static final int SOCK_STREAM = 1;
    public static final int SOCK_DGRAM = 2;
    public static final int SOCK_RAW = 3;
    /** Or'ed into the type: the descriptor is not inherited by programs the process executes. */
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int SOCK_NONBLOCK = 0x800;

    public static final int SOL_SOCKET = 1;
    public static final int SO_TYPE = 3;
    public static final int SO_ERROR = 4;
    public static final int SO_SNDBUF = 7;
    public static final int SO_RCVBUF = 8;
    /** The peer's {@code struct ucred} (pid, uid, gid) on a Unix socket, as of connect(2). */
    public static final int SO_PEERCRED = 17;
    /** The peer's supplementary groups ({@code gid_t} array; ERANGE with the needed length when too small). */
    public static final int SO_PEERGROUPS = 59;
    /** Busy polling of the device queue for this many microseconds in blocking receives and poll. */
    public static final int SO_BUSY_POLL = 46;
    public static final int SO_PREFER_BUSY_POLL = 69;
    public static final int SO_BUSY_POLL_BUDGET = 70;

    public static final int MSG_DONTWAIT = 0x40;

    private Sockets()
    {
    }

    /**
     * @return the 16-bit value in network byte order, as socket(2) and the socket addresses want a protocol
     * or a port (x86-64 is little-endian).
     */
    public static int htons(final int value)
    {
        return Short.toUnsignedInt(Short.reverseBytes((short)value));
    }
}
