package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpFlowTable;
import io.jvs.nativebindings.netlink.NetdevNetlink;

import java.util.List;

/**
 * Which of the daemon's ports take the frames the XDP program redirects to them, kept in the flow table's
 * {@link XdpFlowTable#EGRESS} as the kernel says (NETDEV_XDP_ACT_NDO_XMIT, {@link NetdevNetlink}), checked at start,
 * every {@link #CHECK_PERIOD_NS} from the conductor, and at once when the kernel refuses redirected frames
 * ({@link #checkNow}): a port whose device stops taking them (a veth whose peer stopped running NAPI) leaves the
 * map, and its flows' frames go through the workers until it takes them again; its
 * device made again under its name is followed to its new index. Workers offer new connections while any port takes
 * them ({@link #anyTakes}, a volatile read): a NAT connection's direction whose port takes none goes through the
 * workers (the program finds no egress), the other in XDP.
 */
final class OffloadEgress implements AutoCloseable
{
    static final long CHECK_PERIOD_NS = 1_000_000_000L;

    private final Syscalls syscalls;
    private XdpFlowTable table;
    private final NetdevNetlink netdev;
    /** Whether what keeps a port out is a warning ({@code offload on}) or said in passing ({@code auto}). */
    private final boolean warn;
    private final List<String> devices;
    /** Per port, the index it is in the map under, or 0 while it is not. */
    private final int[] mapped;
    private final boolean[] reported;
    private volatile boolean anyTakes;
    private long lastCheckNs = Long.MIN_VALUE;

    /**
     * @throws NativeCallException when the kernel has no netdev family to ask.
     */
    OffloadEgress(final Syscalls syscalls, final List<String> devices, final boolean warn)
    {
        this.syscalls = syscalls;
        this.warn = warn;
        this.netdev = NetdevNetlink.open(syscalls);
        this.devices = List.copyOf(devices);
        this.mapped = new int[devices.size()];
        this.reported = new boolean[devices.size()];
    }

    /** The table whose DEVMAP it keeps (before the first {@link #check}). */
    void table(final XdpFlowTable table)
    {
        this.table = table;
    }

    /** @return whether any port takes redirected frames now (any thread). */
    boolean anyTakes()
    {
        return anyTakes;
    }

    /**
     * Asks the kernel about each port's device now, whenever it last asked: the kernel has just refused or failed to
     * send a redirected frame (XdpKernelDrops), so a port may have stopped taking them since the last check.
     */
    void checkNow(final long nowNs)
    {
        lastCheckNs = Long.MIN_VALUE;
        check(nowNs);
    }

    /**
     * Asks the kernel about each port's device, at most every {@link #CHECK_PERIOD_NS} (the conductor's thread, or
     * the starting one before it runs), and brings the map in step.
     */
    void check(final long nowNs)
    {
        if (lastCheckNs != Long.MIN_VALUE && nowNs - lastCheckNs < CHECK_PERIOD_NS)
        {
            return;
        }
        lastCheckNs = nowNs;
        boolean any = false;
        for (int port = 0; port < devices.size(); port++)
        {
            final String device = devices.get(port);
            final int index = syscalls.ifNameToIndex(device);
            String why = null;
            if (index <= 0)
            {
                why = "there is no such device now";
            }
            else
            {
                try
                {
                    if ((netdev.xdpFeatures(index) & NetdevNetlink.XDP_ACT_NDO_XMIT) == 0)
                    {
                        why = "its driver takes no redirected frames now (a veth: its peer runs no NAPI; " +
                            "GRO or an XDP program on the peer gives it one)";
                    }
                }
                catch (final NativeCallException ex)
                {
                    why = "the kernel did not say whether it takes redirected frames: " + ex.getMessage();
                }
            }
            final int now = why == null ? index : 0;
            if (now != mapped[port])
            {
                if (now == 0)
                {
                    table.noEgress(port);
                }
                else
                {
                    table.egress(port, index);
                }
                mapped[port] = now;
            }
            if (why != null && !reported[port])
            {
                final String message = "offload: " + device + " (port " + port + "): " + why +
                    "; the frames leaving by it go through the workers";
                if (warn)
                {
                    DaemonLog.warning(message);
                }
                else
                {
                    DaemonLog.info(message);
                }
            }
            else if (why == null && reported[port])
            {
                DaemonLog.info("offload: " + device + " (port " + port + ") takes redirected frames again");
            }
            reported[port] = why != null;
            any |= why == null;
        }
        anyTakes = any;
    }

    @Override
    public void close()
    {
        netdev.close();
    }
}
