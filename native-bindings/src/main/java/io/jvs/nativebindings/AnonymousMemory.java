package io.jvs.nativebindings;

import java.lang.foreign.Arena;
import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

/**
 * Anonymous memory mappings (mmap(2) with MAP_ANONYMOUS), optionally advised to use transparent huge
 * pages (madvise(2) MADV_HUGEPAGE): for tables of millions of entries, 2 MiB pages leave the TLB enough
 * reach that random lookups stop paying a page walk each.
 */
public final class AnonymousMemory
{
    private static final int PROT_READ = 0x1;
    private static final int PROT_WRITE = 0x2;
    private static final int PROT_EXEC = 0x4;
    private static final int MAP_PRIVATE = 0x02;
    private static final int MAP_ANONYMOUS = 0x20;
    private static final int MADV_HUGEPAGE = 14;
    private static final long MAP_FAILED = -1L;
    /** Huge pages are 2 MiB on x86-64: mappings are rounded up to them so the kernel can use them throughout. */
    public static final long HUGE_PAGE_SIZE = 2L << 20;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    /** Read only when a call fails: its var handle set up at start cost every command milliseconds (LayoutPath). */
    private static final class Errno
    {
        static final VarHandle ERRNO = CAPTURE.varHandle(groupElement("errno"));
    }
    private static final MethodHandle MMAP = downcall("mmap", FunctionDescriptor.of(ValueLayout.ADDRESS,
        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
        ValueLayout.JAVA_LONG));
    private static final MethodHandle MADVISE = downcall("madvise", FunctionDescriptor.of(ValueLayout.JAVA_INT,
        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    /**
     * The calls few runs make, each linked on its first use: a downcall's stub is a class the linker spins, about 10
     * ms of a short command's start each. mprotect shares madvise's stub (the linker keeps one a function descriptor
     * and set of options); munmap's is its own, which a run that unmaps nothing (a replay's tables live until it
     * exits) never needs.
     */
    private static final class Mprotect
    {
        static final MethodHandle MPROTECT = downcall("mprotect", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    }

    /** See {@link Mprotect}. */
    private static final class Munmap
    {
        static final MethodHandle MUNMAP = downcall("munmap", FunctionDescriptor.of(ValueLayout.JAVA_INT,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    }

    /** Unmaps the mappings whose owners became unreachable, as the JDK frees direct buffers. */
    private static final Cleaner CLEANER = Cleaner.create();
    /** Bytes of the mappings left to the Cleaner that are still mapped. */
    private static final AtomicLong UNRELEASED = new AtomicLong();

    private final long address;
    private final long length;
    private final boolean hugePagesAdvised;
    /** The mapping itself, which a Cleaner may unmap: it holds no reference to this object. */
    private final Mapping mapping;

    private AnonymousMemory(final long address, final long length, final boolean hugePagesAdvised)
    {
        this.address = address;
        this.length = length;
        this.hugePagesAdvised = hugePagesAdvised;
        this.mapping = new Mapping(address, length);
    }

    private static MethodHandle downcall(final String name, final FunctionDescriptor descriptor)
    {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), descriptor,
            Linker.Option.captureCallState("errno"));
    }

    /**
     * Maps zeroed memory.
     *
     * @param bytes      at least this many bytes.
     * @param hugePages  ask for transparent huge pages (the kernel may still decline; the memory works either way).
     * @return the mapping.
     * @throws NativeCallException when mmap fails.
     */
    public static AnonymousMemory map(final long bytes, final boolean hugePages)
    {
        final long length = hugePages ? (bytes + HUGE_PAGE_SIZE - 1) & -HUGE_PAGE_SIZE : (bytes + 4095) & -4096L;
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURE);
            final MemorySegment mapped = (MemorySegment)MMAP.invokeExact(state, MemorySegment.NULL, length,
                PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
            if (mapped.address() == MAP_FAILED)
            {
                throw new NativeCallException("mmap", (int)Errno.ERRNO.get(state, 0L), length + " bytes");
            }
            boolean advised = false;
            if (hugePages)
            {
                final int result = (int)MADVISE.invokeExact(state, mapped, length, MADV_HUGEPAGE);
                advised = result == 0;
            }
            return new AnonymousMemory(mapped.address(), length, advised);
        }
        catch (final NativeCallException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("mmap downcall failed", ex);
        }
    }

    /**
     * Maps pages holding {@code code}, then makes them readable and executable and no longer writable (mprotect(2)):
     * a routine of a few instructions to call through a downcall, with nothing to build or ship. Writable or
     * executable, never both: the pages are sealed before anything can run them. They stay mapped for the process's
     * life.
     *
     * @param code machine code.
     * @return the address of its first byte.
     * @throws NativeCallException when mmap or mprotect fails.
     */
    public static long mapCode(final byte[] code)
    {
        final AnonymousMemory memory = map(Math.max(1, code.length), false);
        MemorySegment.ofAddress(memory.address).reinterpret(memory.length).copyFrom(MemorySegment.ofArray(code));
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment state = arena.allocate(CAPTURE);
            final int result = (int)Mprotect.MPROTECT.invokeExact(state, MemorySegment.ofAddress(memory.address),
                memory.length, PROT_READ | PROT_EXEC);
            if (result != 0)
            {
                final int errno = (int)Errno.ERRNO.get(state, 0L);
                memory.unmap();
                throw new NativeCallException("mprotect", errno, memory.length + " bytes");
            }
            return memory.address;
        }
        catch (final NativeCallException ex)
        {
            throw ex;
        }
        catch (final Throwable ex)
        {
            throw new AssertionError("mprotect downcall failed", ex);
        }
    }

    public long address()
    {
        return address;
    }

    public long length()
    {
        return length;
    }

    /**
     * @return true when madvise(MADV_HUGEPAGE) was accepted.
     */
    public boolean hugePagesAdvised()
    {
        return hugePagesAdvised;
    }

    /**
     * Has the memory unmapped once {@code owner} is unreachable (or at {@link #unmap()}, if that comes first),
     * as the JDK frees a direct buffer: for memory whose users may be dropped at any time, such as a replay's
     * tables in a JVM that runs many replays. The owner must stay reachable while the memory is used: the
     * object that holds the address.
     *
     * @param owner what keeps the memory mapped.
     * @return this.
     */
    public AnonymousMemory unmapWhenUnreachable(final Object owner)
    {
        mapping.countUntilUnmapped();
        CLEANER.register(owner, mapping);
        return this;
    }

    /**
     * @return the bytes of the mappings left to be unmapped when unreachable ({@link #unmapWhenUnreachable}) that
     * are still mapped: what a collection may give back, as the JDK counts its direct buffers.
     */
    public static long unreleasedBytes()
    {
        return UNRELEASED.get();
    }

    /**
     * Unmaps the memory; using it afterwards crashes the process. A second call does nothing.
     */
    public void unmap()
    {
        mapping.run();
    }

    /** An address range to unmap once. */
    private static final class Mapping implements Runnable
    {
        private final long address;
        private final long length;
        private boolean unmapped;
        private boolean counted;

        Mapping(final long address, final long length)
        {
            this.address = address;
            this.length = length;
        }

        synchronized void countUntilUnmapped()
        {
            if (!counted && !unmapped)
            {
                counted = true;
                UNRELEASED.addAndGet(length);
            }
        }

        @Override
        public synchronized void run()
        {
            if (unmapped)
            {
                return;
            }
            try (Arena arena = Arena.ofConfined())
            {
                final MemorySegment state = arena.allocate(CAPTURE);
                final int result = (int)Munmap.MUNMAP.invokeExact(state, MemorySegment.ofAddress(address), length);
                if (result != 0)
                {
                    throw new NativeCallException("munmap", (int)Errno.ERRNO.get(state, 0L), length + " bytes");
                }
                unmapped = true;
                if (counted)
                {
                    UNRELEASED.addAndGet(-length);
                }
            }
            catch (final NativeCallException ex)
            {
                throw ex;
            }
            catch (final Throwable ex)
            {
                throw new AssertionError("munmap downcall failed", ex);
            }
        }
    }
}
