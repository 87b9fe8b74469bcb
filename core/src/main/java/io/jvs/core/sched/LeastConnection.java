package io.jvs.core.sched;

import io.jvs.core.service.RealServer;

/**
 * The weighted least-connection choice that wlc, lblc and lblcr share (spec 4).
 */
final class LeastConnection
{
    private LeastConnection()
    {
    }

    /**
     * The first usable server is the candidate; a later server that is not overloaded replaces it when
     * {@code candidateOverhead * weight > overhead * candidateWeight}, compared in 64 bits. Ties keep the
     * earlier server, and a later server of weight 0 can never win.
     *
     * @param servers the service's servers in list order.
     * @return the server with the least overhead per weight, or null when none is usable.
     */
    static RealServer weighted(final RealServer[] servers)
    {
        int i = 0;
        RealServer least = null;
        for (; i < servers.length; i++)
        {
            if (servers[i].isUsable())
            {
                least = servers[i];
                break;
            }
        }
        if (least == null)
        {
            return null;
        }
        long leastOverhead = least.overhead();
        long leastWeight = least.weight();
        for (i++; i < servers.length; i++)
        {
            final RealServer server = servers[i];
            if (server.isOverloaded())
            {
                continue;
            }
            final long overhead = server.overhead();
            final long weight = server.weight();
            if (leastOverhead * weight > overhead * leastWeight)
            {
                least = server;
                leastOverhead = overhead;
                leastWeight = weight;
            }
        }
        return least;
    }

    /**
     * The lblc/lblcr test of whether a cached server should give way (not the OVERLOAD flag): it has
     * more active connections than its weight while some server of the service has fewer than half
     * its weight ({@code 2 * active < weight}, the kernel's integer form).
     *
     * @param server  the cached server.
     * @param servers the service's servers.
     * @return true when the server should give way.
     */
    static boolean isLocalityOverloaded(final RealServer server, final RealServer[] servers)
    {
        if (server.activeConnections() <= server.weight())
        {
            return false;
        }
        for (final RealServer other : servers)
        {
            if ((long)other.activeConnections() * 2 < other.weight())
            {
                return true;
            }
        }
        return false;
    }
}
