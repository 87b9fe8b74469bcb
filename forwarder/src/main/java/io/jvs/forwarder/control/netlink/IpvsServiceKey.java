package io.jvs.forwarder.control.netlink;

import io.jvs.core.net.IpAddress;

import java.util.Objects;

/**
 * What names a virtual service in IPVS: its family and either a firewall mark or a protocol, address and port, as
 * {@code ip_vs_genl_parse_service} reads them.
 *
 * @param family   {@link Netlink#AF_INET} or {@link Netlink#AF_INET6}.
 * @param protocol the IP protocol number (TCP for a fwmark service, as the kernel sets it).
 * @param address  the virtual address (the family's zero address for a fwmark service).
 * @param port     the virtual port, 0..65535 (0 for a fwmark service).
 * @param fwmark   the firewall mark, or 0 for an address service.
 */
public record IpvsServiceKey(int family, int protocol, IpAddress address, int port, int fwmark)
{
    private static final int TCP = 6;

    public IpvsServiceKey
    {
        Objects.requireNonNull(address, "address");
        if (family != Netlink.AF_INET && family != Netlink.AF_INET6)
        {
            throw new IllegalArgumentException("address family " + family + " is neither AF_INET nor AF_INET6");
        }
        if (address.isV6() != (family == Netlink.AF_INET6))
        {
            throw new IllegalArgumentException(address + " is not of address family " + family);
        }
        if (port < 0 || port > 0xFFFF)
        {
            throw new IllegalArgumentException("port " + port + " is out of range");
        }
    }

    /** An address service. */
    public static IpvsServiceKey of(final int protocol, final IpAddress address, final int port)
    {
        return new IpvsServiceKey(address.isV6() ? Netlink.AF_INET6 : Netlink.AF_INET, protocol, address, port, 0);
    }

    /** A firewall-mark service of the family. */
    public static IpvsServiceKey ofMark(final int family, final int fwmark)
    {
        return new IpvsServiceKey(family, TCP, zero(family), 0, fwmark);
    }

    static IpAddress zero(final int family)
    {
        return family == Netlink.AF_INET6 ? IpAddress.ofV6(0, 0) : IpAddress.ofV4(0);
    }

    /** @return whether the service is named by its firewall mark. */
    public boolean isFwmark()
    {
        return fwmark != 0;
    }
}
