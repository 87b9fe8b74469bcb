package io.jvs.nativebindings.netlink;

import java.net.InetAddress;

/**
 * An address the kernel holds on an interface (RTM_NEWADDR).
 *
 * @param index        the interface's index.
 * @param family       AF_INET or AF_INET6.
 * @param address      the local address (IFA_LOCAL when given, which differs from IFA_ADDRESS only on
 *                     point-to-point links, where IFA_ADDRESS is the peer).
 * @param prefixLength the length of the prefix it makes on-link.
 * @param scope        RT_SCOPE_UNIVERSE, RT_SCOPE_LINK (IPv6 link-local) or RT_SCOPE_HOST (loopback).
 * @param flags        the IFA_F_* flags (IFA_FLAGS when given, else the 8 bits of the header).
 */
public record Address(int index, int family, InetAddress address, int prefixLength, int scope, int flags)
{
    /**
     * @return true while IPv6 duplicate address detection runs or has failed: the address is not yet usable
     * as a source (IFA_F_TENTATIVE, IFA_F_DADFAILED).
     */
    public boolean tentative()
    {
        return (flags & (Rtnetlink.IFA_F_TENTATIVE | Rtnetlink.IFA_F_DADFAILED)) != 0;
    }

    @Override
    public String toString()
    {
        return "Address[" + address.getHostAddress() + "/" + prefixLength + " on " + index + " scope " + scope +
            " flags 0x" + Integer.toHexString(flags) + "]";
    }
}
