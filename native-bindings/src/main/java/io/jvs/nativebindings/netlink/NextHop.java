package io.jvs.nativebindings.netlink;

import java.net.InetAddress;

/**
 * One path of a route: where to send and through which interface.
 *
 * @param gateway     the next hop's address (RTA_GATEWAY, or RTA_VIA, which may be of the other family), or null
 *                    when the destination is on-link.
 * @param outputIndex the interface's index, 0 if none (a blackhole route).
 * @param weight      the path's share in a multipath route (rtnh_hops + 1); 1 for a single path.
 * @param flags       the RTNH_F_* flags: {@link Rtnetlink#RTNH_F_DEAD}, {@link Rtnetlink#RTNH_F_LINKDOWN} (the
 *                    interface has no carrier; the kernel skips such paths unless told otherwise),
 *                    {@link Rtnetlink#RTNH_F_ONLINK}.
 */
public record NextHop(InetAddress gateway, int outputIndex, int weight, int flags)
{
    /**
     * @return true when the kernel would not use this path now (RTNH_F_DEAD or RTNH_F_LINKDOWN).
     */
    public boolean down()
    {
        return (flags & (Rtnetlink.RTNH_F_DEAD | Rtnetlink.RTNH_F_LINKDOWN)) != 0;
    }

    @Override
    public String toString()
    {
        return (gateway == null ? "on-link" : "via " + gateway.getHostAddress()) + " dev " + outputIndex +
            " weight " + weight + (flags == 0 ? "" : " flags 0x" + Integer.toHexString(flags));
    }
}
