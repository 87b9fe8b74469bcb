package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.conn.ServerAddresses;
import io.jvs.core.net.IpAddress;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Builds {@link DataPlane} snapshots on the control plane and keeps slots stable between them: a server
 * keeps its slot while it is configured, and after it is removed for as long as connections or
 * persistence templates still count on it, so an old connection never reaches a new server that
 * happens to take its slot; a service keeps its slot while it or any server that was in it holds one,
 * so counters never move to another service. A departed server its service takes back (an add of the same
 * address and port, as from the kernel's destination trash) is the same object and so keeps the slot it
 * still holds: its connections' entries name an available server again and are forwarded.
 * <p>
 * With several workers ({@link WorkerEpochs}) a slot is freed in two steps, each waiting for every worker
 * to move on. A departed server's connection counts are final only once no worker uses a snapshot that
 * still showed it available (until then a worker may bind one more connection to it), so it is released
 * only when it is idle and every worker uses a snapshot built after it departed. Its slot is then
 * reserved, named by no new snapshot, until every worker uses a snapshot later than the last that named
 * it; only then can another server take it. Service slots are reserved the same way. Without epochs
 * (one worker, on the builder's own thread, or none) both steps are immediate.
 */
public final class DataPlaneBuilder
{
    /** A freed slot waiting for every worker to move past the last snapshot that named it. */
    private record Reserved(int slot, long lastNamed)
    {
    }

    /** How many persistence keys per service slot the builder remembers before it forgets those of no service. */
    private static final int PRUNE_TEMPLATE_GROUPS_FACTOR = 4;

    private final int maxServices;
    private final int maxServers;
    private final WorkerEpochs epochs;
    private final Map<RealServer, Integer> serverSlots = new IdentityHashMap<>();
    private final Map<RealServer, VirtualService> serverOwner = new IdentityHashMap<>();
    private final Map<VirtualService, Integer> serviceSlots = new IdentityHashMap<>();
    private final Deque<Integer> freeServerSlots = new ArrayDeque<>();
    private final Deque<Integer> freeServiceSlots = new ArrayDeque<>();
    /** Departed servers still holding a slot: the generation of the first snapshot that showed them departed. */
    private final Map<RealServer, Long> departedSince = new IdentityHashMap<>();
    private final List<Reserved> reservedServerSlots = new ArrayList<>();
    private final List<Reserved> reservedServiceSlots = new ArrayList<>();
    /**
     * The template group of each persistence key a service has had: kept after its service is deleted, so that one
     * created again finds its templates; pruned of keys no service has once there are many.
     */
    private final Map<ServiceKey, Integer> templateGroups = new HashMap<>();
    private int nextTemplateGroup = 1;
    private int nextServerSlot = 1;
    private int nextServiceSlot;
    private long generation;

    /**
     * A builder for one worker, or workers that never act on an older snapshot than the builder's last:
     * slots are reused as soon as nothing counts on them.
     *
     * @param maxServices how many service slots exist.
     * @param maxServers  how many server slots exist, slot 0 unused (workers size their counters by both).
     */
    public DataPlaneBuilder(final int maxServices, final int maxServers)
    {
        this(maxServices, maxServers, null);
    }

    /**
     * @param maxServices how many service slots exist.
     * @param maxServers  how many server slots exist, slot 0 unused (workers size their counters by both).
     * @param epochs      the snapshots the workers use, or null for {@link #DataPlaneBuilder(int, int)}'s rule.
     */
    public DataPlaneBuilder(final int maxServices, final int maxServers, final WorkerEpochs epochs)
    {
        if (maxServices < 1 || maxServers < 2)
        {
            throw new IllegalArgumentException("need at least 1 service slot and 2 server slots");
        }
        this.maxServices = maxServices;
        this.maxServers = maxServers;
        this.epochs = epochs;
    }

    /**
     * @return the generation of the last snapshot built, 0 before the first.
     */
    public long generation()
    {
        return generation;
    }

    /**
     * @return how many freed server slots wait for the workers to move on before they can be reused.
     */
    public int reservedServerSlots()
    {
        return reservedServerSlots.size();
    }

    /**
     * @return the addresses of the departed servers that still hold their slot (connections or templates count on
     *         them), as of the last build: their NAT replies still belong to jvs.
     */
    public java.util.Set<IpAddress> departedServerAddresses()
    {
        final java.util.Set<IpAddress> addresses = new java.util.LinkedHashSet<>();
        departedSince.keySet().forEach(server -> addresses.add(server.address()));
        return addresses;
    }

    /**
     * @param table the configuration the last build was made of.
     * @return the virtual addresses of the address services no longer in {@code table} whose slots are still held
     *         for their servers' connections: those connections' packets still belong to jvs.
     */
    public java.util.Set<IpAddress> departedServiceAddresses(final ServiceTable table)
    {
        final java.util.Set<IpAddress> addresses = new java.util.LinkedHashSet<>();
        for (final VirtualService held : serviceSlots.keySet())
        {
            if (!held.key().isFirewallMark() && table.find(held.key()) != held)
            {
                addresses.add(held.key().address());
            }
        }
        return addresses;
    }

    /**
     * @return how many departed servers still hold their slot (connections or templates count on them, or
     *         a worker may still be about to bind one).
     */
    public int departedServers()
    {
        return departedSince.size();
    }

    /**
     * @return whether some slots are held only until the workers move past the snapshots that named them (builds
     *         with the workers on later snapshots free them), as opposed to those that connections or templates
     *         count on. Read-only; the builder's thread only.
     */
    public boolean holdsSlotsForTheWorkers()
    {
        if (epochs == null)
        {
            return false;
        }
        if (!reservedServerSlots.isEmpty() || !reservedServiceSlots.isEmpty())
        {
            return true;
        }
        for (final RealServer server : departedSince.keySet())
        {
            if (idle(server))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * How many service slots the next build could not give a service that holds none, besides those of the services
     * {@code kept} names (the services the table it builds keeps, which hold their slots): those of the other
     * services that will still hold theirs then (named by departed servers that connections count on, or, with
     * several workers, reserved until the workers move on) and those reserved now that the build will not free yet.
     * Where the build cannot tell yet it counts the slot as held, so a table whose services number at most
     * {@link #maxServices()} less this many fits. Read-only; the builder's thread only.
     *
     * @param kept which services the next table keeps (by identity).
     */
    public int serviceSlotsHeldApartFrom(final Predicate<VirtualService> kept)
    {
        final long oldest = epochs == null ? WorkerEpochs.NONE : epochs.oldest();
        int held = 0;
        for (final VirtualService service : serviceSlots.keySet())
        {
            if (!kept.test(service) && (epochs != null || servesConnections(service)))
            {
                held++;
            }
        }
        return held + stillReserved(reservedServiceSlots, oldest);
    }

    /**
     * How many server slots the next build could not give a server that holds none, besides those of the servers
     * {@code kept} names (the servers the table it builds keeps, which hold their slots): those of the other
     * servers that will still hold theirs then (connections or templates count on them, or, with several workers,
     * a worker may still be about to bind one, which is always so for a server the next table removes) and those
     * reserved now that the build will not free yet. So a table with at most {@link #maxServers()} - 1 less this
     * many servers fits. Read-only; the builder's thread only.
     *
     * @param kept which servers the next table keeps (by identity).
     */
    public int serverSlotsHeldApartFrom(final Predicate<RealServer> kept)
    {
        final long oldest = epochs == null ? WorkerEpochs.NONE : epochs.oldest();
        int held = 0;
        for (final RealServer server : serverSlots.keySet())
        {
            // With epochs a server the build finds departed is at best reserved, which frees it only a build later.
            if (!kept.test(server) && (epochs != null || !idle(server)))
            {
                held++;
            }
        }
        return held + stillReserved(reservedServerSlots, oldest);
    }

    /** @return whether a server of {@code service} that holds a slot has connections or templates counting on it. */
    private boolean servesConnections(final VirtualService service)
    {
        for (final Map.Entry<RealServer, VirtualService> owner : serverOwner.entrySet())
        {
            if (owner.getValue() == service && !idle(owner.getKey()))
            {
                return true;
            }
        }
        return false;
    }

    private static int stillReserved(final List<Reserved> reserved, final long oldest)
    {
        int held = 0;
        for (final Reserved slot : reserved)
        {
            if (oldest <= slot.lastNamed())
            {
                held++;
            }
        }
        return held;
    }

    private static boolean idle(final RealServer server)
    {
        return server.totalConnections() == 0 && server.persistentConnections() == 0;
    }

    public int maxServices()
    {
        return maxServices;
    }

    public int maxServers()
    {
        return maxServers;
    }

    /**
     * @param table    the configuration.
     * @param topology the ports and next hops.
     * @param timeouts the connection timeouts (shared, changed by ipvsadm --set).
     * @param settings the policy.
     * @return a new snapshot, without mark rules.
     * @throws IllegalStateException when the configuration has more services or servers than slots.
     */
    public DataPlane build(
        final ServiceTable table, final Topology topology, final ConnectionTimeouts timeouts,
        final DataPlaneSettings settings)
    {
        return build(table, topology, timeouts, settings, List.of());
    }

    /**
     * @param table    the configuration.
     * @param topology the ports and next hops.
     * @param timeouts the connection timeouts (shared, changed by ipvsadm --set).
     * @param settings the policy.
     * @param marks    the mark rules, in order (empty or null for none).
     * @return a new snapshot, with the next {@link DataPlane#generation()}.
     * @throws IllegalStateException when the configuration has more services or servers than slots.
     */
    public DataPlane build(
        final ServiceTable table, final Topology topology, final ConnectionTimeouts timeouts,
        final DataPlaneSettings settings, final List<MarkRule> marks)
    {
        final long thisGeneration = ++generation;
        final Map<VirtualService, Boolean> liveServices = new IdentityHashMap<>();
        final Map<RealServer, Boolean> liveServers = new IdentityHashMap<>();
        for (final VirtualService service : table.services())
        {
            liveServices.put(service, Boolean.TRUE);
            for (final RealServer server : service.servers())
            {
                liveServers.put(server, Boolean.TRUE);
            }
        }
        final long oldest = epochs == null ? WorkerEpochs.NONE : epochs.oldest();
        releaseDeparted(liveServices, liveServers, thisGeneration, oldest);
        unreserve(reservedServerSlots, freeServerSlots, oldest);
        unreserve(reservedServiceSlots, freeServiceSlots, oldest);

        final ServiceClassifier.Builder classifier = new ServiceClassifier.Builder();
        final VirtualService[] services = new VirtualService[maxServices];
        for (final VirtualService service : table.services())
        {
            final int serviceSlot = serviceSlot(service);
            services[serviceSlot] = service;
            final ServiceKey key = service.key();
            if (key.isFirewallMark())
            {
                classifier.addMark(key.firewallMark(), key.v6(), serviceSlot);
            }
            else
            {
                classifier.addAddress(key.v6(), key.protocol().number(), key.address().high(), key.address().low(),
                    key.port(), serviceSlot);
            }
            for (final RealServer server : service.servers())
            {
                serverSlot(server);
                serverOwner.put(server, service);
            }
        }

        final RealServer[] servers = new RealServer[maxServers];
        final int[] serverService = new int[maxServers];
        final long[] high = new long[maxServers];
        final long[] low = new long[maxServers];
        final int[] port = new int[maxServers];
        final boolean[] keepsPacketsPort = new boolean[maxServers];
        final int[] method = new int[maxServers];
        final int[] egress = new int[maxServers];
        final long[] mac = new long[maxServers];
        final int[] mtu = new int[maxServers];
        java.util.Arrays.fill(egress, DataPlane.NO_PORT);
        for (final Map.Entry<RealServer, Integer> entry : serverSlots.entrySet())
        {
            final RealServer server = entry.getKey();
            final int slot = entry.getValue();
            servers[slot] = server;
            serverService[slot] = serviceSlots.get(serverOwner.get(server));
            final IpAddress address = server.address();
            high[slot] = address.high();
            low[slot] = address.low();
            port[slot] = server.port();
            keepsPacketsPort[slot] = DataPlane.keepsPacketsPort(serverOwner.get(server));
            method[slot] = server.forwardMethod().ordinal();
            final Topology.Neighbour hop = topology.resolve(address);
            if (hop != null)
            {
                egress[slot] = hop.port();
                mac[slot] = hop.mac();
                // The route's own MTU when it has one, as IPVS's __ip_vs_get_out_rt takes dst_mtu() of the route to
                // the server (a metric or a learnt path MTU before the device's), never above the port's.
                final int portMtu = topology.ports().get(hop.port()).mtu();
                mtu[slot] = hop.mtu() > 0 ? Math.min(hop.mtu(), portMtu) : portMtu;
            }
        }
        final int[] templateGroup = templateGroups();
        final ServiceKey[] slotKeys = new ServiceKey[maxServices];
        for (final Map.Entry<VirtualService, Integer> entry : serviceSlots.entrySet())
        {
            slotKeys[entry.getValue()] = entry.getKey().key();
        }
        return new DataPlane(thisGeneration, classifier.build(), services, templateGroup, slotKeys, servers,
            serverService,
            new ServerAddresses(high, low, port, keepsPacketsPort), method, egress, mac, mtu, topology, timeouts,
            settings, marks,
            table.schedulerSettings().workers());
    }

    /**
     * @return each service slot's template group (0 for a free slot). A group number is never given to another key:
     *         a key pruned from the map gets a new one, its old templates then expire unused.
     */
    private int[] templateGroups()
    {
        if (templateGroups.size() > PRUNE_TEMPLATE_GROUPS_FACTOR * maxServices)
        {
            final Set<ServiceKey> held = new HashSet<>();
            for (final VirtualService service : serviceSlots.keySet())
            {
                held.add(service.key().persistenceKey());
            }
            templateGroups.keySet().retainAll(held);
        }
        final int[] groups = new int[maxServices];
        for (final Map.Entry<VirtualService, Integer> entry : serviceSlots.entrySet())
        {
            groups[entry.getValue()] = templateGroups.computeIfAbsent(entry.getKey().key().persistenceKey(),
                unused -> nextTemplateGroup++);
        }
        return groups;
    }

    private int serviceSlot(final VirtualService service)
    {
        final Integer existing = serviceSlots.get(service);
        if (existing != null)
        {
            return existing;
        }
        final int slot;
        if (!freeServiceSlots.isEmpty())
        {
            slot = freeServiceSlots.pop();
        }
        else if (nextServiceSlot < maxServices)
        {
            slot = nextServiceSlot++;
        }
        else
        {
            throw new IllegalStateException("more than " + maxServices + " virtual services");
        }
        serviceSlots.put(service, slot);
        return slot;
    }

    private int serverSlot(final RealServer server)
    {
        final Integer existing = serverSlots.get(server);
        if (existing != null)
        {
            return existing;
        }
        final int slot;
        if (!freeServerSlots.isEmpty())
        {
            slot = freeServerSlots.pop();
        }
        else if (nextServerSlot < maxServers)
        {
            slot = nextServerSlot++;
        }
        else
        {
            throw new IllegalStateException("more than " + (maxServers - 1) + " real servers");
        }
        serverSlots.put(server, slot);
        server.forwardingSlot(slot);
        return slot;
    }

    /**
     * Frees what the configuration no longer holds and nothing counts on any more.
     *
     * @param generation the snapshot being built.
     * @param oldest     the earliest generation a worker may still use.
     */
    private void releaseDeparted(final Map<VirtualService, Boolean> liveServices,
        final Map<RealServer, Boolean> liveServers, final long generation, final long oldest)
    {
        serverSlots.entrySet().removeIf(entry ->
        {
            final RealServer server = entry.getKey();
            if (liveServers.containsKey(server))
            {
                departedSince.remove(server);
                return false;
            }
            final long departed = departedSince.computeIfAbsent(server, departing -> generation);
            final boolean idle = idle(server);
            // A worker on a snapshot that still showed the server available can bind it after the counts
            // were read; once every worker is on a later snapshot, none can.
            if (idle && (epochs == null || oldest >= departed))
            {
                departedSince.remove(server);
                reserve(reservedServerSlots, freeServerSlots, entry.getValue(), generation - 1);
                serverOwner.remove(server);
                server.forwardingSlot(0);
                return true;
            }
            return false;
        });
        final Map<VirtualService, Boolean> referenced = new IdentityHashMap<>(liveServices);
        for (final VirtualService owner : serverOwner.values())
        {
            referenced.put(owner, Boolean.TRUE);
        }
        serviceSlots.entrySet().removeIf(entry ->
        {
            if (!referenced.containsKey(entry.getKey()))
            {
                reserve(reservedServiceSlots, freeServiceSlots, entry.getValue(), generation - 1);
                return true;
            }
            return false;
        });
    }

    /**
     * Frees a slot: at once without epochs, else once every worker is past the last snapshot that named it.
     */
    private void reserve(final List<Reserved> reserved, final Deque<Integer> free, final int slot, final long lastNamed)
    {
        if (epochs == null)
        {
            free.push(slot);
        }
        else
        {
            reserved.add(new Reserved(slot, lastNamed));
        }
    }

    private static void unreserve(final List<Reserved> reserved, final Deque<Integer> free, final long oldest)
    {
        for (final Iterator<Reserved> it = reserved.iterator(); it.hasNext(); )
        {
            final Reserved slot = it.next();
            if (oldest > slot.lastNamed())
            {
                free.push(slot.slot());
                it.remove();
            }
        }
    }
}
