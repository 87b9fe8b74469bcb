package io.jvs.core.control;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.service.ServiceKey;

import java.util.List;

/**
 * An immutable picture of everything ipvsadm can list: what the daemon hands to {@link IpvsadmFormatter} for
 * {@code -L}, {@code -S}, {@code -c} and {@code --timeout}.
 *
 * @param versionCode   IPVS's version as GET_INFO reports it, {@code 0x010201} for 1.2.1.
 * @param connTableSize the connection table size the header shows.
 * @param services      the services in the kernel's order (what {@code --nosort} prints).
 * @param timeouts      the {@code --set} timeouts.
 * @param connections   the connection entries, in table order; empty when the listing does not need them. A
 *                      collection is copied; any other iterable is read as it is iterated (a daemon's, from its
 *                      workers a page at a time, so that a listing of millions of entries never holds them all).
 */
public record IpvsView(
    int versionCode,
    int connTableSize,
    List<ServiceView> services,
    ConnectionTimeouts.Current timeouts,
    Iterable<ConnectionView> connections)
{
    /** IPVS 1.2.1, the version every kernel since 2.6.28 reports. */
    public static final int VERSION_1_2_1 = 0x010201;
    /** The kernel's default connection table size (CONFIG_IP_VS_TAB_BITS = 12). */
    public static final int DEFAULT_CONN_TABLE_SIZE = 4096;
    /** The kernel's default timeouts: tcp 900 s, tcpfin 120 s, udp 300 s. */
    public static final ConnectionTimeouts.Current DEFAULT_TIMEOUTS = new ConnectionTimeouts.Current(900, 120, 300);

    /**
     * Copies the lists so the view cannot change; connections read as they are iterated stay so.
     */
    public IpvsView
    {
        services = List.copyOf(services);
        if (connections instanceof java.util.Collection<ConnectionView> entries)
        {
            connections = List.copyOf(entries);
        }
    }

    /**
     * @return an empty table with the kernel's defaults.
     */
    public static IpvsView empty()
    {
        return new IpvsView(VERSION_1_2_1, DEFAULT_CONN_TABLE_SIZE, List.of(), DEFAULT_TIMEOUTS, List.of());
    }

    /**
     * @param key a service.
     * @return the service, or null.
     */
    public ServiceView service(final ServiceKey key)
    {
        for (final ServiceView service : services)
        {
            if (service.key().equals(key))
            {
                return service;
            }
        }
        return null;
    }

    /**
     * @param newServices the services.
     * @return this view with them.
     */
    public IpvsView withServices(final List<ServiceView> newServices)
    {
        return new IpvsView(versionCode, connTableSize, newServices, timeouts, connections);
    }

    /**
     * @param newTimeouts the timeouts.
     * @return this view with them.
     */
    public IpvsView withTimeouts(final ConnectionTimeouts.Current newTimeouts)
    {
        return new IpvsView(versionCode, connTableSize, services, newTimeouts, connections);
    }

    /**
     * @param newConnections connection entries.
     * @return this view with them.
     */
    public IpvsView withConnections(final Iterable<ConnectionView> newConnections)
    {
        return new IpvsView(versionCode, connTableSize, services, timeouts, newConnections);
    }
}
