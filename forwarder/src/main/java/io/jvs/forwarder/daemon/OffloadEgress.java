package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.XdpFlowTable;
import io.jvs.nativebindings.netlink.NetdevNetlink;

import java.util.List;

/**
 * Which of the daemon's ports take the frames the XDP program redirects to them, kept in the flow table's
 * {@link XdpFlowTable#EGRESS} as the kernel says (NETDEV_XDP_ACT_NDO_XMIT, {@link NetdevNetlink}), checked at start
 * and every {@link #CHECK_PERIOD_NS} from the conductor: a port whose device stops taking them (a veth whose peer
 * stopped running NAPI) leaves the map, and its flows' frames go through the workers until it takes them again; its
 * device made again under its name is followed to its new index. Workers offer new connections only while every
 * port takes them ({@link #allTake}, a volatile read).
 */
final class OffloadEgress implements AutoCloseable
{
    static final long CHECK_PERIOD_NS = 1_000_000_000L;

    private final Syscalls syscalls;
    private final XdpFlowTable table;
    private final NetdevNetlink netdev;
    private final List<String> devices;
    /** Per port, the index it is in the map under, or 0 while it is not. */
    private final int[] mapped;
    private final boolean[] reported;
    private volatile boolean allTake;
    private long lastCheckNs = Long.MIN_VALUE;

    OffloadEgress(final Syscalls syscalls, final XdpFlowTable table, final List<String> devices)
    {
        this.syscalls = syscalls;
        this.table = table;
        this.netdev = NetdevNetlink.open(syscalls);
        this.devices = List.copyOf(devices);
        this.mapped = new int[devices.size()];
        this.reported = new boolean[devices.size()];
    }

    /** @return whether every port takes redirected frames now (any thread). */
    boolean allTake()
    {
        return allTake;
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
        boolean all = true;
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
                DaemonLog.warning("offload: " + device + " (port " + port + "): " + why +
                    "; its connections' frames go through the workers");
            }
            else if (why == null && reported[port])
            {
                DaemonLog.info("offload: " + device + " (port " + port + ") takes redirected frames again");
            }
            reported[port] = why != null;
            all &= why == null;
        }
        allTake = all;
    }

    @Override
    public void close()
    {
        netdev.close();
    }
}
