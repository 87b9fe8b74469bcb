package io.jvs.nativebindings;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@link Syscalls} through Panama FFM downcalls. Pointer arguments are declared as 64-bit integers (the
 * same register on x86-64), so a call passes raw addresses and creates no segment. Each call captures
 * errno into this instance's own buffer, read only when the call failed.
 */
final class PanamaSyscalls implements Syscalls
{
    private static final long SYS_BPF = 321;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(groupElement("errno"));

    private static final MethodHandle SOCKET = downcall("socket", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle BIND = downcall("bind", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle SETSOCKOPT =
        downcall("setsockopt", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT);
    private static final MethodHandle GETSOCKOPT =
        downcall("getsockopt", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle MMAP =
        downcall("mmap", JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG);
    private static final MethodHandle MUNMAP = downcall("munmap", JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle POLL = downcall("poll", JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT);
    private static final MethodHandle SENDTO =
        downcall("sendto", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT);
    // The data-path kicks: no errno capture, so no segment per call (see Syscalls.kickTransmit).
    private static final MethodHandle SENDTO_NO_CAPTURE = LINKER.downcallHandle(symbol("sendto"),
        FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle RECVFROM_NO_CAPTURE = LINKER.downcallHandle(symbol("recvfrom"),
        FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle POLL_NO_CAPTURE =
        LINKER.downcallHandle(symbol("poll"), FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final MethodHandle ERRNO_LOCATION =
        LINKER.downcallHandle(symbol("__errno_location"), FunctionDescriptor.of(JAVA_LONG));
    /** Reads errno at the address __errno_location gives, with no segment made per read. */
    private static final MemorySegment ALL_MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    private static final MethodHandle RECVFROM =
        downcall("recvfrom", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG);
    // ioctl(int, unsigned long, ...) and syscall(long, ...) are variadic: every variadic argument is passed
    // as a full 64-bit value, which is what glibc reads back.
    private static final MethodHandle IOCTL = variadic("ioctl", 2, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle SYSCALL3 =
        variadic("syscall", 1, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle IF_NAMETOINDEX = downcall("if_nametoindex", JAVA_INT, JAVA_LONG);
    private static final MethodHandle CLOSE = downcall("close", JAVA_INT, JAVA_INT);
    private static final MethodHandle OPEN = variadic("open", 2, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT);
    private static final MethodHandle READ = downcall("read", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle WRITE = downcall("write", JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG);
    private static final MethodHandle WRITE_NO_CAPTURE =
        LINKER.downcallHandle(symbol("write"), FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle EVENTFD = downcall("eventfd", JAVA_INT, JAVA_INT, JAVA_INT);
    private static final MethodHandle SCHED_SETAFFINITY =
        downcall("sched_setaffinity", JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG);
    /** sizeof(cpu_set_t) in glibc: 1024 CPUs. */
    private static final int CPU_SET_BYTES = 128;

    private final MemorySegment state = Arena.ofAuto().allocate(CAPTURE);

    private static MethodHandle downcall(final String name, final MemoryLayout result, final MemoryLayout... arguments)
    {
        return LINKER.downcallHandle(symbol(name), FunctionDescriptor.of(result, arguments),
            Linker.Option.captureCallState("errno"));
    }

    private static MethodHandle variadic(
        final String name, final int firstVariadic, final MemoryLayout result, final MemoryLayout... arguments)
    {
        return LINKER.downcallHandle(symbol(name), FunctionDescriptor.of(result, arguments),
            Linker.Option.captureCallState("errno"), Linker.Option.firstVariadicArg(firstVariadic));
    }

    private static MemorySegment symbol(final String name)
    {
        return LINKER.defaultLookup().find(name)
            .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
    }

    private int failed(final long result)
    {
        return result < 0 ? -(int)ERRNO.get(state, 0L) : (int)result;
    }

    private long failedLong(final long result)
    {
        return result == -1 ? -(int)ERRNO.get(state, 0L) : result;
    }

    @Override
    public int socket(final int domain, final int type, final int protocol)
    {
        try
        {
            return failed((int)SOCKET.invokeExact(state, domain, type, protocol));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("socket", ex);
        }
    }

    @Override
    public int bind(final int fd, final long address, final int length)
    {
        try
        {
            return failed((int)BIND.invokeExact(state, fd, address, length));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("bind", ex);
        }
    }

    @Override
    public int setsockopt(final int fd, final int level, final int option, final long value, final int length)
    {
        try
        {
            return failed((int)SETSOCKOPT.invokeExact(state, fd, level, option, value, length));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("setsockopt", ex);
        }
    }

    @Override
    public int getsockopt(final int fd, final int level, final int option, final long value, final long lengthAddress)
    {
        try
        {
            return failed((int)GETSOCKOPT.invokeExact(state, fd, level, option, value, lengthAddress));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("getsockopt", ex);
        }
    }

    @Override
    public long mmap(
        final long address, final long length, final int protection, final int flags, final int fd, final long offset)
    {
        try
        {
            return failedLong((long)MMAP.invokeExact(state, address, length, protection, flags, fd, offset));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("mmap", ex);
        }
    }

    @Override
    public int munmap(final long address, final long length)
    {
        try
        {
            return failed((int)MUNMAP.invokeExact(state, address, length));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("munmap", ex);
        }
    }

    @Override
    public int poll(final long pollfds, final int count, final int timeoutMs)
    {
        try
        {
            return failed((int)POLL.invokeExact(state, pollfds, (long)count, timeoutMs));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("poll", ex);
        }
    }

    @Override
    public long sendto(
        final int fd, final long buffer, final long length, final int flags, final long address, final int addressLength)
    {
        try
        {
            return failedLong((long)SENDTO.invokeExact(state, fd, buffer, length, flags, address, addressLength));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("sendto", ex);
        }
    }

    @Override
    public long recvfrom(
        final int fd, final long buffer, final long length, final int flags, final long address,
        final long addressLengthAddress)
    {
        try
        {
            return failedLong(
                (long)RECVFROM.invokeExact(state, fd, buffer, length, flags, address, addressLengthAddress));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("recvfrom", ex);
        }
    }

    @Override
    public long kickTransmit(final int fd)
    {
        try
        {
            final long result = (long)SENDTO_NO_CAPTURE.invokeExact(fd, 0L, 0L, Sockets.MSG_DONTWAIT, 0L, 0);
            return result == -1 ? -errnoAfterTheFact() : result;
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("sendto", ex);
        }
    }

    @Override
    public long kickReceive(final int fd)
    {
        try
        {
            final long result = (long)RECVFROM_NO_CAPTURE.invokeExact(fd, 0L, 0L, Sockets.MSG_DONTWAIT, 0L, 0L);
            return result == -1 ? -errnoAfterTheFact() : result;
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("recvfrom", ex);
        }
    }

    @Override
    public int pollIdle(final long pollfds, final int count, final int timeoutMs)
    {
        try
        {
            final int result = (int)POLL_NO_CAPTURE.invokeExact(pollfds, (long)count, timeoutMs);
            return result == -1 ? -errnoAfterTheFact() : result;
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("poll", ex);
        }
    }

    private static int errnoAfterTheFact() throws Throwable
    {
        return ALL_MEMORY.get(JAVA_INT, (long)ERRNO_LOCATION.invokeExact());
    }

    @Override
    public int ioctl(final int fd, final long request, final long argument)
    {
        try
        {
            return failed((int)IOCTL.invokeExact(state, fd, request, argument));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("ioctl", ex);
        }
    }

    @Override
    public int ifNameToIndex(final String name)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final int index = (int)IF_NAMETOINDEX.invokeExact(state, arena.allocateFrom(name).address());
            return index != 0 ? index : -(int)ERRNO.get(state, 0L);
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("if_nametoindex", ex);
        }
    }

    @Override
    public int close(final int fd)
    {
        try
        {
            return failed((int)CLOSE.invokeExact(state, fd));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("close", ex);
        }
    }

    @Override
    public int open(final String path, final int flags)
    {
        try (Arena arena = Arena.ofConfined())
        {
            return failed((int)OPEN.invokeExact(state, arena.allocateFrom(path).address(), flags, 0));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("open", ex);
        }
    }

    @Override
    public long read(final int fd, final long buffer, final long length)
    {
        try
        {
            return failedLong((long)READ.invokeExact(state, fd, buffer, length));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("read", ex);
        }
    }

    @Override
    public long write(final int fd, final long buffer, final long length)
    {
        try
        {
            return failedLong((long)WRITE.invokeExact(state, fd, buffer, length));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("write", ex);
        }
    }

    @Override
    public long writeFrame(final int fd, final long buffer, final long length)
    {
        try
        {
            final long result = (long)WRITE_NO_CAPTURE.invokeExact(fd, buffer, length);
            return result == -1 ? -errnoAfterTheFact() : result;
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("write", ex);
        }
    }

    @Override
    public int socketpair(final int domain, final int type, final int protocol, final long fdsAddress)
    {
        try
        {
            return failed((int)Rare.SOCKETPAIR.invokeExact(state, domain, type, protocol, fdsAddress));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("socketpair", ex);
        }
    }

    @Override
    public int eventfd(final int initialValue, final int flags)
    {
        try
        {
            return failed((int)EVENTFD.invokeExact(state, initialValue, flags));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("eventfd", ex);
        }
    }

    @Override
    public int pinThread(final int cpu)
    {
        if (cpu < 0 || cpu >= CPU_SET_BYTES * 8)
        {
            return -22;
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment set = arena.allocate(CPU_SET_BYTES, 8);
            set.set(JAVA_LONG, (cpu / 64) * 8L, 1L << (cpu % 64));
            return failed((int)SCHED_SETAFFINITY.invokeExact(state, 0, (long)CPU_SET_BYTES, set.address()));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("sched_setaffinity", ex);
        }
    }

    @Override
    public long bpf(final int command, final long attribute, final int size)
    {
        try
        {
            return failedLong((long)SYSCALL3.invokeExact(state, SYS_BPF, (long)command, attribute, (long)size));
        }
        catch (final Throwable ex)
        {
            throw linkageFailure("bpf", ex);
        }
    }

    @Override
    public String name()
    {
        return "panama";
    }

    /** invokeExact declares Throwable; a downcall itself throws nothing, so anything here is a linkage bug. */
    private static AssertionError linkageFailure(final String call, final Throwable cause)
    {
        return new AssertionError(call + " downcall failed", cause);
    }

    /** Calls only a daemon's start makes, linked on first use: every linked downcall costs start-up time. */
    private static final class Rare
    {
        static final MethodHandle SOCKETPAIR =
            downcall("socketpair", JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG);
    }
}
