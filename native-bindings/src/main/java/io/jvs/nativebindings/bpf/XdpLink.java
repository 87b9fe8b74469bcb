package io.jvs.nativebindings.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;

import static io.jvs.nativebindings.bpf.BpfAttr.LinkCreate;

/**
 * An XDP program attached to a device through a BPF link ({@code BPF_LINK_CREATE}, attach type BPF_XDP).
 * The link is an fd, not pinned anywhere: the program is detached when it is closed, and by the kernel
 * when the process exits or is killed, so a crashed jvs never leaves a device steering packets to nobody.
 * A device holds one XDP link at a time.
 */
public final class XdpLink extends BpfLink
{
    private static final int ENODEV = 19;
    private static final int EBUSY = 16;
    private static final int EEXIST = 17;
    private static final int EINVAL = 22;
    private static final int ERANGE = 34;
    private static final int EOPNOTSUPP = 95;

    private final XdpMode mode;

    private XdpLink(final Syscalls syscalls, final int fd, final String device, final int ifindex, final XdpMode mode)
    {
        super(syscalls, fd, device, ifindex);
        this.mode = mode;
    }

    /**
     * Attaches {@code program} to the device named {@code device} in the calling thread's network namespace.
     * The program's fd may be closed afterwards: the link holds it.
     *
     * @throws NativeCallException naming the device and, for the usual refusals, the reason: ENODEV (no such
     *                             device), EBUSY (another XDP program is attached), EEXIST (one is attached
     *                             in the other mode), ERANGE (MTU too large for native XDP), EOPNOTSUPP
     *                             (the driver has no native XDP).
     */
    public static XdpLink attach(final Syscalls syscalls, final BpfProgram program, final String device,
        final XdpMode mode)
    {
        final int ifindex = syscalls.ifNameToIndex(device);
        if (ifindex < 0)
        {
            throw new NativeCallException("if_nametoindex", -ifindex, "attaching XDP program " + program.name() +
                " to " + device + ": there is no such device in this network namespace");
        }
        return attach(syscalls, program, device, ifindex, mode);
    }

    private static XdpLink attach(
        final Syscalls syscalls, final BpfProgram program, final String device, final int ifindex, final XdpMode mode)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
            attr.set(ValueLayout.JAVA_INT, LinkCreate.PROG_FD, program.fd());
            attr.set(ValueLayout.JAVA_INT, LinkCreate.TARGET_IFINDEX, ifindex);
            attr.set(ValueLayout.JAVA_INT, LinkCreate.ATTACH_TYPE, BpfProgram.ATTACH_TYPE_XDP);
            // Only a mode flag: XDP_FLAGS_UPDATE_IF_NOEXIST is EINVAL for links, which refuse a busy device anyway.
            attr.set(ValueLayout.JAVA_INT, LinkCreate.FLAGS, mode.flag());
            final long result = syscalls.bpf(LinkCreate.COMMAND, attr.address(), BpfAttr.SIZE_BYTES);
            if (result < 0)
            {
                final int errno = (int)-result;
                throw new NativeCallException("bpf(BPF_LINK_CREATE)", errno, "attaching XDP program " +
                    program.name() + " to " + device + " (ifindex " + ifindex + ") in " + mode + " mode" +
                    reason(errno, device));
            }
            return new XdpLink(syscalls, (int)result, device, ifindex, mode);
        }
    }

    private static String reason(final int errno, final String device)
    {
        return switch (errno)
        {
            case EBUSY -> ": another XDP program is already attached to " + device + " (by another link, possibly " +
                "another process, or by 'ip link set dev " + device + " xdp ...'); close that link or detach it " +
                "first, a device takes one";
            case EEXIST -> ": a program is attached to " + device + " in the other mode, and native and generic " +
                "XDP cannot run on one device together; detach it first";
            case ENODEV -> ": the device is gone";
            case ERANGE -> ": the MTU is too large for native XDP (on veth the peer's MTU must be at most 3506)";
            case EOPNOTSUPP -> ": the driver has no native XDP; use SKB mode";
            case EINVAL -> ": the program is not an XDP program, or the mode flag is not accepted";
            default -> "";
        };
    }

    public XdpMode mode()
    {
        return mode;
    }

    @Override
    public String toString()
    {
        return "XDP link on " + device() + " (ifindex " + ifindex() + ", " + mode + " mode)";
    }
}
