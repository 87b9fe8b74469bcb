package io.jvs.forwarder.control.netlink;

/**
 * A service's or real server's counters and rates, as {@code struct ip_vs_kstats}: sent both as
 * {@code IPVS_*_ATTR_STATS} (counts truncated to 32 bits, bytes 64) and {@code IPVS_*_ATTR_STATS64} (all 64).
 */
public record IpvsStats(long conns, long inPackets, long outPackets, long inBytes, long outBytes, long cps,
    long inPps, long outPps, long inBps, long outBps)
{
    public static final IpvsStats ZERO = new IpvsStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
