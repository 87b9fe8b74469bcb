package io.jvs.nativebindings.netlink;

import java.net.InetAddress;
import java.util.List;

/**
 * A route of the kernel's routing tables (RTM_NEWROUTE): from a dump, a notification, or the answer to a
 * lookup of one destination ({@link RouteNetlink#routeTo}), where the kernel has already picked one path.
 *
 * @param family          AF_INET or AF_INET6.
 * @param table           the routing table's id (RTA_TABLE): {@link Rtnetlink#RT_TABLE_MAIN} (254),
 *                        {@link Rtnetlink#RT_TABLE_LOCAL} (255) or one of policy routing's.
 * @param type            RTN_UNICAST, RTN_LOCAL, RTN_BROADCAST, RTN_BLACKHOLE, RTN_UNREACHABLE...
 * @param protocol        who installed it: RTPROT_KERNEL, RTPROT_BOOT (iproute2's default), RTPROT_STATIC...
 * @param scope           RT_SCOPE_UNIVERSE for routes via gateways, RT_SCOPE_LINK for on-link ones.
 * @param flags           the RTM_F_* and RTNH_F_* flags of the route.
 * @param destination     the prefix's address, the family's any-address for a default route.
 * @param prefixLength    the prefix's length, 0 for a default route.
 * @param gateway         the next hop of a single-path route, or null when the destination is on-link (and for
 *                        multipath routes, whose paths are in {@code nextHops}).
 * @param outputIndex     the output interface of a single-path route, 0 for multipath or none.
 * @param priority        the metric (RTA_PRIORITY), 0 when not given: among routes of one prefix the lowest wins.
 * @param preferredSource the source address the kernel gives locally sent packets (RTA_PREFSRC), or null.
 * @param mtu             the route's MTU metric (RTAX_MTU), 0 when not set.
 * @param nextHops        the paths of a multipath route (RTA_MULTIPATH); empty for a single-path route.
 */
public record Route(
    int family,
    int table,
    int type,
    int protocol,
    int scope,
    int flags,
    InetAddress destination,
    int prefixLength,
    InetAddress gateway,
    int outputIndex,
    int priority,
    InetAddress preferredSource,
    int mtu,
    List<NextHop> nextHops)
{
    public Route
    {
        nextHops = List.copyOf(nextHops);
    }

    /**
     * @return true when it spreads traffic over several paths (RTA_MULTIPATH).
     */
    public boolean multipath()
    {
        return !nextHops.isEmpty();
    }

    /**
     * @return the paths: those of a multipath route, or the single one of the others, so a caller can treat
     * both alike.
     */
    public List<NextHop> paths()
    {
        return multipath() ? nextHops : List.of(new NextHop(gateway, outputIndex, 1,
            flags & (Rtnetlink.RTNH_F_DEAD | Rtnetlink.RTNH_F_ONLINK | Rtnetlink.RTNH_F_LINKDOWN)));
    }

    /**
     * @return true for a default route (prefix length 0).
     */
    public boolean isDefault()
    {
        return prefixLength == 0;
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("Route[");
        if (type != Rtnetlink.RTN_UNICAST)
        {
            text.append("type ").append(type).append(' ');
        }
        text.append(destination.getHostAddress()).append('/').append(prefixLength);
        if (multipath())
        {
            text.append(" nexthops ").append(nextHops);
        }
        else
        {
            if (gateway != null)
            {
                text.append(" via ").append(gateway.getHostAddress());
            }
            text.append(" dev ").append(outputIndex);
        }
        text.append(" table ").append(table).append(" proto ").append(protocol).append(" scope ").append(scope);
        if (priority != 0)
        {
            text.append(" metric ").append(priority);
        }
        if (preferredSource != null)
        {
            text.append(" src ").append(preferredSource.getHostAddress());
        }
        if (mtu != 0)
        {
            text.append(" mtu ").append(mtu);
        }
        if (flags != 0)
        {
            text.append(" flags 0x").append(Integer.toHexString(flags));
        }
        return text.append(']').toString();
    }
}
