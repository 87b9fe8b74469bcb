package io.jvs.core.service;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.TemplateTable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Persistence templates (ip_vs_sched_persist) for one thread that works with services rather
 * than snapshots: the simulation and offline tools. The templates themselves are the forwarder's
 * {@link TemplateTable}, so both follow one set of rules; this class gives them the simulation's keys
 * and server numbers, and grows the table when it fills (the workers' table has a fixed size; a
 * simulation must not lose templates to it).
 * <p>
 * The key is the client's address masked by the service's netmask, with the service's
 * {@link ServiceKey#persistenceKey}, as the workers' templates are keyed. A template is re-armed to the full
 * persistence timeout on every use and cannot expire while connections it placed are open; it expires once they have ended
 * and its deadline has passed (the kernel's timer instead re-arms such a template 60 s at a time, so it
 * may outlive its last connection by up to a minute). A template whose server has left the service, or is quiesced while
 * expire_quiescent_template is on, is given the server the scheduler chooses, keeping the count of the
 * connections it placed; one whose server is quiesced is otherwise still followed (the kernel's default).
 */
public final class PersistenceTemplates
{
    private static final int INITIAL_BUCKETS = 64;
    private static final int GROWTH = 4;

    /** One client network's server. */
    public static final class Template
    {
        private final PersistenceTemplates owner;
        private final RealServer server;
        private final Network network;

        private Template(final PersistenceTemplates owner, final RealServer server, final Network network)
        {
            this.owner = owner;
            this.server = server;
            this.network = network;
        }

        public RealServer server()
        {
            return server;
        }

        /**
         * @return how many open connections this client network's template placed (0 once it is retired).
         */
        public int controlled()
        {
            final int way = owner.wayOf(network);
            return way == TemplateTable.NOT_FOUND ? 0 : owner.table.controlled(way);
        }
    }

    /**
     * A template's key: the service it is kept for (FTP's as port 0) and protocol, as a number of the
     * table's, and the client network.
     */
    private record Network(int group, long high, long low)
    {
    }

    private final boolean expireQuiescent;
    /** Each {@link ServiceKey#persistenceKey}'s number in the table's keys. */
    private final Map<ServiceKey, Integer> groups = new HashMap<>();
    private final Map<RealServer, Integer> serverSlots = new IdentityHashMap<>();
    private final List<RealServer> serverList = new ArrayList<>();
    /** The last template object handed out for each network, so a network's callers share one. */
    private final Map<Network, Template> handedOut = new HashMap<>();
    private RealServer[] servers = new RealServer[16];
    private TemplateTable table = new TemplateTable(INITIAL_BUCKETS);

    /**
     * @param expireQuiescent the kernel's expire_quiescent_template: when true, a template whose server
     *                        has weight 0 is not followed.
     */
    public PersistenceTemplates(final boolean expireQuiescent)
    {
        this.expireQuiescent = expireQuiescent;
        serverList.add(null);
    }

    /**
     * Places a new connection of a persistent service and counts it against its template.
     *
     * @param service   the persistent service.
     * @param flow      the connection's first packet.
     * @param nowNs     the time.
     * @param scheduler asks the service's scheduler when no valid template exists.
     * @return the template holding the server, or null when the scheduler found none.
     */
    public Template open(
        final VirtualService service, final FlowTuple flow, final long nowNs, final Supplier<RealServer> scheduler)
    {
        final IpAddress masked = flow.sourceAddress().mask(service.settings().netmaskPrefix());
        final Network network = new Network(groupOf(service), masked.high(), masked.low());
        final long timeoutNs = TimeUnit.SECONDS.toNanos(service.settings().persistenceSeconds());
        final long found = table.find(network.group(), network.high(), network.low(), nowNs);
        if (found != TemplateTable.NOT_FOUND)
        {
            final RealServer server = serverList.get(TemplateTable.server(found));
            if (TemplateTable.usable(server.isAvailable(), server.weight() == 0, expireQuiescent))
            {
                table.attach(TemplateTable.way(found), nowNs, timeoutNs);
                final Template known = handedOut.get(network);
                return known != null && known.server == server ? known : remember(server, network);
            }
        }
        final RealServer server = scheduler.get();
        if (server == null)
        {
            return null;
        }
        final int slot = slotOf(server);
        int way = table.place(network.group(), network.high(), network.low(), slot, servers, nowNs, timeoutNs);
        while (way == TemplateTable.NOT_FOUND)
        {
            grow();
            way = table.place(network.group(), network.high(), network.low(), slot, servers, nowNs, timeoutNs);
        }
        table.attach(way, nowNs, timeoutNs);
        return remember(server, network);
    }

    /**
     * A connection the template placed has ended.
     *
     * @param template the template {@link #open} returned.
     */
    public void close(final Template template)
    {
        final int way = wayOf(template.network);
        if (way != TemplateTable.NOT_FOUND && table.controlled(way) > 0)
        {
            table.detach(way);
        }
    }

    /**
     * Drops every template that has expired, as the kernel's timers would have by now.
     *
     * @param nowNs the time.
     * @return how many were dropped.
     */
    public int expire(final long nowNs)
    {
        final int dropped = table.sweepAll(nowNs, servers);
        handedOut.keySet().removeIf(network -> wayOf(network) == TemplateTable.NOT_FOUND);
        return dropped;
    }

    /**
     * @return how many templates exist.
     */
    public int size()
    {
        return table.size();
    }

    private Template remember(final RealServer server, final Network network)
    {
        final Template template = new Template(this, server, network);
        handedOut.put(network, template);
        return template;
    }

    private int wayOf(final Network network)
    {
        return table.wayOf(network.group(), network.high(), network.low());
    }

    private int groupOf(final VirtualService service)
    {
        return groups.computeIfAbsent(service.key().persistenceKey(), unused -> groups.size());
    }

    private int slotOf(final RealServer server)
    {
        final Integer known = serverSlots.get(server);
        if (known != null)
        {
            return known;
        }
        final int slot = serverList.size();
        serverList.add(server);
        serverSlots.put(server, slot);
        if (slot >= servers.length)
        {
            servers = Arrays.copyOf(servers, servers.length * 2);
        }
        servers[slot] = server;
        return slot;
    }

    /** Moves every template to a table {@link #GROWTH} times the size. */
    private void grow()
    {
        final TemplateTable larger = new TemplateTable(table.buckets() * GROWTH);
        table.copyInto(larger);
        table = larger;
    }
}
