package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ForwardMethod;

/**
 * One real server of a service as a listing shows it ({@code struct ip_vs_dest_entry}).
 *
 * @param address           its address; may be of the other family than the service's for a tunnel.
 * @param port              its port.
 * @param forwardMethod     NAT, DR or TUN (always IP-in-IP for jvs).
 * @param weight            0..2147483647.
 * @param upperThreshold    -x, 0 for none.
 * @param lowerThreshold    -y.
 * @param activeConnections connections in an active state.
 * @param inactiveConnections the others.
 * @param persistentConnections persistence templates pointing at it.
 * @param counters          its statistics.
 */
public record DestinationView(
    IpAddress address,
    int port,
    ForwardMethod forwardMethod,
    int weight,
    int upperThreshold,
    int lowerThreshold,
    int activeConnections,
    int inactiveConnections,
    int persistentConnections,
    Counters counters)
{
    /**
     * @param address       the address.
     * @param port          the port.
     * @param forwardMethod how packets reach it.
     * @param weight        its weight.
     * @return a server with no thresholds, no connections and zero counters.
     */
    public static DestinationView of(
        final IpAddress address, final int port, final ForwardMethod forwardMethod, final int weight)
    {
        return new DestinationView(address, port, forwardMethod, weight, 0, 0, 0, 0, 0, Counters.ZERO);
    }

    /**
     * @param active     active connections.
     * @param inactive   inactive connections.
     * @param persistent persistence templates.
     * @return this server with those connection counts.
     */
    public DestinationView withConnections(final int active, final int inactive, final int persistent)
    {
        return new DestinationView(address, port, forwardMethod, weight, upperThreshold, lowerThreshold, active,
            inactive, persistent, counters);
    }

    /**
     * @param newCounters statistics.
     * @return this server with them.
     */
    public DestinationView withCounters(final Counters newCounters)
    {
        return new DestinationView(address, port, forwardMethod, weight, upperThreshold, lowerThreshold,
            activeConnections, inactiveConnections, persistentConnections, newCounters);
    }

    /**
     * @return true when the server is matched by address and port as the kernel's ip_vs_lookup_dest does.
     */
    boolean is(final IpAddress otherAddress, final int otherPort)
    {
        return address.equals(otherAddress) && port == otherPort;
    }
}
