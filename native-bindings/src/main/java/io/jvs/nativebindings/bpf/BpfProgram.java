package io.jvs.nativebindings.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;

import static io.jvs.nativebindings.bpf.BpfAttr.ObjectInfo;
import static io.jvs.nativebindings.bpf.BpfAttr.ProgramInfo;
import static io.jvs.nativebindings.bpf.BpfAttr.ProgramLoad;
import static io.jvs.nativebindings.bpf.BpfAttr.TestRun;

/**
 * A program loaded into the kernel with {@code BPF_PROG_LOAD}. It is loaded quietly (log level 0); when
 * the verifier refuses it, it is loaded again with log level 1 into a 1 MiB buffer and the refusal
 * becomes a {@link BpfVerifierException} carrying that log. Closing the fd unloads the program unless a
 * link or another fd still holds it.
 */
public final class BpfProgram implements AutoCloseable
{
    /**
     * {@code BPF_PROG_TYPE_SOCKET_FILTER}: a socket's filter, and the program of a PACKET_FANOUT_EBPF group,
     * which returns the index of the socket that gets the frame.
     */
    public static final int TYPE_SOCKET_FILTER = 1;
    /** {@code BPF_PROG_TYPE_XDP}. */
    public static final int TYPE_XDP = 6;
    /** {@code BPF_PROG_TYPE_SCHED_CLS}: tc classifiers, the type tcx runs. */
    public static final int TYPE_SCHED_CLS = 3;
    /**
     * {@code BPF_PROG_TYPE_RAW_TRACEPOINT}: runs at a kernel tracepoint with its arguments as an array of u64 (the
     * context), attached by name with {@code BPF_RAW_TRACEPOINT_OPEN}.
     */
    public static final int TYPE_RAW_TRACEPOINT = 17;
    /** {@code BPF_XDP}, the attach type of XDP links. */
    public static final int ATTACH_TYPE_XDP = 37;
    /** The log level that makes the verifier print each instruction it checks (level 0: no log). */
    public static final int LOG_LEVEL_VERBOSE = 1;
    public static final int LOG_BUFFER_BYTES = 1 << 20;

    private static final int EACCES = 13;
    private static final int EINVAL = 22;
    private static final int ENOSPC = 28;
    // The helpers jvs calls are not GPL-only, but a NULL licence pointer is EFAULT: always pass one.
    private static final String LICENSE = "GPL";

    private final Syscalls syscalls;
    private final String name;
    private final int slotCount;
    private final String verifierLog;
    private int fd;

    private BpfProgram(
        final Syscalls syscalls, final int fd, final String name, final int slotCount, final String verifierLog)
    {
        this.syscalls = syscalls;
        this.fd = fd;
        this.name = name;
        this.slotCount = slotCount;
        this.verifierLog = verifierLog;
    }

    /**
     * Loads an XDP program.
     *
     * @param name at most 15 letters, digits, '_' or '.'.
     * @param code the program, linked to its maps' fds.
     * @throws BpfVerifierException when the kernel refuses it (EACCES, EINVAL), with the verifier's log.
     * @throws NativeCallException  for any other failure (EPERM without CAP_BPF and CAP_NET_ADMIN, ...).
     */
    public static BpfProgram loadXdp(final Syscalls syscalls, final String name, final BpfBytecode code)
    {
        return load(syscalls, TYPE_XDP, ATTACH_TYPE_XDP, name, code, 0);
    }

    /**
     * Loads an XDP program and keeps the verifier's log of a successful load (its summary, e.g.
     * "processed 26 insns ..."): for diagnostics and tests.
     *
     * @param logLevel 1 (every instruction on failure, a summary on success) or 4 (statistics only).
     */
    public static BpfProgram loadXdpWithLog(
        final Syscalls syscalls, final String name, final BpfBytecode code, final int logLevel)
    {
        return load(syscalls, TYPE_XDP, ATTACH_TYPE_XDP, name, code, logLevel);
    }

    /**
     * Loads a program of any type.
     *
     * @param logLevel 0 to load quietly and ask for the log only after a refusal.
     */
    public static BpfProgram load(
        final Syscalls syscalls, final int type, final int expectedAttachType, final String name,
        final BpfBytecode code, final int logLevel)
    {
        BpfObjectName.check(name);
        if (!code.isLinked())
        {
            throw new IllegalArgumentException("program " + name + " still needs fds for maps " + code.mapNames());
        }
        final String description = "program " + name + " of type " + type + " (" + code.slotCount() + " slots)";
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = loadAttr(arena, type, expectedAttachType, name, code);
            MemorySegment log = MemorySegment.NULL;
            if (logLevel != 0)
            {
                log = withLog(arena, attr, logLevel);
            }
            long result = syscalls.bpf(ProgramLoad.COMMAND, attr.address(), BpfAttr.SIZE_BYTES);
            if (result < 0 && logLevel == 0 && (result == -EACCES || result == -EINVAL))
            {
                log = withLog(arena, attr, LOG_LEVEL_VERBOSE);
                result = syscalls.bpf(ProgramLoad.COMMAND, attr.address(), BpfAttr.SIZE_BYTES);
                if (result >= 0)
                {
                    // Refused quietly, accepted with a log: not expected, but the program is loaded and usable.
                    return new BpfProgram(syscalls, (int)result, name, code.slotCount(), text(log));
                }
                if (result == -ENOSPC)
                {
                    throw new BpfVerifierException(description, ENOSPC,
                        text(log) + "\n(the log did not fit in " + LOG_BUFFER_BYTES + " bytes)");
                }
            }
            if (result == -EACCES || result == -EINVAL)
            {
                throw new BpfVerifierException(description, (int)-result, text(log));
            }
            Syscalls.check("bpf(BPF_PROG_LOAD)", result, description);
            return new BpfProgram(syscalls, (int)result, name, code.slotCount(), text(log));
        }
    }

    private static MemorySegment loadAttr(
        final Arena arena, final int type, final int expectedAttachType, final String name, final BpfBytecode code)
    {
        final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
        attr.set(ValueLayout.JAVA_INT, ProgramLoad.PROG_TYPE, type);
        attr.set(ValueLayout.JAVA_INT, ProgramLoad.INSN_CNT, code.slotCount());
        attr.set(ValueLayout.JAVA_LONG, ProgramLoad.INSNS, code.copyTo(arena).address());
        attr.set(ValueLayout.JAVA_LONG, ProgramLoad.LICENSE, arena.allocateFrom(LICENSE).address());
        attr.set(ValueLayout.JAVA_INT, ProgramLoad.EXPECTED_ATTACH_TYPE, expectedAttachType);
        BpfObjectName.write(attr, ProgramLoad.PROG_NAME, name);
        return attr;
    }

    private static MemorySegment withLog(final Arena arena, final MemorySegment attr, final int logLevel)
    {
        final MemorySegment log = arena.allocate(LOG_BUFFER_BYTES);
        attr.set(ValueLayout.JAVA_INT, ProgramLoad.LOG_LEVEL, logLevel);
        attr.set(ValueLayout.JAVA_INT, ProgramLoad.LOG_SIZE, LOG_BUFFER_BYTES);
        attr.set(ValueLayout.JAVA_LONG, ProgramLoad.LOG_BUF, log.address());
        return log;
    }

    private static String text(final MemorySegment log)
    {
        return log.equals(MemorySegment.NULL) ? "" : log.getString(0, StandardCharsets.UTF_8);
    }

    /**
     * Runs the program once on {@code data} in the kernel ({@code BPF_PROG_TEST_RUN}), with no device: the
     * context's ingress device and queue are 0. Helpers run for real (map lookups see the maps' contents).
     *
     * @param data a frame of at least 14 bytes (the kernel refuses shorter input for XDP).
     * @return the program's return value (an XDP action).
     */
    public int testRun(final byte[] data)
    {
        return testRunWithOutput(data).action();
    }

    /**
     * As {@link #testRun}, and the frame as the program left it.
     *
     * @return the program's return value and the frame's bytes afterwards.
     */
    public synchronized TestRunResult testRunWithOutput(final byte[] data)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
            // Room for a program that grows the frame at its head or tail (XDP's headroom and tailroom).
            final MemorySegment out = arena.allocate(data.length + 4096, 8);
            attr.set(ValueLayout.JAVA_INT, TestRun.PROG_FD, fd());
            attr.set(ValueLayout.JAVA_INT, TestRun.DATA_SIZE_IN, data.length);
            attr.set(ValueLayout.JAVA_LONG, TestRun.DATA_IN, arena.allocateFrom(ValueLayout.JAVA_BYTE, data).address());
            attr.set(ValueLayout.JAVA_INT, TestRun.DATA_SIZE_OUT, (int)out.byteSize());
            attr.set(ValueLayout.JAVA_LONG, TestRun.DATA_OUT, out.address());
            attr.set(ValueLayout.JAVA_INT, TestRun.REPEAT, 1);
            Syscalls.check("bpf(BPF_PROG_TEST_RUN)",
                syscalls.bpf(TestRun.COMMAND, attr.address(), BpfAttr.SIZE_BYTES),
                "program " + name + " on " + data.length + " bytes");
            final int length = attr.get(ValueLayout.JAVA_INT, TestRun.DATA_SIZE_OUT);
            return new TestRunResult(attr.get(ValueLayout.JAVA_INT, TestRun.RETVAL),
                out.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
        }
    }

    /**
     * What {@link #testRunWithOutput} gives back.
     *
     * @param action the program's return value.
     * @param frame  the frame afterwards.
     */
    public record TestRunResult(int action, byte[] frame)
    {
    }

    /**
     * @return the kernel's id of the program, as {@code ip link} and {@code bpftool} show it.
     */
    public synchronized int id()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment info = arena.allocate(ProgramInfo.SIZE_BYTES, 8);
            final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
            attr.set(ValueLayout.JAVA_INT, ObjectInfo.BPF_FD, fd());
            attr.set(ValueLayout.JAVA_INT, ObjectInfo.INFO_LEN, ProgramInfo.SIZE_BYTES);
            attr.set(ValueLayout.JAVA_LONG, ObjectInfo.INFO, info.address());
            Syscalls.check("bpf(BPF_OBJ_GET_INFO_BY_FD)",
                syscalls.bpf(ObjectInfo.COMMAND, attr.address(), BpfAttr.SIZE_BYTES), "program " + name);
            return info.get(ValueLayout.JAVA_INT, ProgramInfo.ID);
        }
    }

    public synchronized int fd()
    {
        if (fd < 0)
        {
            throw new IllegalStateException("program " + name + " is closed");
        }
        return fd;
    }

    public String name()
    {
        return name;
    }

    public int slotCount()
    {
        return slotCount;
    }

    /**
     * @return the verifier's log of the load, empty unless it was loaded with a log level.
     */
    public String verifierLog()
    {
        return verifierLog;
    }

    /** Closes this process's fd; an attached link keeps the program running until the link closes. */
    @Override
    public synchronized void close()
    {
        if (fd >= 0)
        {
            syscalls.close(fd);
            fd = -1;
        }
    }
}
