package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.conn.ServerAddresses;
import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Frames;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import io.jvs.core.service.VirtualService;

import java.util.ArrayList;
import java.util.List;

/**
 * One immutable snapshot of everything the workers read per packet: the classifier, the services and
 * real servers by slot with their next hops resolved, the ports, the timeouts and the policy.
 * <p>
 * The control plane builds a new snapshot ({@link DataPlaneBuilder}) whenever the configuration or the
 * topology changes and publishes it with one volatile store; a worker reads the reference once per
 * burst. A server keeps its slot across snapshots for as long as connections refer to it.
 * <p>
 * What a worker reads of the configuration per packet is copied here when the snapshot is built: each
 * service's settings, each server's forwarding method and whether it is available or quiesced; the
 * live objects change under the conductor. Only the schedulers read live state (weights, connection
 * counts), through their own lock-free protocol.
 */
public final class DataPlane
{
    /** Egress port value of a server whose next hop is not known. */
    public static final int NO_PORT = -1;

    final long generation;
    final ServiceClassifier classifier;
    final VirtualService[] services;
    /** Each service's settings as they were when the snapshot was built, by service slot (null when empty). */
    final ServiceSettings[] serviceSettings;
    /**
     * Each service slot's {@link io.jvs.core.conn.ServerAddresses#PACKETS_PORT} or 0: whether its new connections go
     * to the packet's own port whatever their server's port, as a persistent service of port 0 or of a firewall mark
     * sends them (ip_vs_sched_persist gives the server's port only when the packet came to the service's port,
     * {@code dport == svc->port && dest->port}, which it never does there). Other services' connections take the
     * server's port, or the packet's when the server has none (ip_vs_schedule's {@code dest->port ? dest->port :
     * vport}).
     */
    final int[] servicePortKey;
    /**
     * Each service slot's persistence templates' number in the template table's keys: one per
     * {@link io.jvs.core.service.ServiceKey#persistenceKey}, the same for a service deleted and created again.
     */
    final int[] templateGroup;
    /**
     * Each service slot's key, for the services of the table and for those deleted whose slot their servers'
     * connections or templates still hold (null for a free slot).
     */
    final ServiceKey[] slotKeys;
    final RealServer[] servers;
    final int[] serverService;
    final ServerAddresses serverAddresses;
    final int[] forwardMethod;
    final boolean[] serverV6;
    /** Whether each slot's server is still in its service: a copy of AVAILABLE, read without a pointer chase. */
    final boolean[] serverAvailable;
    /**
     * What the {@link #FAST_PATH_FLAGS} of a connection must be for the established fast loop to forward it to each
     * slot's server: the server is in its service, the connection is not tunnelled, and its {@link
     * ConnectionTable#FLAG_PACKETS_PORT} is what the server's service gives new connections now, so that {@link
     * ServerAddresses#portBySlotRule} is its port; {@link #NO_FAST_PATH} for a server no longer in its service.
     */
    final byte[] serverFastPathFlags;
    /** The entry flags {@link #serverFastPathFlags} is compared with: tunnelling's method bit and the port's rule. */
    static final int FAST_PATH_FLAGS = ConnectionTable.methodFlags(2) | ConnectionTable.FLAG_PACKETS_PORT;
    /** A value no entry's {@link #FAST_PATH_FLAGS} can have. */
    static final int NO_FAST_PATH = -1;
    /** Whether each slot's server had weight 0 when the snapshot was built. */
    final boolean[] serverQuiesced;
    final int[] serverEgressPort;
    final long[] serverNextHopMac;
    /**
     * The Ethernet addresses a frame to each slot's server carries, its next hop's then its egress port's, as the two
     * native stores that write them (Rewriter.setServerMacs): the first 8 bytes and the last 4, already in network
     * order, so that the per-packet rewrite is two loads and two stores. 0 for a server without an egress port.
     */
    final long[] serverMacsHead;
    final int[] serverMacsTail;
    /**
     * The MTU towards each slot's server: its egress port's, or its route's when that is less (0 without a next
     * hop).
     */
    final int[] serverMtu;
    final long[] portMac;
    final int[] portMtu;
    /** The routes' own MTUs, for packets towards clients. */
    final RouteMtus clientRouteMtus;
    /**
     * The longest frame that fits every port and every route (to a server or a client): the least MTU and an untagged
     * Ethernet header (0 without ports), which the established fast loop compares each frame's length with.
     */
    final int fastPathFrameLimit;
    final int[] portIpv4;
    final long[] portIpv6High;
    final long[] portIpv6Low;
    final Topology topology;
    final NeighbourIndex clientNeighbours;
    final List<MarkRule> markRules;
    final MarkTable marks;
    final ConnectionTimeouts timeouts;
    final DataPlaneSettings settings;
    /** How many workers the schedulers were made for (each worker's index must be below it). */
    final int workers;

    DataPlane(
        final long generation,
        final ServiceClassifier classifier,
        final VirtualService[] services,
        final int[] templateGroup,
        final ServiceKey[] slotKeys,
        final RealServer[] servers,
        final int[] serverService,
        final ServerAddresses serverAddresses,
        final int[] forwardMethod,
        final int[] serverEgressPort,
        final long[] serverNextHopMac,
        final int[] serverMtu,
        final Topology topology,
        final ConnectionTimeouts timeouts,
        final DataPlaneSettings settings,
        final List<MarkRule> markRules,
        final int workers)
    {
        this.generation = generation;
        this.workers = workers;
        this.classifier = classifier;
        this.services = services;
        this.serviceSettings = new ServiceSettings[services.length];
        for (int slot = 0; slot < services.length; slot++)
        {
            serviceSettings[slot] = services[slot] == null ? null : services[slot].settings();
        }
        this.servicePortKey = new int[services.length];
        for (int slot = 0; slot < services.length; slot++)
        {
            servicePortKey[slot] = keepsPacketsPort(services[slot]) ? ServerAddresses.PACKETS_PORT : 0;
        }
        this.templateGroup = templateGroup;
        this.slotKeys = slotKeys;
        this.servers = servers;
        this.serverService = serverService;
        this.serverAddresses = serverAddresses;
        this.forwardMethod = forwardMethod;
        this.serverV6 = new boolean[servers.length];
        this.serverAvailable = new boolean[servers.length];
        this.serverQuiesced = new boolean[servers.length];
        this.serverFastPathFlags = new byte[servers.length];
        for (int slot = 0; slot < servers.length; slot++)
        {
            serverV6[slot] = servers[slot] != null && servers[slot].address().isV6();
            serverAvailable[slot] = servers[slot] != null && servers[slot].isAvailable();
            serverQuiesced[slot] = servers[slot] != null && servers[slot].weight() == 0;
            serverFastPathFlags[slot] = (byte)(!serverAvailable[slot] ? NO_FAST_PATH :
                serverAddresses.keepsPacketsPort(slot) ? ConnectionTable.FLAG_PACKETS_PORT : 0);
        }
        this.serverEgressPort = serverEgressPort;
        this.serverNextHopMac = serverNextHopMac;
        this.serverMtu = serverMtu;
        this.topology = topology;
        this.timeouts = timeouts;
        this.settings = settings;
        final int ports = topology.ports().size();
        portMac = new long[ports];
        portMtu = new int[ports];
        portIpv4 = new int[ports];
        portIpv6High = new long[ports];
        portIpv6Low = new long[ports];
        for (final Topology.Port port : topology.ports())
        {
            portMac[port.index()] = port.mac();
            portMtu[port.index()] = port.mtu();
            portIpv4[port.index()] = port.ipv4() == null ? 0 : port.ipv4().v4();
            portIpv6High[port.index()] = port.ipv6() == null ? 0 : port.ipv6().high();
            portIpv6Low[port.index()] = port.ipv6() == null ? 0 : port.ipv6().low();
        }
        serverMacsHead = new long[serverEgressPort.length];
        serverMacsTail = new int[serverEgressPort.length];
        for (int slot = 0; slot < serverEgressPort.length; slot++)
        {
            if (serverEgressPort[slot] != NO_PORT)
            {
                final long source = portMac[serverEgressPort[slot]];
                serverMacsHead[slot] = Frames.inNetworkOrder(serverNextHopMac[slot] << 16 | source >>> 32);
                serverMacsTail[slot] = Frames.inNetworkOrder((int)source);
            }
        }
        int leastMtu = ports == 0 ? 0 : Integer.MAX_VALUE;
        for (final int mtu : portMtu)
        {
            leastMtu = Math.min(leastMtu, mtu);
        }
        for (int slot = 0; slot < serverMtu.length; slot++)
        {
            if (serverEgressPort[slot] != NO_PORT)
            {
                leastMtu = Math.min(leastMtu, serverMtu[slot]);
            }
        }
        clientRouteMtus = RouteMtus.of(topology.distinctRoutes());
        leastMtu = Math.min(leastMtu, clientRouteMtus.least());
        fastPathFrameLimit = ports == 0 ? 0 : leastMtu + io.jvs.core.packet.EthernetHeader.LENGTH;
        clientNeighbours = new NeighbourIndex(topology);
        this.markRules = markRules == null ? List.of() : List.copyOf(markRules);
        this.marks = this.markRules.isEmpty() ? MarkTable.EMPTY : new MarkTable(this.markRules);
    }

    /**
     * Whether a connection of {@code service} goes to the packet's own port whatever its server's port: a persistent
     * service of port 0 or of a firewall mark, where ip_vs_sched_persist gives the connection the server's port only
     * when the packet's port is the service's ({@code dport == svc->port && dest->port}), which it never is. Other
     * services take the server's port, or the packet's when the server has none (ip_vs_schedule's
     * {@code dest->port ? dest->port : vport}).
     */
    static boolean keepsPacketsPort(final VirtualService service)
    {
        return service != null && service.settings().persistent() && service.key().port() == 0;
    }

    /**
     * @return this snapshot's place in its builder's sequence: every build gets a later one (from 1), so
     *         workers can say which snapshot they use ({@link WorkerEpochs}).
     */
    public long generation()
    {
        return generation;
    }

    /**
     * @return the settings of the service in a slot as this snapshot has them, or null for an empty slot.
     */
    public ServiceSettings serviceSettings(final int slot)
    {
        return serviceSettings[slot];
    }

    /**
     * @return the addresses of this snapshot's servers that have no next hop (their frames are dropped as
     *         no-neighbour until a snapshot has one), for the conductor to ask the kernel to resolve.
     */
    public List<IpAddress> unresolvedServers()
    {
        final List<IpAddress> unresolved = new ArrayList<>();
        for (int slot = 1; slot < servers.length; slot++)
        {
            if (servers[slot] != null && serverEgressPort[slot] == NO_PORT)
            {
                unresolved.add(servers[slot].address());
            }
        }
        return unresolved;
    }

    /**
     * @return the mark rules this snapshot applies, in order.
     */
    public List<MarkRule> markRules()
    {
        return markRules;
    }

    /**
     * @return how many workers this configuration's schedulers serve.
     */
    public int workers()
    {
        return workers;
    }

    public DataPlaneSettings settings()
    {
        return settings;
    }

    public ConnectionTimeouts timeouts()
    {
        return timeouts;
    }

    public Topology topology()
    {
        return topology;
    }

    /**
     * @return the services by slot.
     */
    public VirtualService service(final int slot)
    {
        return services[slot];
    }

    /**
     * @return the key of the service in a slot: one of the table's, or a deleted one whose slot is still held for
     *         its servers' connections and templates; null for a free slot.
     */
    public ServiceKey serviceKey(final int slot)
    {
        return slotKeys[slot];
    }

    public int serviceCount()
    {
        return services.length;
    }

    /**
     * @return the server in a slot, or null.
     */
    public RealServer server(final int slot)
    {
        return slot > 0 && slot < servers.length ? servers[slot] : null;
    }

    /**
     * @param serverSlot a server's slot.
     * @param portKey    the connection's {@link io.jvs.core.conn.ConnectionTable#portKey}.
     * @return the port the connection's packets go to on that server, as the kernel fixes a connection's
     *         {@code cp->dport} when it makes it.
     */
    public int serverPort(final int serverSlot, final int portKey)
    {
        return serverAddresses.port(serverSlot, portKey);
    }

    /**
     * @param serverSlot a server slot of this snapshot.
     * @return the slot of the service the server belongs to.
     */
    public int serviceOfServer(final int serverSlot)
    {
        return serverService[serverSlot];
    }

    /**
     * @return the number of server slots (slot 0 is never used).
     */
    public int serverSlots()
    {
        return servers.length;
    }

    /**
     * @return the slot of a server of this snapshot, or 0.
     */
    public int slotOf(final RealServer server)
    {
        for (int slot = 1; slot < servers.length; slot++)
        {
            if (servers[slot] == server)
            {
                return slot;
            }
        }
        return 0;
    }

    ForwardMethod forwardMethod(final int slot)
    {
        return ForwardMethod.values()[forwardMethod[slot]];
    }
}
