package io.jvs.core.control;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;

import java.util.ArrayList;
import java.util.List;

/**
 * The seam between the running {@link ServiceTable} and ipvsadm's requests: a change checked and applied as the
 * kernel would, and a listing view of the table with the statistics the workers keep.
 */
public final class TableViews
{
    /**
     * Where a view's statistics come from: the conductor's sums of the workers' counters and its rate estimator.
     */
    public interface Statistics
    {
        /** No statistics: every counter zero. */
        Statistics NONE = new Statistics()
        {
        };

        /**
         * @param service a service of the table.
         * @return its counters.
         */
        default Counters service(final VirtualService service)
        {
            return Counters.ZERO;
        }

        /**
         * @param service a service of the table.
         * @param server  one of its servers.
         * @return the server's counters.
         */
        default Counters server(final VirtualService service, final RealServer server)
        {
            return Counters.ZERO;
        }
    }

    private TableViews()
    {
    }

    /**
     * Checks a change with {@link KernelChecks} and applies it to the table. A refusal the table itself still
     * makes (a scheduler that cannot take one more server, as mh with a full table) is jvs out of room: ENOMEM,
     * "Memory allocation problem". Either way a refused change leaves the table as it was.
     *
     * @param command the change.
     * @param table   the running configuration.
     * @param limits  jvs's table sizes.
     * @return null when applied, else the refusal.
     */
    public static KernelError apply(
        final RuleCommand command, final ServiceTable table, final KernelChecks.Limits limits)
    {
        final KernelError error = KernelChecks.check(command, KernelChecks.lookup(table), limits);
        if (error != null)
        {
            return error;
        }
        try
        {
            command.applyTo(table);
            return null;
        }
        catch (final IllegalArgumentException ex)
        {
            return KernelError.NO_MEMORY;
        }
    }

    /**
     * @param table         the running configuration (services in the order added, servers newest first, as
     *                      the kernel keeps them).
     * @param statistics    the counters.
     * @param versionCode   the IPVS version the header shows.
     * @param connTableSize the connection table size the header shows.
     * @param connections   the connection entries, or an empty list.
     * @return the view.
     */
    public static IpvsView of(
        final ServiceTable table, final Statistics statistics, final int versionCode, final int connTableSize,
        final List<ConnectionView> connections)
    {
        final List<ServiceView> services = new ArrayList<>();
        for (final VirtualService service : table.services())
        {
            final List<DestinationView> destinations = new ArrayList<>();
            for (final RealServer server : service.servers())
            {
                destinations.add(new DestinationView(server.address(), server.port(), server.forwardMethod(),
                    server.weight(), server.upperThreshold(), server.lowerThreshold(), server.activeConnections(),
                    server.inactiveConnections(), server.persistentConnections(), statistics.server(service, server)));
            }
            services.add(new ServiceView(service.key(), service.settings(), statistics.service(service), destinations));
        }
        final int[] timeouts = table.timeoutsSeconds();
        return new IpvsView(versionCode, connTableSize, services,
            new ConnectionTimeouts.Current(timeouts[0], timeouts[1], timeouts[2]), connections);
    }

    /**
     * @param table the running configuration.
     * @return its view with no statistics and no connections, IPVS 1.2.1 and a 4096-entry table in the header.
     */
    public static IpvsView of(final ServiceTable table)
    {
        return of(table, Statistics.NONE, IpvsView.VERSION_1_2_1, IpvsView.DEFAULT_CONN_TABLE_SIZE, List.of());
    }
}
