package io.jvs.forwarder.daemon;

import io.jvs.core.control.IpvsadmFormatter;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Applies a reloaded configuration's services to the running table as the smallest set of ipvsadm operations
 * (never delete and re-add: keepalived and DPVS both lost traffic that way): a service or server that is in
 * both keeps its object, so its counters, scheduler cursor, lblc/lblcr tables, connections and persistence
 * templates survive; a changed scheduler or flags is an edit ({@code -E}), a changed weight, method or
 * threshold an edit ({@code -e}) that applies to new connections; what is gone is deleted, its connections
 * following {@code expire_nodest_conn}; what is new is added, and a server whose line comes back while connections
 * still count on it is the deleted object taken back ({@link ServiceTable#addServer}), so those connections resume.
 * <p>
 * What the file manages is only what it declares: a running service outside the set of services the previous file
 * managed ({@code owned}) and not declared by the new one, one that control (ctl, ipvsadm, keepalived) created, is
 * left as it is, servers, counters and connections all; one that the new file declares is taken over, its
 * definition applied by the same edits as an owned service's (never deleted and added again).
 * <p>
 * Run it only with a desired table that was built successfully from the new configuration (every rule
 * accepted), so the operations here meet no refusal; order: deletions of servers and services first, then
 * edits, then additions, servers in their file order.
 */
final class ServiceDiff
{
    /**
     * A server added to a running service at weight 0, which no scheduler gives a connection, and to be given its
     * weight once a snapshot holds its slot ({@link #release}): the running service's scheduler is shared with the
     * workers, so a server it could pick before the snapshot naming it is published would be one the workers
     * cannot send to (they would refuse the connection as {@code no-server}).
     */
    record Pending(ServiceKey key, RealServer server)
    {
    }

    private final List<String> changes = new ArrayList<>();
    private final List<Pending> pending = new ArrayList<>();

    private ServiceDiff()
    {
    }

    /**
     * @param live    the running table, changed in place.
     * @param desired the new configuration's table (not changed).
     * @return one line per operation applied, as the ipvsadm command that would make it ({@code -e -t 10.0.0.1:80 -r
     *         192.168.1.2:80 -m -w 7}), so that an operator can read the log as a script. ipvsadm-style, for the log (empty when nothing changed): a service
     *         added or edited with all its settings as {@code ipvsadm -S} writes them
     *         ({@link IpvsadmFormatter#serviceOptions}), so that an edit of only its persistence, netmask,
     *         one-packet scheduling or flags shows what it changed; a server added or edited with its method,
     *         weight and thresholds ({@link #describe}).
     */
    static List<String> apply(final ServiceTable live, final ServiceTable desired)
    {
        return apply(live, desired, keys(live), null);
    }

    /**
     * @param owned   the services the file managed until now (the previous file's): of the running services not
     *                in {@code desired}, those are deleted and the others left to control; a running service that
     *                {@code desired} declares and that is not in it is taken over from control (the log's
     *                {@code taken over from control: KEY}, before its edits).
     * @param pending where servers added to running services go, at weight 0, for {@link #release} after the next
     *                publication; null to add them at their weights at once (no workers run).
     * @return one line per operation applied, as the ipvsadm command that would make it ({@code -e -t 10.0.0.1:80 -r
     *         192.168.1.2:80 -m -w 7}), so that an operator can read the log as a script.
     */
    static List<String> apply(final ServiceTable live, final ServiceTable desired, final Set<ServiceKey> owned,
        final List<Pending> pending)
    {
        final ServiceDiff diff = new ServiceDiff();
        diff.run(live, desired, owned, pending != null);
        if (pending != null)
        {
            pending.addAll(diff.pending);
        }
        return diff.changes;
    }

    /**
     * Gives the servers added at weight 0 their weights (a snapshot naming them has been published since).
     */
    static void release(final ServiceTable live, final List<Pending> pending)
    {
        for (final Pending added : pending)
        {
            final RealServer server = added.server();
            live.editServer(added.key(), server.address(), server.port(), server.forwardMethod(), server.weight(),
                server.upperThreshold(), server.lowerThreshold());
        }
    }

    /** @return the keys of the table's services, in its order. */
    static Set<ServiceKey> keys(final ServiceTable table)
    {
        final Set<ServiceKey> keys = new LinkedHashSet<>();
        for (final VirtualService service : table.services())
        {
            keys.add(service.key());
        }
        return keys;
    }

    private void run(final ServiceTable live, final ServiceTable desired, final Set<ServiceKey> owned,
        final boolean twoSteps)
    {
        for (final VirtualService service : List.copyOf(live.services()))
        {
            if (desired.find(service.key()) == null && owned.contains(service.key()))
            {
                live.deleteService(service.key());
                changes.add("-D " + service.key().toRuleString());
            }
        }
        for (final VirtualService wanted : desired.services())
        {
            final ServiceKey key = wanted.key();
            final VirtualService running = live.find(key);
            if (running == null)
            {
                live.addService(key, wanted.settings());
                changes.add("-A " + key.toRuleString() + " " + IpvsadmFormatter.serviceOptions(key, wanted.settings()));
                // A new service is in no snapshot yet: workers meet it with its servers' slots.
                addServers(live, key, wanted.servers(), false);
                continue;
            }
            if (!owned.contains(key))
            {
                changes.add("taken over from control: " + key.toRuleString());
            }
            for (final RealServer server : running.servers().clone())
            {
                if (wanted.find(server.address(), server.port()) == null)
                {
                    live.deleteServer(key, server.address(), server.port());
                    changes.add("-d " + key.toRuleString() + " -r " + server);
                }
            }
            if (!running.settings().equals(wanted.settings()))
            {
                live.editService(key, wanted.settings());
                changes.add("-E " + key.toRuleString() + " " + IpvsadmFormatter.serviceOptions(key, wanted.settings()));
            }
            final List<RealServer> added = new ArrayList<>();
            for (final RealServer server : wanted.servers())
            {
                final RealServer current = running.find(server.address(), server.port());
                if (current == null)
                {
                    added.add(server);
                }
                else if (current.weight() != server.weight() || current.forwardMethod() != server.forwardMethod() ||
                    current.upperThreshold() != server.upperThreshold() ||
                    current.lowerThreshold() != server.lowerThreshold())
                {
                    // Described before the edit: the running server's thresholds decide which are written.
                    final String edit = "-e " + key.toRuleString() + " " + describe(server, current);
                    live.editServer(key, server.address(), server.port(), server.forwardMethod(), server.weight(),
                        server.upperThreshold(), server.lowerThreshold());
                    changes.add(edit);
                }
            }
            addServers(live, key, added.toArray(RealServer[]::new), twoSteps);
        }
    }

    /**
     * @param servers  in list order (newest first, as a service lists them): added oldest first.
     * @param quiesced add at weight 0 and keep them for {@link #release}.
     */
    private void addServers(final ServiceTable live, final ServiceKey key, final RealServer[] servers,
        final boolean quiesced)
    {
        for (int i = servers.length - 1; i >= 0; i--)
        {
            final RealServer server = servers[i];
            live.addServer(key, server.address(), server.port(), server.forwardMethod(),
                quiesced ? 0 : server.weight(), server.upperThreshold(), server.lowerThreshold());
            if (quiesced && server.weight() != 0)
            {
                pending.add(new Pending(key, server));
            }
            changes.add("-a " + key.toRuleString() + " " + describe(server, null));
        }
    }

    /**
     * A server's options as {@code ipvsadm -S -n} writes them, method before weight
     * ({@code -r 10.1.0.13:9001 -g -w 1}), so that the log shows what a change of method did; then its thresholds,
     * which the save leaves out but a reload applies, each when set or, for an edit, when it changed (an edit that
     * clears a threshold shows {@code -x 0}, as ipvsadm is given it).
     *
     * @param server  the server as the new configuration has it.
     * @param running the running server it edits, or null for one added.
     */
    private static String describe(final RealServer server, final RealServer running)
    {
        final StringBuilder options = new StringBuilder("-r ").append(server).append(' ')
            .append(IpvsadmFormatter.serverOptions(server.forwardMethod(), server.weight()));
        if (server.upperThreshold() != 0 || running != null && running.upperThreshold() != server.upperThreshold())
        {
            options.append(" -x ").append(Integer.toUnsignedString(server.upperThreshold()));
        }
        if (server.lowerThreshold() != 0 || running != null && running.lowerThreshold() != server.lowerThreshold())
        {
            options.append(" -y ").append(Integer.toUnsignedString(server.lowerThreshold()));
        }
        return options.toString();
    }
}
