package io.jvs.forwarder.control.netlink;

import io.jvs.core.net.IpAddress;

import java.util.Objects;

/**
 * A real server's settings in an add or edit ({@code IPVS_CMD_NEW_DEST}, {@code IPVS_CMD_SET_DEST}); in a delete only
 * the address and port matter ({@link #key}).
 *
 * @param address        the real server's address (its family is {@code IPVS_DEST_ATTR_ADDR_FAMILY}, or the
 *                       service's when the request has none).
 * @param port           its port, 0..65535.
 * @param forwarding     the forwarding method ({@code IP_VS_CONN_F_MASQ}, {@code _LOCALNODE}, {@code _TUNNEL},
 *                       {@code _DROUTE}), already masked with {@code IP_VS_CONN_F_FWD_MASK} as the kernel does.
 * @param weight         the weight, as sent (the backend checks the range: the kernel answers ERANGE below 0).
 * @param upperThreshold the connection upper threshold (0: none).
 * @param lowerThreshold the connection lower threshold.
 * @param tunnelType     {@code IP_VS_CONN_F_TUNNEL_TYPE_*} (0: IPIP).
 * @param tunnelPort     the GUE tunnel's port (0: none).
 * @param tunnelFlags    {@code IP_VS_TUNNEL_ENCAP_FLAG_*}.
 */
public record IpvsDestination(IpAddress address, int port, int forwarding, int weight, int upperThreshold,
    int lowerThreshold, int tunnelType, int tunnelPort, int tunnelFlags)
{
    public IpvsDestination
    {
        Objects.requireNonNull(address, "address");
        if (port < 0 || port > 0xFFFF)
        {
            throw new IllegalArgumentException("port " + port + " is out of range");
        }
    }

    /** @return the destination with only what names it: for a delete. */
    public static IpvsDestination key(final IpAddress address, final int port)
    {
        return new IpvsDestination(address, port, 0, 0, 0, 0, 0, 0, 0);
    }

    /** @return the address family of the address. */
    public int family()
    {
        return address.isV6() ? Netlink.AF_INET6 : Netlink.AF_INET;
    }
}
