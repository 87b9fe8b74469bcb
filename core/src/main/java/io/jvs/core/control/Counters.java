package io.jvs.core.control;

/**
 * The statistics of a service or real server as IPVS reports them ({@code struct ip_vs_stats64}): totals since the
 * last {@code -Z} and the rate estimator's current rates. Every value is an unsigned 64-bit number held in a long.
 *
 * @param conns    connections scheduled.
 * @param inPackets  packets from clients.
 * @param outPackets packets to clients.
 * @param inBytes  bytes from clients.
 * @param outBytes bytes to clients.
 * @param cps      connections per second.
 * @param inPps    packets per second from clients.
 * @param outPps   packets per second to clients.
 * @param inBps    bytes per second from clients.
 * @param outBps   bytes per second to clients.
 */
public record Counters(
    long conns,
    long inPackets,
    long outPackets,
    long inBytes,
    long outBytes,
    long cps,
    long inPps,
    long outPps,
    long inBps,
    long outBps)
{
    /** All zero, as after {@code ipvsadm -Z} or for a new service. */
    public static final Counters ZERO = new Counters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
