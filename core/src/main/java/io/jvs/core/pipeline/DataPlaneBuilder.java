package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.conn.ServerAddresses;
import io.jvs.core.net.IpAddress;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Builds {@link DataPlane} snapshots on the control plane and keeps slots stable between them: a server
 * keeps its slot while it is configured, and after it is removed for as long as connections or
 * persistence templates still count on it, so an old connection never reaches a new server that
 * happens to take its slot; a service keeps its slot while it or any server that was in it holds one,
 * so counters never move to another service.
 */
public final class DataPlaneBuilder
{
    private final int maxServices;
    private final int maxServers;
    private final Map<RealServer, Integer> serverSlots = new IdentityHashMap<>();
    private final Map<RealServer, VirtualService> serverOwner = new IdentityHashMap<>();
    private final Map<VirtualService, Integer> serviceSlots = new IdentityHashMap<>();
    private final Deque<Integer> freeServerSlots = new ArrayDeque<>();
    private final Deque<Integer> freeServiceSlots = new ArrayDeque<>();
    private int nextServerSlot = 1;
    private int nextServiceSlot;

    /**
     * @param maxServices how many service slots exist.
     * @param maxServers  how many server slots exist, slot 0 unused (workers size their counters by both).
     */
    public DataPlaneBuilder(final int maxServices, final int maxServers)
    {
        if (maxServices < 1 || maxServers < 2)
        {
            throw new IllegalArgumentException("need at least 1 service slot and 2 server slots");
        }
        this.maxServices = maxServices;
        this.maxServers = maxServers;
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
     * @return a new snapshot.
     * @throws IllegalStateException when the configuration has more services or servers than slots.
     */
    public DataPlane build(
        final ServiceTable table, final Topology topology, final ConnectionTimeouts timeouts,
        final DataPlaneSettings settings)
    {
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
        releaseDeparted(liveServices, liveServers);

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
        final int[] method = new int[maxServers];
        final int[] egress = new int[maxServers];
        final long[] mac = new long[maxServers];
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
            method[slot] = server.forwardMethod().ordinal();
            final Topology.Neighbour hop = topology.resolve(address);
            if (hop != null)
            {
                egress[slot] = hop.port();
                mac[slot] = hop.mac();
            }
        }
        return new DataPlane(classifier.build(), services, servers, serverService,
            new ServerAddresses(high, low, port), method, egress, mac, topology, timeouts, settings,
            table.schedulerSettings().workers());
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

    private void releaseDeparted(final Map<VirtualService, Boolean> liveServices, final Map<RealServer, Boolean> liveServers)
    {
        serverSlots.entrySet().removeIf(entry ->
        {
            final RealServer server = entry.getKey();
            final boolean idle = server.totalConnections() == 0 && server.persistentConnections() == 0;
            if (!liveServers.containsKey(server) && idle)
            {
                freeServerSlots.push(entry.getValue());
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
                freeServiceSlots.push(entry.getValue());
                return true;
            }
            return false;
        });
    }
}
