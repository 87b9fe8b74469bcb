package io.jvs.nativebindings;

/**
 * The Linux system calls jvs's ports need, with the kernel's own convention for failure: a call returns
 * its result, or {@code -errno} when it fails. Nothing here throws or allocates, so a port may call it on
 * the data path and act on the return code. Control paths wrap a call in {@link #check} to turn a failure
 * into a {@link NativeCallException} naming the call, the errno and its meaning.
 * <p>
 * Pointers are raw addresses ({@code long}): off-heap memory the caller owns (a mapped ring, a struct laid
 * out with the layout classes of this package, an Agrona buffer). Passing addresses rather than
 * {@code MemorySegment}s keeps the two implementations interchangeable and costs no object per call.
 * <p>
 * Two implementations run the same contract tests: Panama FFM downcalls ({@code panama}, the default) and
 * jnr-ffi ({@code jnr}), chosen with {@link #create(String)} or the system property {@code jvs.native}.
 * An instance keeps per-instance state for capturing errno and is <b>not thread-safe</b>: each worker
 * thread and the control plane use their own.
 */
public interface Syscalls
{
    /** The system property that selects the implementation: {@code panama} or {@code jnr}. */
    String PROPERTY = "jvs.native";

    /** {@code socket(2)}: a file descriptor. */
    int socket(int domain, int type, int protocol);

    /** {@code bind(2)} to the socket address of {@code length} bytes at {@code address}. */
    int bind(int fd, long address, int length);

    /** {@code setsockopt(2)} with the {@code length}-byte value at {@code value}. */
    int setsockopt(int fd, int level, int option, long value, int length);

    /** {@code getsockopt(2)}: {@code lengthAddress} points to a 4-byte length, in and out. */
    int getsockopt(int fd, int level, int option, long value, long lengthAddress);

    /** {@code mmap(2)}: the mapping's address, or {@code -errno} (never a valid address). */
    long mmap(long address, long length, int protection, int flags, int fd, long offset);

    /** {@code munmap(2)}. */
    int munmap(long address, long length);

    /** {@code poll(2)} over {@code count} 8-byte {@code struct pollfd} at {@code pollfds}. */
    int poll(long pollfds, int count, int timeoutMs);

    /** {@code sendto(2)}; {@code address} may be 0 with {@code addressLength} 0 (a kick of an AF_XDP TX ring). */
    long sendto(int fd, long buffer, long length, int flags, long address, int addressLength);

    /** {@code recvfrom(2)}; {@code address} and {@code addressLengthAddress} may be 0. */
    long recvfrom(int fd, long buffer, long length, int flags, long address, long addressLengthAddress);

    /**
     * {@code sendto(fd, NULL, 0, MSG_DONTWAIT, NULL, 0)}: the transmit kick of an AF_XDP socket or a PACKET_TX_RING,
     * made on the data path once per burst. Unlike the other calls it does not capture errno: Panama's capture
     * slices a segment on every call, which allocates whenever the JIT does not inline the whole downcall into
     * its caller (at least 16 bytes per call then, KickWorstCaseAllocationTest; 2.4-3.2 MB/s in some wire benchmark
     * runs, perf/RESULTS.md). On failure it returns -errno as read right after the call; the JVM may rarely have
     * changed errno in between (a safepoint), so use the value to count failures, not to decide what to do.
     *
     * @return the bytes sent (0 for a kick), or -errno.
     */
    long kickTransmit(int fd);

    /**
     * {@code recvfrom(fd, NULL, 0, MSG_DONTWAIT, NULL, 0)}: the receive-side wake-up of an AF_XDP socket (its fill
     * ring needs the driver, or busy polling drives NAPI). No errno capture, as {@link #kickTransmit}.
     *
     * @return the kernel's result, or -errno (best effort).
     */
    long kickReceive(int fd);

    /**
     * {@code poll(2)} for a worker with nothing to do, on the data path's thread: no errno capture, as
     * {@link #kickTransmit}, so it never allocates.
     *
     * @return the ready descriptors, 0 on timeout, or -errno (best effort).
     */
    int pollIdle(long pollfds, int count, int timeoutMs);

    /**
     * {@code open(2)} of a path, e.g. {@code /dev/net/tun}.
     *
     * @param flags {@code O_*} flags ({@link #O_RDWR}, {@link #O_NONBLOCK}, {@link #O_CLOEXEC}).
     * @return a file descriptor, or {@code -errno}.
     */
    int open(String path, int flags);

    /** {@code read(2)} of at most {@code length} bytes into {@code buffer}: the bytes read, or {@code -errno}. */
    long read(int fd, long buffer, long length);

    /** {@code write(2)} of {@code length} bytes at {@code buffer}: the bytes written, or {@code -errno}. */
    long write(int fd, long buffer, long length);

    /**
     * {@code write(2)} on the data path (a frame handed to the host through a TAP, an eventfd wake-up): no errno
     * capture, as {@link #kickTransmit}, so it never allocates.
     *
     * @return the bytes written, or -errno (best effort).
     */
    long writeFrame(int fd, long buffer, long length);

    /**
     * {@code socketpair(2)}: two connected sockets, their descriptors written as two ints at {@code fdsAddress}.
     *
     * @return 0, or -errno.
     */
    int socketpair(int domain, int type, int protocol, long fdsAddress);

    /** {@code eventfd(2)}: a descriptor whose 8-byte counter a write adds to and a read takes, or {@code -errno}. */
    int eventfd(int initialValue, int flags);

    /**
     * {@code sched_setaffinity(0, ...)}: binds the calling thread to one CPU (a worker to its core).
     *
     * @param cpu 0..1023.
     * @return 0, or {@code -errno} (EINVAL for a CPU the thread may not use).
     */
    int pinThread(int cpu);

    /** {@code O_RDWR} for {@link #open}. */
    int O_RDWR = 2;
    /** {@code O_NONBLOCK}, for {@link #open} (and {@code EFD_NONBLOCK}, the same bit, for {@link #eventfd}). */
    int O_NONBLOCK = 0x800;
    /** {@code O_CLOEXEC} (and {@code EFD_CLOEXEC}). */
    int O_CLOEXEC = 0x80000;

    /** {@code ioctl(2)} with a pointer argument. */
    int ioctl(int fd, long request, long argument);

    /** {@code if_nametoindex(3)}: the index, or {@code -errno} (ENODEV when there is no such interface). */
    int ifNameToIndex(String name);

    /** {@code close(2)}. */
    int close(int fd);

    /** {@code bpf(2)} through {@code syscall(2)}, with the {@code size}-byte {@code union bpf_attr} at {@code attribute}. */
    long bpf(int command, long attribute, int size);

    /**
     * @return the implementation's name: {@code panama} or {@code jnr}.
     */
    String name();

    /**
     * Turns a failed call on a control path into an exception.
     *
     * @param call    the call's name, e.g. "bind".
     * @param result  what it returned.
     * @param context what it was asked to do, for the message (e.g. "AF_XDP socket on veth0 queue 0").
     * @return {@code result} when it is not negative.
     * @throws NativeCallException when it is.
     */
    static long check(final String call, final long result, final String context)
    {
        if (result < 0)
        {
            throw new NativeCallException(call, (int)-result, context);
        }
        return result;
    }

    /**
     * @return the implementation named by the system property {@link #PROPERTY}, Panama when it is unset.
     */
    static Syscalls create()
    {
        return create(System.getProperty(PROPERTY, "panama"));
    }

    /**
     * @param name {@code panama} or {@code jnr}.
     * @return a new instance for the calling thread.
     * @throws IllegalArgumentException for any other name.
     */
    static Syscalls create(final String name)
    {
        return switch (name)
        {
            case "panama" -> new PanamaSyscalls();
            case "jnr" -> new JnrSyscalls();
            default -> throw new IllegalArgumentException(
                "-D" + PROPERTY + " must be panama or jnr, not " + name);
        };
    }
}
