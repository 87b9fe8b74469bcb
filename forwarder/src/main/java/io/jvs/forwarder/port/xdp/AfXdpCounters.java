package io.jvs.forwarder.port.xdp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import io.jvs.forwarder.port.PortCounters;
import io.jvs.forwarder.port.PortCountersDescriptor;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.xdp.AfXdp;
import io.jvs.nativebindings.xdp.XdpStatistics;

/**
 * An AF_XDP port's counters; {@link #refresh()} reads the socket's XDP_STATISTICS with a Syscalls instance
 * of its own, so the control plane may call it while the worker polls.
 */
final class AfXdpCounters extends PortCounters
{
    private static final int[] SHOWN_HERE = shownWith(PortCountersDescriptor.KERNEL_RX_RING_FULL);

    private final Syscalls syscalls;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment statistics = arena.allocate(XdpStatistics.SIZE, 8);
    private final MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
    private int fd = -1;

    AfXdpCounters(final String bindingName)
    {
        this.syscalls = Syscalls.create(bindingName);
    }

    synchronized void attach(final int socketFd)
    {
        fd = socketFd;
    }

    /** Stops reading statistics: the socket is about to close. */
    synchronized void detach()
    {
        if (fd >= 0)
        {
            fd = -1;
            arena.close();
        }
    }

    @Override
    public synchronized void refresh()
    {
        if (fd < 0)
        {
            return;
        }
        length.set(ValueLayout.JAVA_INT, 0, XdpStatistics.SIZE);
        if (syscalls.getsockopt(fd, AfXdp.SOL_XDP, AfXdp.XDP_STATISTICS, statistics.address(), length.address()) < 0)
        {
            return;
        }
        setKernel(PortCountersDescriptor.KERNEL_RX_DROPPED,
            read(XdpStatistics.RX_DROPPED_OFFSET) + read(XdpStatistics.RX_RING_FULL_OFFSET));
        setKernel(PortCountersDescriptor.KERNEL_RX_RING_FULL, read(XdpStatistics.RX_RING_FULL_OFFSET));
        setKernel(PortCountersDescriptor.KERNEL_FILL_EMPTY, read(XdpStatistics.RX_FILL_RING_EMPTY_DESCS_OFFSET));
        setKernel(PortCountersDescriptor.KERNEL_INVALID,
            read(XdpStatistics.RX_INVALID_DESCS_OFFSET) + read(XdpStatistics.TX_INVALID_DESCS_OFFSET));
    }

    @Override
    protected int[] shownIds()
    {
        return SHOWN_HERE;
    }

    private long read(final int offset)
    {
        return statistics.get(ValueLayout.JAVA_LONG, offset);
    }
}
