package io.jvs.core.pipeline;

/**
 * The pipeline's policy switches (the kernel's sysctls and jvs's own), fixed for one snapshot.
 *
 * @param passUnmatched           a packet for no service and no connection goes to the host (else dropped).
 * @param allowIpOptions          forward IPv4 packets with options (else dropped as ip-options).
 * @param allowFragments          handle fragments (else dropped as fragment).
 * @param expireNodestConn        expire_nodest_conn: a packet of a connection whose server was removed
 *                                expires it and is scheduled again (else dropped).
 * @param expireQuiescentTemplate expire_quiescent_template: a persistence template whose server has weight 0
 *                                is not followed (else it keeps sending its network there).
 * @param sloppyTcp               sloppy_tcp: any TCP packet but RST may create a connection (else only SYN).
 * @param connReuse               conn_reuse_mode 1: a SYN on a TIME_WAIT or CLOSE entry starts afresh.
 * @param activeEstablishedOnly   older kernels' rule: only ESTABLISHED counts as active (current kernels'
 *                                {@code tcp_state_active_table} also counts the handshake states).
 * @param icmpRepliesPerSecond    the rate at which each worker answers with ICMP errors (port-unreachable for
 *                                a connection no server can take, as the kernel's {@code ip_vs_leave}), 0 for
 *                                none.
 * @param clampMss                on tunnelled SYNs, lower the TCP MSS option to fit the tunnel's MTU.
 * @param sweepSlotsPerBurst      the fewest connection-table slots worth a sweep: smaller amounts of due
 *                                sweeping are saved up (each table is swept end to end once a second).
 * @param answerVipEcho           answer ICMP and ICMPv6 echo requests to the virtual addresses (the daemon's
 *                                {@code vip-arp on}, where the box does not hold them and its kernel cannot).
 * @param pmtuDisc                pmtu_disc: a tunnelled IPv4 packet keeps its DF in the outer header and is
 *                                answered with frag-needed when it does not fit the tunnel; off, the outer DF is
 *                                clear and such a packet leaves in fragments whatever its own DF
 *                                (ensure_mtu_is_adequate, ip_vs_tunnel_xmit).
 * @param scheduleIcmp            schedule_icmp: an ICMP error from the client's side quoting a reply of no known
 *                                connection is scheduled as that connection's first packet would be and sent to the
 *                                server chosen (else it is the host's), for directors behind ECMP that never saw the
 *                                connection (ip_vs_in_icmp and ip_vs_try_to_schedule).
 */
public record DataPlaneSettings(
    boolean passUnmatched,
    boolean allowIpOptions,
    boolean allowFragments,
    boolean expireNodestConn,
    boolean expireQuiescentTemplate,
    boolean sloppyTcp,
    boolean connReuse,
    boolean activeEstablishedOnly,
    int icmpRepliesPerSecond,
    boolean clampMss,
    int sweepSlotsPerBurst,
    boolean answerVipEcho,
    boolean pmtuDisc,
    boolean scheduleIcmp)
{
    /**
     * Settings with pmtu_disc on and schedule_icmp off, the kernel's defaults.
     */
    public DataPlaneSettings(final boolean passUnmatched, final boolean allowIpOptions, final boolean allowFragments,
        final boolean expireNodestConn, final boolean expireQuiescentTemplate, final boolean sloppyTcp,
        final boolean connReuse, final boolean activeEstablishedOnly, final int icmpRepliesPerSecond,
        final boolean clampMss, final int sweepSlotsPerBurst, final boolean answerVipEcho)
    {
        this(passUnmatched, allowIpOptions, allowFragments, expireNodestConn, expireQuiescentTemplate, sloppyTcp,
            connReuse, activeEstablishedOnly, icmpRepliesPerSecond, clampMss, sweepSlotsPerBurst, answerVipEcho,
            true, false);
    }

    /**
     * Settings with schedule_icmp off, the kernel's default.
     */
    public DataPlaneSettings(final boolean passUnmatched, final boolean allowIpOptions, final boolean allowFragments,
        final boolean expireNodestConn, final boolean expireQuiescentTemplate, final boolean sloppyTcp,
        final boolean connReuse, final boolean activeEstablishedOnly, final int icmpRepliesPerSecond,
        final boolean clampMss, final int sweepSlotsPerBurst, final boolean answerVipEcho, final boolean pmtuDisc)
    {
        this(passUnmatched, allowIpOptions, allowFragments, expireNodestConn, expireQuiescentTemplate, sloppyTcp,
            connReuse, activeEstablishedOnly, icmpRepliesPerSecond, clampMss, sweepSlotsPerBurst, answerVipEcho,
            pmtuDisc, false);
    }

    /**
     * @return the kernel's defaults: pass unmatched, options and fragments allowed, drop on a removed
     *         server, follow templates of quiesced servers, SYN-only connections, conn_reuse_mode 1, the
     *         current active states, 1000 ICMP answers a second per worker, no MSS clamp, sweeps of at
     *         least 64 slots, echo requests to the virtual addresses left to the host, pmtu_disc on,
     *         schedule_icmp off.
     */
    public static DataPlaneSettings defaults()
    {
        return new DataPlaneSettings(true, true, true, false, false, false, true, false, 1000, false, 64, false, true,
            false);
    }
}
