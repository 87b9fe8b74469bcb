package io.jvs.forwarder.control.netlink;

import java.util.Objects;

/**
 * A real server as {@code ip_vs_genl_fill_dest} reports it: its settings, its connection counts and counters.
 *
 * @param destination       address, port, forwarding method, weight, thresholds, tunnel settings.
 * @param activeConns       established connections.
 * @param inactiveConns     other connections.
 * @param persistentConns   persistence templates.
 * @param stats             its counters.
 */
public record IpvsDestEntry(IpvsDestination destination, int activeConns, int inactiveConns, int persistentConns,
    IpvsStats stats)
{
    public IpvsDestEntry
    {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(stats, "stats");
    }
}
