package io.jvs.forwarder.control.netlink;

import java.util.Objects;

/**
 * A service's settings in an add or edit ({@code IPVS_CMD_NEW_SERVICE}, {@code IPVS_CMD_SET_SERVICE}).
 *
 * @param scheduler   the scheduler's name ({@code rr}, {@code wlc}, ...).
 * @param persistence the persistence engine's name ({@code sip}), or null for none.
 * @param flags       the flags to set ({@code IP_VS_SVC_F_*}), under {@code flagsMask}.
 * @param flagsMask   which flags the request sets: the others keep the service's current value
 *                    ({@link #mergeFlags(int)}), as {@code ip_vs_genl_parse_service} merges them.
 * @param timeout     the persistence timeout in seconds (0: not persistent).
 * @param netmask     the persistence granularity: for IPv4 the mask as a big-endian int ({@code 0xffffff00} for
 *                    255.255.255.0), for IPv6 the prefix length (as ipvsadm sends them).
 */
public record IpvsServiceOptions(String scheduler, String persistence, int flags, int flagsMask, int timeout,
    int netmask)
{
    public IpvsServiceOptions
    {
        Objects.requireNonNull(scheduler, "scheduler");
    }

    /** @return the service's flags after this request, given its flags before (0 for a new service). */
    public int mergeFlags(final int current)
    {
        return (current & ~flagsMask) | (flags & flagsMask);
    }
}
