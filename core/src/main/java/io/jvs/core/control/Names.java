package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;

/**
 * The name lookups ipvsadm makes through the C library: host names of addresses (gethostbyaddr) and of names
 * (gethostbyname), and service names of ports (getservbyport, getservbyname). Kept behind an interface so the
 * parser and the formatter stay pure: {@link #NUMERIC} knows no names, which is what {@code -n} prints anyway.
 */
public interface Names
{
    /** Knows no name: every address and port is printed as a number, and only numbers are parsed. */
    Names NUMERIC = new Names()
    {
    };

    /**
     * @param address an address.
     * @return its host name, or null when it has none (ipvsadm then prints the address).
     */
    default String hostName(final IpAddress address)
    {
        return null;
    }

    /**
     * @param name a host name that is not an address literal.
     * @return its IPv4 address (gethostbyname, first address), or null when it has none.
     */
    default IpAddress hostAddress(final String name)
    {
        return null;
    }

    /**
     * @param port     a port.
     * @param protocol the protocol whose services file entry is wanted.
     * @return the service name, or null.
     */
    default String serviceName(final int port, final Protocol protocol)
    {
        return null;
    }

    /**
     * @param name     a service name such as "http".
     * @param protocol the protocol.
     * @return its port, or -1.
     */
    default int servicePort(final String name, final Protocol protocol)
    {
        return -1;
    }
}
