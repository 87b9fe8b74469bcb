package io.jvs.core.sched;

import io.jvs.core.service.RealServer;

/**
 * What dh and sh share: the table size from the flags, and the test of whether the server a bucket holds may
 * take a connection.
 */
final class HashTables
{
    /** dh and sh default to 256 buckets (CONFIG_IP_VS_DH_TAB_BITS / SH_TAB_BITS = 8). */
    static final int DEFAULT_BUCKETS = 256;

    private HashTables()
    {
    }

    static int buckets(final SchedulerFlags flags)
    {
        return flags.tableSize() != 0 ? flags.tableSize() : DEFAULT_BUCKETS;
    }

    /**
     * A hashed server is refused when its weight is 0 or it is OVERLOAD, as the current kernel refuses it
     * ({@code ip_vs_dh_schedule}, and {@code is_unavailable} in {@code ip_vs_sh.c}); with the seed-overload flag
     * also when its connections exceed twice its weight.
     */
    static boolean isUnavailable(final RealServer server, final boolean seedOverload)
    {
        final int weight = server.weight();
        if (weight <= 0 || server.isOverloaded())
        {
            return true;
        }
        return seedOverload && isAboveTwiceWeight(server);
    }

    /**
     * The overload rule of the LVS Knowledge Base's destination and source hashing pseudo-code
     * ({@code n.conns > 2*n.weight}): connections (active and inactive) above twice the weight.
     */
    static boolean isAboveTwiceWeight(final RealServer server)
    {
        return server.totalConnections() > 2L * server.weight();
    }
}
