package io.jvs.nativebindings;

/**
 * The errno values jvs's system calls can leave (Linux, x86-64): their numbers, names, meanings, and for the
 * failures a port meets at start-up, what to do about them. {@link Syscalls} returns them negated.
 */
public final class Errno
{
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int ENXIO = 6;
    public static final int E2BIG = 7;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ENOTTY = 25;
    public static final int ENOSPC = 28;
    public static final int ERANGE = 34;
    public static final int ENOSYS = 38;
    public static final int ENOTSOCK = 88;
    public static final int EDESTADDRREQ = 89;
    public static final int EMSGSIZE = 90;
    public static final int ENOPROTOOPT = 92;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EOPNOTSUPP = 95;
    public static final int EAFNOSUPPORT = 97;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETDOWN = 100;
    public static final int ENOBUFS = 105;

    private static final String CAPABILITIES = "jvs needs CAP_NET_RAW for AF_PACKET and AF_XDP sockets, CAP_BPF and "
        + "CAP_NET_ADMIN to load and attach XDP programs, and CAP_IPC_LOCK for a UMEM beyond RLIMIT_MEMLOCK "
        + "(or run it as root)";

    private Errno()
    {
    }

    /**
     * @return the symbolic name, e.g. "ENOMEM", or "errno N".
     */
    public static String name(final int errno)
    {
        return switch (errno)
        {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case ENXIO -> "ENXIO";
            case E2BIG -> "E2BIG";
            case EBADF -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EFAULT -> "EFAULT";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case ENODEV -> "ENODEV";
            case EINVAL -> "EINVAL";
            case EMFILE -> "EMFILE";
            case ENOTTY -> "ENOTTY";
            case ENOSPC -> "ENOSPC";
            case ERANGE -> "ERANGE";
            case ENOSYS -> "ENOSYS";
            case ENOTSOCK -> "ENOTSOCK";
            case EDESTADDRREQ -> "EDESTADDRREQ";
            case EMSGSIZE -> "EMSGSIZE";
            case ENOPROTOOPT -> "ENOPROTOOPT";
            case EPROTONOSUPPORT -> "EPROTONOSUPPORT";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case EAFNOSUPPORT -> "EAFNOSUPPORT";
            case EADDRINUSE -> "EADDRINUSE";
            case EADDRNOTAVAIL -> "EADDRNOTAVAIL";
            case ENETDOWN -> "ENETDOWN";
            case ENOBUFS -> "ENOBUFS";
            default -> "errno " + errno;
        };
    }

    /**
     * @return what the value means in words (as strerror(3) says it).
     */
    public static String describe(final int errno)
    {
        return switch (errno)
        {
            case EPERM -> "operation not permitted";
            case ENOENT -> "no such file or directory";
            case EINTR -> "interrupted system call";
            case ENXIO -> "no such device or address";
            case E2BIG -> "argument list too long";
            case EBADF -> "bad file descriptor";
            case EAGAIN -> "resource temporarily unavailable";
            case ENOMEM -> "out of memory";
            case EACCES -> "permission denied";
            case EFAULT -> "bad address";
            case EBUSY -> "device or resource busy";
            case EEXIST -> "file exists";
            case ENODEV -> "no such device";
            case EINVAL -> "invalid argument";
            case EMFILE -> "too many open files";
            case ENOTTY -> "inappropriate ioctl for device";
            case ENOSPC -> "no space left on device";
            case ERANGE -> "numerical result out of range";
            case ENOSYS -> "function not implemented";
            case ENOTSOCK -> "socket operation on non-socket";
            case EDESTADDRREQ -> "destination address required";
            case EMSGSIZE -> "message too long";
            case ENOPROTOOPT -> "protocol not available";
            case EPROTONOSUPPORT -> "protocol not supported";
            case EOPNOTSUPP -> "operation not supported";
            case EAFNOSUPPORT -> "address family not supported";
            case EADDRINUSE -> "address already in use";
            case EADDRNOTAVAIL -> "cannot assign requested address";
            case ENETDOWN -> "network is down";
            case ENOBUFS -> "no buffer space available";
            default -> "see errno(3)";
        };
    }

    /**
     * What the failure most likely means for the call that left it, and what to do: for the failures a port
     * meets when it starts (missing capabilities, memory lock limits, drivers without zero-copy, busy queues).
     *
     * @param call  the call's name as given to {@link Syscalls#check}, e.g. "socket" or "setsockopt XDP_UMEM_REG".
     * @param errno what it left.
     * @return the advice, or an empty string when there is none to give.
     */
    public static String hint(final String call, final int errno)
    {
        return switch (errno)
        {
            case EPERM, EACCES ->
                call.startsWith("socket") ? "opening AF_PACKET and AF_XDP sockets needs CAP_NET_RAW" :
                call.startsWith("bpf") ? "bpf(2) needs CAP_BPF (loading) and CAP_NET_ADMIN (attaching XDP and tcx); " +
                    "EACCES from a program load is the verifier's refusal: load it again with a log" :
                errno == EPERM ? CAPABILITIES : "";
            case ENOBUFS -> call.contains("UMEM") || call.startsWith("setsockopt") ?
                "the UMEM exceeds RLIMIT_MEMLOCK: grant CAP_IPC_LOCK or raise the limit (LimitMEMLOCK=infinity)" : "";
            case EOPNOTSUPP -> call.startsWith("bind") ?
                "the driver has no AF_XDP zero-copy (veth never has): bind in copy mode" : "";
            case EBUSY -> call.startsWith("bind") ?
                "another socket holds the queue, or a closed one is still being released: munmap the rings before " +
                "close, and retry for about a second" : "";
            case E2BIG -> call.startsWith("bpf") ? "the BPF map is full" : "";
            case ERANGE -> call.startsWith("bpf") ?
                "native XDP on veth needs the peer's MTU at most 3506" : "";
            case ENODEV -> "no interface of that name or index in this network namespace";
            case ENETDOWN -> "the interface is down: ip link set DEV up";
            default -> "";
        };
    }
}
