package io.jvs.forwarder.port.pcap;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Opens things inside a network namespace from this JVM: a new thread joins the namespace (setns(2) moves only
 * the calling thread), runs the action and ends. What the action opens stays in that namespace: a packet
 * socket belongs to the namespace it was created in, whichever thread uses it later.
 */
final class InNamespace
{
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 0x80000;
    private static final int CLONE_NEWNET = 0x40000000;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(groupElement("errno"));
    private static final MethodHandle OPEN = downcall("open",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    private static final MethodHandle SETNS = downcall("setns",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle CLOSE = downcall("close",
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private InNamespace()
    {
    }

    private static MethodHandle downcall(final String name, final FunctionDescriptor descriptor)
    {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor,
            Linker.Option.captureCallState("errno"));
    }

    /**
     * @param namespace a namespace made by {@code ip netns add}.
     * @param action    what to do inside it.
     * @return what the action returned.
     * @throws Exception what the action threw, or an IllegalStateException if the namespace cannot be joined.
     */
    static <T> T call(final String namespace, final Callable<T> action) throws Exception
    {
        final AtomicReference<T> result = new AtomicReference<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread thread = new Thread(() ->
        {
            try
            {
                join(namespace);
                result.set(action.call());
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        }, "in-" + namespace);
        thread.start();
        thread.join();
        if (failure.get() instanceof Exception ex)
        {
            throw ex;
        }
        if (failure.get() != null)
        {
            throw new IllegalStateException("in namespace " + namespace, failure.get());
        }
        return result.get();
    }

    private static void join(final String namespace) throws Throwable
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURE);
            final MemorySegment path = arena.allocateFrom("/run/netns/" + namespace);
            final int fd = (int)OPEN.invokeExact(state, path, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
            {
                throw new IllegalStateException("open /run/netns/" + namespace + ": errno " + ERRNO.get(state, 0L));
            }
            final int joined = (int)SETNS.invokeExact(state, fd, CLONE_NEWNET);
            final int errno = (int)ERRNO.get(state, 0L);
            final int closed = (int)CLOSE.invokeExact(state, fd);
            if (joined != 0 || closed != 0)
            {
                throw new IllegalStateException("setns into " + namespace + ": errno " + errno);
            }
        }
    }
}
