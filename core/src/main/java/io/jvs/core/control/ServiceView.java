package io.jvs.core.control;

import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;

import java.util.List;

/**
 * One virtual service as a listing shows it ({@code struct ip_vs_service_entry} and its destinations).
 *
 * @param key          the service.
 * @param settings     scheduler, flags, persistence.
 * @param counters     its statistics.
 * @param destinations its real servers in the order the kernel keeps them (the newest first, as
 *                     {@code list_add_rcu} in {@code __ip_vs_update_dest} puts them), which is what
 *                     {@code --nosort} prints.
 */
public record ServiceView(
    ServiceKey key, ServiceSettings settings, Counters counters, List<DestinationView> destinations)
{
    /**
     * Copies the list so the view cannot change.
     */
    public ServiceView
    {
        destinations = List.copyOf(destinations);
    }

    /**
     * @param key      the service.
     * @param settings its settings.
     * @return a service with no servers and zero counters.
     */
    public static ServiceView of(final ServiceKey key, final ServiceSettings settings)
    {
        return new ServiceView(key, settings, Counters.ZERO, List.of());
    }

    /**
     * @param newDestinations the servers, in kernel order.
     * @return this service with them.
     */
    public ServiceView withDestinations(final List<DestinationView> newDestinations)
    {
        return new ServiceView(key, settings, counters, newDestinations);
    }

    /**
     * @param newCounters statistics.
     * @return this service with them.
     */
    public ServiceView withCounters(final Counters newCounters)
    {
        return new ServiceView(key, settings, newCounters, destinations);
    }

    /**
     * @param address a server address.
     * @param port    its port.
     * @return the server, or null.
     */
    public DestinationView destination(final io.jvs.core.net.IpAddress address, final int port)
    {
        for (final DestinationView destination : destinations)
        {
            if (destination.is(address, port))
            {
                return destination;
            }
        }
        return null;
    }
}
