package io.jvs.forwarder.control.netlink;

import java.util.Objects;

/**
 * A virtual service as {@code ip_vs_genl_fill_service} reports it.
 *
 * @param key         what names it.
 * @param scheduler   the scheduler's name.
 * @param persistence the persistence engine's name, or null.
 * @param flags       {@code IP_VS_SVC_F_*} (the kernel's include {@code IP_VS_SVC_F_HASHED} for a listed service).
 * @param timeout     the persistence timeout in seconds.
 * @param netmask     as {@link IpvsServiceOptions#netmask()}.
 * @param stats       its counters.
 */
public record IpvsServiceEntry(IpvsServiceKey key, String scheduler, String persistence, int flags, int timeout,
    int netmask, IpvsStats stats)
{
    public IpvsServiceEntry
    {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(stats, "stats");
    }
}
