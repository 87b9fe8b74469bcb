package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.Syscalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Wakes a worker that sleeps in poll(2) when another worker hands it frames: an eventfd in the sleeper's poll
 * set, written only when the sleeper said it is about to sleep.
 * <p>
 * Ordering (the classic lost-wake-up argument): the sleeper stores {@code sleeping = 1} with a full fence, then
 * looks at its inbound rings once more and sleeps only if they are empty; the waker publishes its frames (a
 * release store of the ring's producer index), then issues a full fence and reads {@code sleeping}. One of
 * the two sees the other's store, so frames are either seen before sleeping or the eventfd is written.
 */
final class Wakeup implements AutoCloseable
{
    private static final VarHandle SLEEPING;

    static
    {
        try
        {
            SLEEPING = MethodHandles.lookup().findVarHandle(Wakeup.class, "sleeping", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int fd;
    private final Syscalls owner;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment readBuffer = arena.allocate(8, 8);
    private final MemorySegment one = arena.allocate(8, 8);
    @SuppressWarnings("unused") // through SLEEPING
    private volatile int sleeping;
    private long wakeups;

    Wakeup(final Syscalls owner)
    {
        this.owner = owner;
        this.fd = (int)Syscalls.check("eventfd", owner.eventfd(0, Syscalls.O_NONBLOCK | Syscalls.O_CLOEXEC),
            "a worker's wake-up descriptor");
        one.set(JAVA_LONG, 0, 1L);
    }

    int fd()
    {
        return fd;
    }

    /** The sleeper, before its last look at the rings. */
    void aboutToSleep()
    {
        SLEEPING.setVolatile(this, 1);
        VarHandle.fullFence();
    }

    /** The sleeper, after waking: empties the eventfd. */
    void awake()
    {
        SLEEPING.setRelease(this, 0);
        owner.read(fd, readBuffer.address(), 8);
    }

    /**
     * A waker, after publishing frames for this worker.
     *
     * @param waker the calling thread's own bindings.
     */
    void wake(final Syscalls waker)
    {
        VarHandle.fullFence();
        if ((int)SLEEPING.getAcquire(this) != 0)
        {
            waker.writeFrame(fd, one.address(), 8);
            wakeups++;
        }
    }

    @Override
    public void close()
    {
        owner.close(fd);
        arena.close();
    }
}
