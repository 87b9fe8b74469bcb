package io.jvs.nativebindings.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;

import static io.jvs.nativebindings.bpf.BpfAttr.LinkCreate;
import static io.jvs.nativebindings.bpf.BpfAttr.ProgramQuery;

/**
 * A SCHED_CLS program attached to a device's tcx ingress or egress hook through a BPF link
 * ({@code BPF_LINK_CREATE}, attach type {@code BPF_TCX_*}, Linux 6.6 and later). Like {@link XdpLink} the link
 * is an unpinned fd: the program is detached when it is closed, and by the kernel when the process exits or
 * is killed. tcx needs no clsact qdisc and no tc classifier modules. A hook holds several programs; this one
 * is appended after those already there (no relative program, no expected revision).
 */
public final class TcxLink extends BpfLink
{
    private static final int ENOENT = 2;
    private static final int ENODEV = 19;
    /** More programs than jvs ever expects on one hook; the kernel says ENOSPC beyond it. */
    private static final int QUERY_CAPACITY = 64;
    private static final int EINVAL = 22;

    private final TcxDirection direction;

    private TcxLink(
        final Syscalls syscalls, final int fd, final String device, final int ifindex, final TcxDirection direction)
    {
        super(syscalls, fd, device, ifindex);
        this.direction = direction;
    }

    /**
     * Attaches {@code program} to the device named {@code device} in the calling thread's network namespace.
     * The program's fd may be closed afterwards: the link holds it.
     *
     * The capabilities (CAP_BPF and CAP_NET_ADMIN) are checked when the program is loaded, not here.
     *
     * @throws NativeCallException naming the device: ENODEV (no such device), EINVAL (not a SCHED_CLS program,
     *                             or a kernel without tcx).
     */
    public static TcxLink attach(
        final Syscalls syscalls, final BpfProgram program, final String device, final TcxDirection direction)
    {
        final int ifindex = syscalls.ifNameToIndex(device);
        if (ifindex < 0)
        {
            throw new NativeCallException("if_nametoindex", -ifindex, "attaching tc program " + program.name() +
                " to " + device + ": there is no such device in this network namespace");
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
            attr.set(ValueLayout.JAVA_INT, LinkCreate.PROG_FD, program.fd());
            attr.set(ValueLayout.JAVA_INT, LinkCreate.TARGET_IFINDEX, ifindex);
            attr.set(ValueLayout.JAVA_INT, LinkCreate.ATTACH_TYPE, direction.attachType());
            final long result = syscalls.bpf(LinkCreate.COMMAND, attr.address(), BpfAttr.SIZE_BYTES);
            if (result < 0)
            {
                final int errno = (int)-result;
                throw new NativeCallException("bpf(BPF_LINK_CREATE)", errno, "attaching tc program " +
                    program.name() + " to " + device + " (ifindex " + ifindex + ") at tcx " +
                    direction.hookName() + reason(errno));
            }
            return new TcxLink(syscalls, (int)result, device, ifindex, direction);
        }
    }

    private static String reason(final int errno)
    {
        return switch (errno)
        {
            case ENODEV -> ": the device is gone";
            case EINVAL -> ": the program is not a SCHED_CLS program, or the kernel has no tcx (Linux 6.6 and later)";
            default -> "";
        };
    }

    /**
     * The programs on a device's tcx hook, in the order they run ({@code BPF_PROG_QUERY}): to see what is attached,
     * by this process or any other.
     *
     * @return their ids; empty when there are none (the kernel's ENOENT: the hook was never used or was freed).
     */
    public static int[] attachedProgramIds(final Syscalls syscalls, final String device, final TcxDirection direction)
    {
        final int ifindex = syscalls.ifNameToIndex(device);
        Syscalls.check("if_nametoindex", ifindex, "querying tcx " + direction.hookName() + " of " + device);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment ids = arena.allocate(ValueLayout.JAVA_INT, QUERY_CAPACITY);
            final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
            attr.set(ValueLayout.JAVA_INT, ProgramQuery.TARGET_IFINDEX, ifindex);
            attr.set(ValueLayout.JAVA_INT, ProgramQuery.ATTACH_TYPE, direction.attachType());
            attr.set(ValueLayout.JAVA_LONG, ProgramQuery.PROG_IDS, ids.address());
            attr.set(ValueLayout.JAVA_INT, ProgramQuery.PROG_COUNT, QUERY_CAPACITY);
            final long result = syscalls.bpf(ProgramQuery.COMMAND, attr.address(), BpfAttr.SIZE_BYTES);
            if (result == -ENOENT)
            {
                return new int[0];
            }
            Syscalls.check("bpf(BPF_PROG_QUERY)", result, "tcx " + direction.hookName() + " of " + device);
            final int count = attr.get(ValueLayout.JAVA_INT, ProgramQuery.PROG_COUNT);
            return ids.asSlice(0, (long)count * Integer.BYTES).toArray(ValueLayout.JAVA_INT);
        }
    }

    public TcxDirection direction()
    {
        return direction;
    }

    @Override
    public String toString()
    {
        return "tcx " + direction.hookName() + " link on " + device() + " (ifindex " + ifindex() + ")";
    }
}
