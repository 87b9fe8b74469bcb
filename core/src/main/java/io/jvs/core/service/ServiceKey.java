package io.jvs.core.service;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;

import java.util.Objects;

/**
 * What identifies a virtual service: protocol, address and port, or a firewall mark and address family.
 *
 * @param protocol     TCP, UDP or SCTP; null for a firewall-mark service.
 * @param address      the virtual IP; null for a firewall-mark service.
 * @param port         the virtual port, 0..65535 (0 = every port, persistent services only).
 * @param firewallMark the mark, 1..2^32-1 as an unsigned int; 0 for an address service.
 * @param v6           the address family.
 */
public record ServiceKey(Protocol protocol, IpAddress address, int port, int firewallMark, boolean v6)
{
    /**
     * @param protocol TCP, UDP or SCTP.
     * @param address  the virtual IP.
     * @param port     the virtual port.
     * @return the key of an address service.
     */
    public static ServiceKey of(final Protocol protocol, final IpAddress address, final int port)
    {
        return new ServiceKey(protocol, address, port, 0, address.isV6());
    }

    /**
     * @param firewallMark the mark (non-zero).
     * @param v6           true for an IPv6 firewall-mark service (ipvsadm -f N -6).
     * @return the key of a firewall-mark service.
     */
    public static ServiceKey ofFirewallMark(final int firewallMark, final boolean v6)
    {
        if (firewallMark == 0)
        {
            throw new IllegalArgumentException("firewall mark 0 means no mark");
        }
        return new ServiceKey(null, null, 0, firewallMark, v6);
    }

    /** The FTP control port, whose persistence templates a port-0 service of the same address shares. */
    private static final int FTP_PORT = 21;

    /**
     * What a persistent service's templates are keyed by, besides the client network, as ip_vs_sched_persist keys
     * them: the protocol, virtual address and port, with port 0 for an FTP service (port 21), so that its data
     * connections to other ports find the control connection's server through a port-0 service's templates; for a
     * firewall-mark service the mark, whatever the protocol. Not the service object: a service deleted and created
     * again (a keepalived restart) finds the templates it left, as the kernel's do.
     *
     * @return the key templates of this service are made under.
     */
    public ServiceKey persistenceKey()
    {
        return !isFirewallMark() && port == FTP_PORT ? of(protocol, address, 0) : this;
    }

    /**
     * @return true for a firewall-mark service.
     */
    public boolean isFirewallMark()
    {
        return firewallMark != 0;
    }

    /**
     * @return the service as ipvsadm names it in a rule, e.g. {@code -t 10.0.0.1:80} or {@code -f 5 -6}.
     */
    public String toRuleString()
    {
        if (isFirewallMark())
        {
            return "-f " + Integer.toUnsignedString(firewallMark) + (v6 ? " -6" : "");
        }
        return protocol.ipvsadmOption() + " " + address.toBracketedString() + ":" + port;
    }

    // Written out rather than the record's own: those are linked at their first call through invokedynamic
    // (ObjectMethods.bootstrap), which spins method handles at every start of every command (the start-up cache does
    // not hold them), and the rules' first service pays for it.
    @Override
    public boolean equals(final Object other)
    {
        return other instanceof final ServiceKey key && port == key.port && firewallMark == key.firewallMark &&
            v6 == key.v6 && protocol == key.protocol && Objects.equals(address, key.address);
    }

    @Override
    public int hashCode()
    {
        int hash = protocol == null ? 0 : protocol.ordinal() + 1;
        hash = 31 * hash + (address == null ? 0 : address.hashCode());
        hash = 31 * hash + port;
        hash = 31 * hash + firewallMark;
        return 31 * hash + (v6 ? 1 : 0);
    }

    @Override
    public String toString()
    {
        if (isFirewallMark())
        {
            return "FWM " + Integer.toUnsignedString(firewallMark) + (v6 ? " IPv6" : "");
        }
        return protocol + " " + address.toBracketedString() + ":" + port;
    }
}
