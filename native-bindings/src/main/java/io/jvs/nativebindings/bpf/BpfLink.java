package io.jvs.nativebindings.bpf;

import io.jvs.nativebindings.Syscalls;

/**
 * A program attached to a device through a BPF link fd, not pinned anywhere: closing the fd detaches the
 * program, and the kernel closes it when the process exits or is killed, so a crashed jvs leaves nothing
 * attached.
 */
public abstract class BpfLink implements AutoCloseable
{
    private final Syscalls syscalls;
    private final String device;
    private final int ifindex;
    private int fd;

    BpfLink(final Syscalls syscalls, final int fd, final String device, final int ifindex)
    {
        this.syscalls = syscalls;
        this.fd = fd;
        this.device = device;
        this.ifindex = ifindex;
    }

    public final String device()
    {
        return device;
    }

    public final int ifindex()
    {
        return ifindex;
    }

    public final synchronized boolean isOpen()
    {
        return fd >= 0;
    }

    /** Detaches the program. Safe to call twice. */
    @Override
    public final synchronized void close()
    {
        if (fd >= 0)
        {
            syscalls.close(fd);
            fd = -1;
        }
    }
}
