package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.L4Headers;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlanePublisher;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;
import io.jvs.forwarder.port.FramePool;
import io.jvs.forwarder.port.Port;
import io.jvs.forwarder.port.memory.FrameSource;
import io.jvs.forwarder.port.memory.MemoryPort;
import io.jvs.forwarder.port.memory.TransmitObserver;
import io.jvs.forwarder.synth.HeaderWriter;
import io.jvs.nativebindings.Syscalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * A small NAT farm for the worker tests, set up as the daemon and replay set theirs up (rules through core's
 * parser, a {@link DataPlaneBuilder} snapshot, one {@link Pipeline} per worker): clients reach the VIP
 * 10.0.0.100:80 on port 0 from the router; the two real servers 192.168.1.1 and .2 (port 8080) sit behind
 * port 1. Also makes the frames the tests send, and closes every pool and ring it made.
 */
final class WorkerFarm implements AutoCloseable
{
    static final long PORT0_MAC = 0x02_00_00_00_00_10L;
    static final long PORT1_MAC = 0x02_00_00_00_00_11L;
    static final long ROUTER_MAC = 0x02_00_00_00_00_FEL;
    static final long SERVER_MAC_BASE = 0x02_00_00_00_01_00L;
    static final int VIP = IpAddress.parse("10.0.0.100").v4();
    static final int SERVER_PORT = 8080;
    static final int CLIENT_BASE = IpAddress.parse("100.64.0.0").v4();
    static final int BATCH = 64;

    private static final String[] RULES = {
        "-A -t 10.0.0.100:80 -s rr",
        "-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -m",
        "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m"};

    final int workers;
    final DataPlanePublisher publisher;
    /** The ICMP answers per second of the workers made from now on (none by default). */
    int icmpPerSecond;
    private final ServiceTable table;
    private final DataPlaneSettings settings;
    private final DataPlaneBuilder builder = new DataPlaneBuilder(4, 8);
    /** The snapshot's timeouts, shared: a test may shorten them. */
    final ConnectionTimeouts timeouts = new ConnectionTimeouts();
    final DaemonCounters counters;
    final Wakeup[] wakeups;
    /** rings[from][to]. */
    final HandoffRing[][] rings;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment scratch = arena.allocate(2048, 64);
    /** Port 1's MTU in the snapshots made from now on ({@link #serverPortMtu}). */
    private int serverPortMtu = 1500;

    WorkerFarm(final int workers, final int ringSlots) throws RuleException
    {
        this(workers, ringSlots, DataPlaneSettings.defaults());
    }

    /**
     * @param workers   workers the configuration is made for.
     * @param ringSlots slots of each hand-off ring, 0 for none.
     * @param settings  the pipeline's policy.
     */
    WorkerFarm(final int workers, final int ringSlots, final DataPlaneSettings settings) throws RuleException
    {
        this.workers = workers;
        this.table = new ServiceTable(new SchedulerSettings(SchedulerFlags.NONE, workers,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS));
        RulesFile.apply("farm.rules", RulesFile.parse("farm.rules", List.of(RULES)), table);
        this.settings = settings;
        this.publisher = new DataPlanePublisher(plane(true));
        this.counters = new DaemonCounters(workers);
        this.wakeups = new Wakeup[workers];
        this.rings = new HandoffRing[workers][workers];
        final Syscalls syscalls = Syscalls.create();
        for (int w = 0; w < workers; w++)
        {
            wakeups[w] = own(new Wakeup(syscalls));
            for (int to = 0; to < workers; to++)
            {
                if (to != w && ringSlots > 0)
                {
                    rings[w][to] = own(new HandoffRing(ringSlots));
                }
            }
        }
    }

    /**
     * @param serverNeighbours whether the servers' MACs are known; without, they are on an on-link route of port 1
     *                         and the frames for them have no next hop.
     */
    private DataPlane plane(final boolean serverNeighbours)
    {
        final Topology.Builder topology = new Topology.Builder()
            .port(0, PORT0_MAC, 1500, IpAddress.parse("10.0.0.1"), null)
            .port(1, PORT1_MAC, serverPortMtu, IpAddress.parse("192.168.1.254"), null)
            .gatewayV4(0, ROUTER_MAC)
            .route(IpPrefix.parse("192.168.1.0/24"), 1, Topology.Route.ON_LINK);
        for (int server = 1; serverNeighbours && server <= 2; server++)
        {
            topology.neighbour(IpAddress.parse("192.168.1." + server), 1, SERVER_MAC_BASE + server);
        }
        return builder.build(table, topology.build(), timeouts, settings);
    }

    /**
     * Publishes a snapshot in which the servers' MACs are known or not, as the conductor publishes one when the
     * kernel's neighbour table changes.
     */
    void serverNeighbours(final boolean known)
    {
        publisher.publish(plane(known));
    }

    /** Publishes a snapshot in which the servers' port 1 has this MTU. */
    void serverPortMtu(final int mtu)
    {
        serverPortMtu = mtu;
        publisher.publish(plane(true));
    }

    /** A worker's two ports, on pools of their own, port 1 showing what it sends to an observer. */
    MemoryPort[] ports(final FrameSource port0, final FrameSource port1, final TransmitObserver observer0,
        final TransmitObserver observer1)
    {
        final FramePool pool0 = own(new FramePool(512, FramePool.DEFAULT_BUFFER_SIZE, FramePool.DEFAULT_HEADROOM));
        final FramePool pool1 = own(new FramePool(512, FramePool.DEFAULT_BUFFER_SIZE, FramePool.DEFAULT_HEADROOM));
        return new MemoryPort[] {
            own(new MemoryPort(0, port0, pool0, 32, 1024, observer0)),
            own(new MemoryPort(1, port1, pool1, 32, 1024, observer1))};
    }

    /**
     * @param handsOff per port, whether its frames may be another worker's.
     * @param taps     per port, the host path or null.
     * @param policies per port, which passed frames the host missed.
     */
    Worker worker(final int index, final Port[] ports, final boolean[] handsOff, final FrameOwner owner,
        final HostTap[] taps, final HostPassPolicy[] policies)
    {
        final HandoffRing[] inbound = new HandoffRing[workers];
        for (int from = 0; from < workers; from++)
        {
            inbound[from] = rings[from][index];
        }
        final Pipeline pipeline = new Pipeline(publisher, index, 1 << 14, 1024, 4, 8, icmpPerSecond);
        return new Worker(index, ports, handsOff, pipeline, taps, policies, rings[index], inbound, wakeups,
            Syscalls.create(), () -> owner, counters, BATCH, null);
    }

    Worker worker(final int index, final Port[] ports, final boolean[] handsOff, final FrameOwner owner)
    {
        return worker(index, ports, handsOff, owner, new HostTap[ports.length], policies(ports.length,
            HostPassPolicy.NEVER));
    }

    static HostPassPolicy[] policies(final int ports, final HostPassPolicy policy)
    {
        final HostPassPolicy[] policies = new HostPassPolicy[ports];
        java.util.Arrays.fill(policies, policy);
        return policies;
    }

    /** Odd client addresses are worker 1's, even ones worker 0's (the frame's IPv4 source, last octet). */
    static int ownerByParity(final long address, final int length)
    {
        return Frames.u8(address + EthernetHeader.LENGTH + Ipv4Header.SOURCE_OFFSET + 3) & 1;
    }

    static int client(final int n)
    {
        return CLIENT_BASE + n;
    }

    /** A TCP segment from client n, port 10000 + n, to the VIP. */
    byte[] toVip(final int n, final int flags)
    {
        return tcp(PORT0_MAC, ROUTER_MAC, client(n), 10_000 + n, VIP, 80, flags);
    }

    /** A TCP segment between two endpoints. */
    byte[] tcp(final long destinationMac, final long sourceMac, final int source, final int sourcePort,
        final int destination, final int destinationPort, final int flags)
    {
        final long frame = scratch.address();
        final int l3 = HeaderWriter.ethernet(frame, destinationMac, sourceMac, -1, EthernetHeader.TYPE_IPV4);
        final long ip = frame + l3;
        final long l4 = ip + 20;
        final int segment = HeaderWriter.tcp(l4, sourcePort, destinationPort, 1000, 1, flags, 1460);
        HeaderWriter.ipv4(ip, 20 + segment, 1, 0x4000, HeaderWriter.TTL, Ipv4Header.PROTOCOL_TCP, source,
            destination);
        HeaderWriter.transportChecksum(ip, false, Ipv4Header.PROTOCOL_TCP, l4, segment);
        return Frames.read(frame, HeaderWriter.pad(frame, l3 + 20 + segment));
    }

    /**
     * A SYN from client n to the VIP carrying {@code payload} bytes (a pattern), with the IPv4 header's DF bit as
     * asked.
     */
    byte[] synWithData(final int n, final int payload, final boolean dontFragment)
    {
        final long frame = scratch.address();
        final int l3 = HeaderWriter.ethernet(frame, PORT0_MAC, ROUTER_MAC, -1, EthernetHeader.TYPE_IPV4);
        final long ip = frame + l3;
        final long l4 = ip + 20;
        final int header = HeaderWriter.tcp(l4, 10_000 + n, 80, 1000, 0, 0x02, 1460);
        for (int b = 0; b < payload; b++)
        {
            Frames.putU8(l4 + header + b, (b * 7 + n) & 0xFF);
        }
        HeaderWriter.ipv4(ip, 20 + header + payload, 7, dontFragment ? 0x4000 : 0, HeaderWriter.TTL,
            Ipv4Header.PROTOCOL_TCP, client(n), VIP);
        HeaderWriter.transportChecksum(ip, false, Ipv4Header.PROTOCOL_TCP, l4, header + payload);
        return Frames.read(frame, l3 + 20 + header + payload);
    }

    /** A UDP datagram from client n to an address and port of no service. */
    byte[] udpToNoService(final int n, final int destination, final int destinationPort)
    {
        final long frame = scratch.address();
        final int l3 = HeaderWriter.ethernet(frame, PORT0_MAC, ROUTER_MAC, -1, EthernetHeader.TYPE_IPV4);
        final long ip = frame + l3;
        final long l4 = ip + 20;
        final int segment = L4Headers.UDP_LENGTH + 12;
        HeaderWriter.udp(l4, 20_000 + n, destinationPort, segment);
        HeaderWriter.ipv4(ip, 20 + segment, 1, 0x4000, HeaderWriter.TTL, Ipv4Header.PROTOCOL_UDP, client(n),
            destination);
        HeaderWriter.transportChecksum(ip, false, Ipv4Header.PROTOCOL_UDP, l4, segment);
        return Frames.read(frame, HeaderWriter.pad(frame, l3 + 20 + segment));
    }

    <T extends AutoCloseable> T own(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    @Override
    public void close() throws Exception
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            resources.get(i).close();
        }
        arena.close();
    }
}
