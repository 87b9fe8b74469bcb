package io.jvs.nativebindings;

/**
 * Names and meanings of the errno values jvs's system calls can leave (Linux, x86-64).
 */
public final class Errno
{
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
            case 1 -> "EPERM";
            case 2 -> "ENOENT";
            case 4 -> "EINTR";
            case 7 -> "E2BIG";
            case 9 -> "EBADF";
            case 11 -> "EAGAIN";
            case 12 -> "ENOMEM";
            case 13 -> "EACCES";
            case 14 -> "EFAULT";
            case 16 -> "EBUSY";
            case 17 -> "EEXIST";
            case 19 -> "ENODEV";
            case 22 -> "EINVAL";
            case 24 -> "EMFILE";
            case 28 -> "ENOSPC";
            case 34 -> "ERANGE";
            case 95 -> "EOPNOTSUPP";
            case 97 -> "EAFNOSUPPORT";
            case 100 -> "ENETDOWN";
            default -> "errno " + errno;
        };
    }

    /**
     * @return what the value means in words.
     */
    public static String describe(final int errno)
    {
        return switch (errno)
        {
            case 1 -> "operation not permitted (a capability such as CAP_NET_RAW or CAP_BPF is missing)";
            case 2 -> "no such file or directory";
            case 4 -> "interrupted system call";
            case 7 -> "argument list too long (for a BPF map: it is full)";
            case 9 -> "bad file descriptor";
            case 11 -> "resource temporarily unavailable";
            case 12 -> "out of memory";
            case 13 -> "permission denied";
            case 14 -> "bad address";
            case 16 -> "device or resource busy";
            case 17 -> "file exists";
            case 19 -> "no such device";
            case 22 -> "invalid argument";
            case 24 -> "too many open files";
            case 28 -> "no space left on device";
            case 34 -> "numerical result out of range";
            case 95 -> "operation not supported";
            case 97 -> "address family not supported";
            case 100 -> "network is down";
            default -> "see errno(3)";
        };
    }
}
