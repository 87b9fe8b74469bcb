package io.jvs.core.service;

import io.jvs.core.sched.SchedulerFlags;

/**
 * The editable part of a virtual service (what ipvsadm -A and -E set).
 *
 * @param scheduler          the scheduler name, e.g. "wlc".
 * @param flags              the {@code -b} flags.
 * @param persistent         whether connections from one client (network) stick to one server.
 * @param persistenceSeconds the persistence timeout in seconds (ipvsadm -p; 360 when given no value).
 * @param netmaskPrefix      the persistence granularity as a prefix length (ipvsadm -M): 0..32 or 0..128.
 * @param onePacket          schedule every datagram on its own (ipvsadm -o, UDP only).
 */
public record ServiceSettings(
    String scheduler,
    SchedulerFlags flags,
    boolean persistent,
    int persistenceSeconds,
    int netmaskPrefix,
    boolean onePacket)
{
    /** ipvsadm's persistence timeout when -p is given no value (IPVS_SVC_PERSISTENT_TIMEOUT). */
    public static final int DEFAULT_PERSISTENCE_SECONDS = 360;
    /** The largest timeout ipvsadm accepts: 31 days. */
    public static final int MAX_PERSISTENCE_SECONDS = 86400 * 31;

    /**
     * @param scheduler the scheduler name.
     * @param v6        the service's address family, for the default netmask.
     * @return a non-persistent service with no flags.
     */
    public static ServiceSettings of(final String scheduler, final boolean v6)
    {
        return new ServiceSettings(scheduler, SchedulerFlags.NONE, false, 0, v6 ? 128 : 32, false);
    }
}
