package io.jvs.tools.simulate;

import io.jvs.forwarder.report.Counts;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.VirtualService;

import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The per-service table of {@code simulate --summary}: every server with its weight, the connections
 * it holds, the flows this run sent it, its share of the service's flows, and the share its weight
 * asks for.
 */
final class Summary
{
    private Summary()
    {
    }

    static void print(final Simulator simulator, final PrintWriter out)
    {
        for (final VirtualService service : simulator.table().services())
        {
            final Simulator.Tally tally = simulator.tallies().getOrDefault(service.key(), new Simulator.Tally());
            printService(service, tally, out);
        }
        for (final Map.Entry<ServiceKey, Simulator.Tally> entry : simulator.tallies().entrySet())
        {
            if (simulator.table().find(entry.getKey()) == null)
            {
                out.printf(Locale.ROOT, "%n%s (deleted during the run): %s%n",
                    entry.getKey(), Counts.of(entry.getValue().total(), "flow"));
            }
        }
        if (simulator.unmatched() > 0)
        {
            out.printf(Locale.ROOT, "%n%s matched no virtual service%n", Counts.of(simulator.unmatched(), "flow"));
        }
    }

    private static void printService(final VirtualService service, final Simulator.Tally tally, final PrintWriter out)
    {
        final long total = tally.total();
        out.printf(Locale.ROOT, "%n%s %s%s: %s, %d without a server%n",
            service.key(), service.settings().scheduler(), flags(service), Counts.of(total, "flow"), tally.unscheduled);
        out.printf(Locale.ROOT, "  %-40s %6s %8s %8s %8s %7s %7s%n",
            "server", "weight", "active", "inactive", "flows", "share", "weight%");
        final Set<RealServer> servers = new LinkedHashSet<>(java.util.List.of(service.servers()));
        servers.addAll(tally.flows.keySet());
        long weightSum = 0;
        for (final RealServer server : service.servers())
        {
            weightSum += server.weight();
        }
        for (final RealServer server : servers)
        {
            final long flows = tally.flows.getOrDefault(server, 0L);
            final boolean removed = !server.isAvailable();
            out.printf(Locale.ROOT, "  %-40s %6s %8d %8d %8d %7s %7s%n",
                server + (removed ? " (removed)" : ""),
                removed ? "-" : Integer.toString(server.weight()),
                server.activeConnections(),
                server.inactiveConnections(),
                flows,
                percent(flows, total),
                removed ? "-" : percent(server.weight(), weightSum));
        }
    }

    private static String flags(final VirtualService service)
    {
        final StringBuilder text = new StringBuilder();
        final String list = service.settings().flags().toListString(service.settings().scheduler());
        if (!list.isEmpty())
        {
            text.append(" (").append(list).append(')');
        }
        if (service.settings().persistent())
        {
            text.append(" persistent ").append(service.settings().persistenceSeconds());
        }
        if (service.settings().onePacket())
        {
            text.append(" ops");
        }
        return text.toString();
    }

    private static String percent(final long part, final long whole)
    {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * part / whole);
    }
}
