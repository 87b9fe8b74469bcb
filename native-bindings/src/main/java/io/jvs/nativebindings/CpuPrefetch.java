package io.jvs.nativebindings;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The processor's prefetch instruction for a list of addresses, which Java does not have: one downcall per burst
 * starts the cache misses of all its lines without waiting for any (a Java load that misses holds up every
 * instruction after it from retiring, so a loop of loads keeps fewer misses in flight).
 * <p>
 * The routine is a few bytes of x86-64 machine code written into a page of its own, then made executable and not
 * writable ({@link AnonymousMemory#mapCode}), and called through a critical downcall (no thread-state transition: it neither blocks nor
 * calls back). There is no C library to build or ship. It reads {@code count} 8-byte native addresses from
 * {@code addresses} and issues {@code prefetcht0} on each; a prefetch never faults, whatever the address. On
 * another architecture {@link #isAvailable()} is false.
 */
public final class CpuPrefetch
{
    /**
     * {@code void prefetch(const long *addresses (rdi), int count (esi))}, System V AMD64 calling convention.
     */
    private static final byte[] X86_64_CODE = {
        (byte)0x85, (byte)0xF6,             // test esi, esi
        (byte)0x7E, (byte)0x0E,             // jle  done
        (byte)0x48, (byte)0x8B, (byte)0x07, // loop: mov rax, [rdi]
        (byte)0x0F, (byte)0x18, (byte)0x08, //       prefetcht0 [rax]
        (byte)0x48, (byte)0x83, (byte)0xC7, (byte)0x08, // add rdi, 8
        (byte)0xFF, (byte)0xCE,             //       dec esi
        (byte)0x75, (byte)0xF2,             //       jnz loop
        (byte)0xC3,                         // done: ret
    };
    /** The routine, or null where it cannot run. */
    private static final MethodHandle PREFETCH = link();

    private CpuPrefetch()
    {
    }

    /**
     * @return true when {@link #lines} issues real prefetches (x86-64 Linux, the routine mapped).
     */
    public static boolean isAvailable()
    {
        return PREFETCH != null;
    }

    /**
     * Prefetches the line at each of {@code count} addresses stored as native longs at {@code addresses}.
     *
     * @throws IllegalStateException when {@link #isAvailable()} is false.
     */
    public static void lines(final long addresses, final int count)
    {
        if (PREFETCH == null)
        {
            throw new IllegalStateException("no native prefetch on " + System.getProperty("os.arch"));
        }
        try
        {
            PREFETCH.invokeExact(addresses, count);
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("prefetch downcall failed", ex);
        }
    }

    private static MethodHandle link()
    {
        final String arch = System.getProperty("os.arch");
        if (!"amd64".equals(arch) && !"x86_64".equals(arch))
        {
            return null;
        }
        try
        {
            final long routine = AnonymousMemory.mapCode(X86_64_CODE);
            return Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(routine),
                FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT), Linker.Option.critical(false));
        }
        catch (final Throwable ex)
        {
            return null;
        }
    }
}
