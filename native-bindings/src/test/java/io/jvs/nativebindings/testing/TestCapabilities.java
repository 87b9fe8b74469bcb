package io.jvs.nativebindings.testing;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Runs code without some capabilities, to see what a port says when it lacks a privilege: capabilities are
 * per thread in Linux, so a new thread drops them from its effective set (capset(2)) and ends with the code;
 * the rest of the process keeps them. Needs a process that has them, as root in CI does.
 */
public final class TestCapabilities
{
    public static final int CAP_NET_ADMIN = 12;
    public static final int CAP_NET_RAW = 13;
    public static final int CAP_IPC_LOCK = 14;
    public static final int CAP_SYS_ADMIN = 21;
    public static final int CAP_BPF = 39;

    /** _LINUX_CAPABILITY_VERSION_3: 64 capability bits, as two 32-bit words of data. */
    private static final int VERSION_3 = 0x20080522;
    private static final int DATA_WORD_BYTES = 12;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(groupElement("errno"));
    private static final MethodHandle CAPGET = downcall("capget");
    private static final MethodHandle CAPSET = downcall("capset");

    private TestCapabilities()
    {
    }

    /**
     * @param capabilities the CAP_* numbers to drop.
     * @param body         what to run without them.
     * @return what the body returned; what it threw is thrown here.
     */
    public static <T> T callWithout(final int[] capabilities, final Callable<T> body)
    {
        final FutureTask<T> task = new FutureTask<>(() ->
        {
            dropEffective(capabilities);
            return body.call();
        });
        new Thread(task, "without-capabilities").start();
        try
        {
            return task.get();
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof RuntimeException runtime)
            {
                throw runtime;
            }
            if (cause instanceof Error error)
            {
                throw error;
            }
            throw new IllegalStateException("failed without capabilities", cause);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    private static void dropEffective(final int[] capabilities)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURE);
            final MemorySegment header = arena.allocate(8);
            header.set(JAVA_INT, 0, VERSION_3);
            header.set(JAVA_INT, 4, 0);
            // Two words of {effective, permitted, inheritable}: capabilities 0-31, then 32-63.
            final MemorySegment data = arena.allocate(2 * DATA_WORD_BYTES);
            if ((int)CAPGET.invokeExact(state, header, data) != 0)
            {
                throw new IllegalStateException("capget failed: errno " + (int)ERRNO.get(state, 0L));
            }
            for (final int capability : capabilities)
            {
                final long effective = (long)(capability / 32) * DATA_WORD_BYTES;
                data.set(JAVA_INT, effective, data.get(JAVA_INT, effective) & ~(1 << (capability % 32)));
            }
            if ((int)CAPSET.invokeExact(state, header, data) != 0)
            {
                throw new IllegalStateException("capset failed: errno " + (int)ERRNO.get(state, 0L));
            }
        }
        catch (final IllegalStateException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("capget/capset downcall failed", ex);
        }
    }

    private static MethodHandle downcall(final String name)
    {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Linker.Option.captureCallState("errno"));
    }
}
