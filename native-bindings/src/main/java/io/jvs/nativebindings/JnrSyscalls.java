package io.jvs.nativebindings;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/**
 * {@link Syscalls} through jnr-ffi, the alternative binding measured against Panama. Pointer arguments
 * are declared as {@code long} (the same register on x86-64); jnr saves errno after every call, and it
 * is read only when a call failed.
 */
final class JnrSyscalls implements Syscalls
{
    private static final long SYS_MMAP = 9;
    private static final long SYS_SENDTO = 44;
    private static final long SYS_RECVFROM = 45;
    private static final long SYS_BPF = 321;

    /** The libc functions, bound by jnr-ffi. Public because jnr generates an implementation of it. */
    public interface LibC
    {
        int socket(int domain, int type, int protocol);

        int bind(int fd, long address, int length);

        int setsockopt(int fd, int level, int option, long value, int length);

        int getsockopt(int fd, int level, int option, long value, long lengthAddress);

        int munmap(long address, long length);

        int poll(long pollfds, long count, int timeoutMs);

        // Variadic in C; glibc's ioctl and syscall are register-passing wrappers, so a fixed signature of
        // 64-bit arguments reaches them intact.
        int ioctl(int fd, long request, long argument);

        long syscall(long number, long first, long second, long third);

        // jnr-ffi 2.3.7's generated fast path passes six-argument calls wrongly here (mmap(0, 8192, ...) fails
        // with EINVAL; it works with -Djnr.ffi.asm.enabled=false), so mmap, sendto and recvfrom go through
        // syscall(2) with seven arguments, which takes the general path.
        long syscall(long number, long first, long second, long third, long fourth, long fifth, long sixth);

        int if_nametoindex(String name);

        int close(int fd);
    }

    private static final LibC LIBC = LibraryLoader.create(LibC.class).load("c");
    private static final Runtime RUNTIME = Runtime.getRuntime(LIBC);

    private static int errno()
    {
        return RUNTIME.getLastError();
    }

    private static int result(final int value)
    {
        return value < 0 ? -errno() : value;
    }

    private static long result(final long value)
    {
        return value == -1 ? -errno() : value;
    }

    @Override
    public int socket(final int domain, final int type, final int protocol)
    {
        return result(LIBC.socket(domain, type, protocol));
    }

    @Override
    public int bind(final int fd, final long address, final int length)
    {
        return result(LIBC.bind(fd, address, length));
    }

    @Override
    public int setsockopt(final int fd, final int level, final int option, final long value, final int length)
    {
        return result(LIBC.setsockopt(fd, level, option, value, length));
    }

    @Override
    public int getsockopt(final int fd, final int level, final int option, final long value, final long lengthAddress)
    {
        return result(LIBC.getsockopt(fd, level, option, value, lengthAddress));
    }

    @Override
    public long mmap(
        final long address, final long length, final int protection, final int flags, final int fd, final long offset)
    {
        return result(LIBC.syscall(SYS_MMAP, address, length, protection, flags, fd, offset));
    }

    @Override
    public int munmap(final long address, final long length)
    {
        return result(LIBC.munmap(address, length));
    }

    @Override
    public int poll(final long pollfds, final int count, final int timeoutMs)
    {
        return result(LIBC.poll(pollfds, count, timeoutMs));
    }

    @Override
    public long sendto(
        final int fd, final long buffer, final long length, final int flags, final long address, final int addressLength)
    {
        return result(LIBC.syscall(SYS_SENDTO, fd, buffer, length, flags, address, addressLength));
    }

    @Override
    public long recvfrom(
        final int fd, final long buffer, final long length, final int flags, final long address,
        final long addressLengthAddress)
    {
        return result(LIBC.syscall(SYS_RECVFROM, fd, buffer, length, flags, address, addressLengthAddress));
    }

    @Override
    public int ioctl(final int fd, final long request, final long argument)
    {
        return result(LIBC.ioctl(fd, request, argument));
    }

    @Override
    public int ifNameToIndex(final String name)
    {
        final int index = LIBC.if_nametoindex(name);
        return index != 0 ? index : -errno();
    }

    @Override
    public int close(final int fd)
    {
        return result(LIBC.close(fd));
    }

    @Override
    public long bpf(final int command, final long attribute, final int size)
    {
        return result(LIBC.syscall(SYS_BPF, command, attribute, size));
    }

    @Override
    public String name()
    {
        return "jnr";
    }
}
