package io.jvs.forwarder.control.netlink;

import java.util.Objects;

/**
 * A connection synchronisation daemon, as {@code IPVS_CMD_GET_DAEMON} lists it ({@code ipvsadm -L --daemon}).
 *
 * @param state              {@link IpvsNetlink#STATE_MASTER} or {@link IpvsNetlink#STATE_BACKUP}.
 * @param multicastInterface the interface it sends or listens on.
 * @param syncId             its sync id.
 */
public record IpvsDaemon(int state, String multicastInterface, int syncId)
{
    public IpvsDaemon
    {
        Objects.requireNonNull(multicastInterface, "multicastInterface");
    }
}
