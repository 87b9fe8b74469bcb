package io.jvs.nativebindings;

import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/**
 * {@link Syscalls} through jnr-ffi, the alternative binding measured against Panama. Pointer arguments
 * are declared as {@code long} (the same register on x86-64); jnr saves errno after every call, and it
 * is read only when a call failed.
 * <p>
 * <b>Six integer arguments.</b> On x86-64 jnr-ffi compiles each method whose parameters are all primitives
 * into a machine-code JNI stub (X86_64StubCompiler) that moves the arguments down two registers, past
 * JNIEnv and the receiver, and loads the C function's 5th and 6th arguments from the caller's stack. It
 * computes the 6th one's stack slot as {@code 8 + (4 - i) * 8}, which for {@code i = 5} is {@code [rsp + 0]}:
 * the stub's return address. So the 6th argument of every such call is a code address (seen: {@code mmap}'s
 * offset became 0x7f..085 and glibc refused it with EINVAL before any system call). Five arguments are right,
 * seven are not compiled into a stub, and {@code -Djnr.ffi.x86asm.enabled=false} turns the stubs off for
 * every method. It is jnr-ffi's bug (jnr/jnr-ffi issue 181, open; the formula is unchanged in its current
 * source), in its code generator, so no jffi version can change it, and no later jnr-ffi fixes it (the local
 * repository has 2.3.7 only).
 * <p>
 * The fix here: the six-argument functions declare one {@link Pointer} parameter. jnr compiles no stub for a
 * method with a Pointer and more than four parameters, so they take its next fast path, a bytecode call of
 * jffi's {@code invokeLLLLLLrL} with the arguments as longs, which is right. The other methods keep the stubs.
 * A null Pointer is address 0; any other address is wrapped once and reused while it does not change, so a
 * port that sends to the same address, or kicks an AF_XDP ring with none, allocates nothing per call.
 */
final class JnrSyscalls implements Syscalls
{
    private static final long SYS_BPF = 321;

    /** The libc functions, bound by jnr-ffi. Public because jnr generates an implementation of it. */
    public interface LibC
    {
        int socket(int domain, int type, int protocol);

        int bind(int fd, long address, int length);

        int setsockopt(int fd, int level, int option, long value, int length);

        int getsockopt(int fd, int level, int option, long value, long lengthAddress);

        // The Pointer parameters keep these three off jnr's broken six-argument stub (see the class comment).
        long mmap(Pointer address, long length, int protection, int flags, int fd, long offset);

        long sendto(int fd, long buffer, long length, int flags, Pointer address, int addressLength);

        long recvfrom(int fd, long buffer, long length, int flags, Pointer address, long addressLengthAddress);

        int munmap(long address, long length);

        int poll(long pollfds, long count, int timeoutMs);

        // Variadic in C; glibc's ioctl and syscall are register-passing wrappers, so a fixed signature of
        // 64-bit arguments reaches them intact.
        int ioctl(int fd, long request, long argument);

        long syscall(long number, long first, long second, long third);

        int if_nametoindex(String name);

        int close(int fd);

        // Variadic in C (the mode); passed as a plain int, which glibc reads only with O_CREAT.
        int open(String path, int flags, int mode);

        long read(int fd, long buffer, long length);

        long write(int fd, long buffer, long length);

        int eventfd(int initialValue, int flags);

        int socketpair(int domain, int type, int protocol, long fds);

        int sched_setaffinity(int pid, long size, Pointer mask);
    }

    private static final LibC LIBC = LibraryLoader.create(LibC.class).load("c");
    private static final Runtime RUNTIME = Runtime.getRuntime(LIBC);

    private final CachedPointer sendtoAddress = new CachedPointer();
    private final CachedPointer recvfromAddress = new CachedPointer();

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
        return result(LIBC.mmap(address == 0 ? null : Pointer.wrap(RUNTIME, address), length, protection, flags, fd,
            offset));
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
        return result(LIBC.sendto(fd, buffer, length, flags, sendtoAddress.of(address), addressLength));
    }

    @Override
    public long recvfrom(
        final int fd, final long buffer, final long length, final int flags, final long address,
        final long addressLengthAddress)
    {
        return result(LIBC.recvfrom(fd, buffer, length, flags, recvfromAddress.of(address), addressLengthAddress));
    }

    @Override
    public long kickTransmit(final int fd)
    {
        return result(LIBC.sendto(fd, 0, 0, Sockets.MSG_DONTWAIT, null, 0));
    }

    @Override
    public long kickReceive(final int fd)
    {
        return result(LIBC.recvfrom(fd, 0, 0, Sockets.MSG_DONTWAIT, null, 0));
    }

    @Override
    public int pollIdle(final long pollfds, final int count, final int timeoutMs)
    {
        return poll(pollfds, count, timeoutMs);
    }

    @Override
    public int open(final String path, final int flags)
    {
        return result(LIBC.open(path, flags, 0));
    }

    @Override
    public long read(final int fd, final long buffer, final long length)
    {
        return result(LIBC.read(fd, buffer, length));
    }

    @Override
    public long write(final int fd, final long buffer, final long length)
    {
        return result(LIBC.write(fd, buffer, length));
    }

    @Override
    public long writeFrame(final int fd, final long buffer, final long length)
    {
        return write(fd, buffer, length);
    }

    @Override
    public int socketpair(final int domain, final int type, final int protocol, final long fdsAddress)
    {
        return result(LIBC.socketpair(domain, type, protocol, fdsAddress));
    }

    @Override
    public int eventfd(final int initialValue, final int flags)
    {
        return result(LIBC.eventfd(initialValue, flags));
    }

    @Override
    public int pinThread(final int cpu)
    {
        if (cpu < 0 || cpu >= 1024)
        {
            return -22;
        }
        final Pointer set = jnr.ffi.Memory.allocateDirect(RUNTIME, 128, true);
        set.putLong((cpu / 64) * 8L, 1L << (cpu % 64));
        return result(LIBC.sched_setaffinity(0, 128, set));
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

    /** The last address passed as a jnr {@link Pointer}, wrapped once. */
    private static final class CachedPointer
    {
        private long address;
        private Pointer pointer;

        Pointer of(final long address)
        {
            if (address == 0)
            {
                return null;
            }
            if (address != this.address)
            {
                this.pointer = Pointer.wrap(RUNTIME, address);
                this.address = address;
            }
            return pointer;
        }
    }
}
