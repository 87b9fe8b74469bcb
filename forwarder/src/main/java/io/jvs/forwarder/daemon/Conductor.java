package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlanePublisher;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.MarkRule;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import io.jvs.core.stats.RateEstimator;
import io.jvs.core.stats.TrafficLedger;
import io.jvs.forwarder.config.JvsConfig;
import io.jvs.nativebindings.Syscalls;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The one thread that changes anything (an Agrona {@link Agent}): it owns the {@link ServiceTable}, the
 * {@link DataPlaneBuilder} and the topology, applies reloads (and, through the same queue, the control socket's
 * commands), follows the kernel's routes and neighbours, and publishes each change as one new {@link DataPlane}
 * snapshot with one volatile store; workers read snapshots and never lock. Requests from other threads (the
 * signal handler, the control socket) are closures queued on a lock-free queue and run here in order.
 * <p>
 * What else follows a snapshot is kept in step here: the XDP and tcx programs' VIP, real-server and local maps,
 * and the owner function the AF_XDP workers hand frames over by.
 */
final class Conductor implements Agent
{
    /** Topology changes are published at most this often; notifications in between are gathered into one. */
    static final long REBUILD_PERIOD_NS = 50_000_000L;

    private final ManyToOneConcurrentArrayQueue<Consumer<Conductor>> requests =
        new ManyToOneConcurrentArrayQueue<>(1024);
    private final DataPlaneBuilder builder;
    private final DataPlanePublisher publisher;
    private final TopologySource topologySource;
    private final DataPlaneMaps maps;
    private final ConnectionTimeouts timeouts;
    private ServiceTable table;
    private DataPlaneSettings settings;
    private List<MarkRule> marks;
    /** The configuration in effect: the file the daemon started with, then each reload's that was applied. */
    private JvsConfig configuration;
    /**
     * The services the file manages: those the configuration in effect declares, less those a control command has
     * created since (after deleting them); the others in the table are control's, which a reload leaves alone.
     */
    private final Set<ServiceKey> fileServices = new LinkedHashSet<>();
    private boolean dirty;
    private long lastBuildNs;
    private long snapshots;
    private final List<Runnable> afterPublish = new ArrayList<>();
    /** Told the time at each of the conductor's rounds; each keeps its own period. */
    private final List<java.util.function.LongConsumer> periodic = new ArrayList<>();
    /** Where each worker records the snapshot it uses, or null (tests). */
    private io.jvs.core.pipeline.WorkerEpochs epochs;
    /** With {@code vip-arp on}: answers ARP and neighbour solicitations for the VIPs, announces new ones. */
    private VipAnnouncer announcer;
    private volatile Wakeup wakeup;
    private TrafficLedger ledger;
    private Wakeup[] workerWakeups;
    private Syscalls ownSyscalls;
    private long lastSampleNs;
    private Syscalls wakers;
    private Set<IpAddress> publishedVips = Set.of();
    /** Workers to conductor: next hops without a MAC (Worker.MISS_MESSAGE). */
    private final ManyToOneRingBuffer fromWorkers = new ManyToOneRingBuffer(new UnsafeBuffer(
        java.nio.ByteBuffer.allocateDirect((1 << 16) + RingBufferDescriptor.TRAILER_LENGTH)));

    Conductor(final ServiceTable table, final DataPlaneBuilder builder, final DataPlanePublisher publisher,
        final TopologySource topologySource, final DataPlaneMaps maps, final ConnectionTimeouts timeouts,
        final DataPlaneSettings settings, final List<MarkRule> marks, final JvsConfig configuration)
    {
        this.table = table;
        this.builder = builder;
        this.publisher = publisher;
        this.topologySource = topologySource;
        this.maps = maps;
        this.timeouts = timeouts;
        this.settings = settings;
        this.marks = List.copyOf(marks);
        this.configuration = configuration;
        // The table is the file's services at the start: control has made none yet.
        for (final VirtualService service : table.services())
        {
            fileServices.add(service.key());
        }
    }

    @Override
    public String roleName()
    {
        return "jvs-conductor";
    }

    /**
     * Builds the first snapshot (before any worker runs), from the calling thread.
     */
    static DataPlane firstSnapshot(final ServiceTable table, final DataPlaneBuilder builder,
        final TopologySource topologySource, final ConnectionTimeouts timeouts, final DataPlaneSettings settings,
        final List<MarkRule> marks)
    {
        return build(table, builder, topologySource, timeouts, settings, marks);
    }

    private static DataPlane build(final ServiceTable table, final DataPlaneBuilder builder,
        final TopologySource topologySource, final ConnectionTimeouts timeouts, final DataPlaneSettings settings,
        final List<MarkRule> marks)
    {
        final Topology topology = topologySource.topology(serverAddresses(table));
        return builder.build(table, topology, timeouts, settings, marks);
    }

    private static Set<IpAddress> serverAddresses(final ServiceTable table)
    {
        final Set<IpAddress> addresses = new LinkedHashSet<>();
        for (final RealServer server : table.allServers())
        {
            addresses.add(server.address());
        }
        return addresses;
    }

    /**
     * @return the addresses whose traffic the programs steer to jvs by destination: the VIPs of the table's
     *         address services, and the host destinations of {@code mark} statements (a fwmark service has no
     *         address of its own; a mark statement for one host names it).
     */
    static Set<IpAddress> virtualAddresses(final ServiceTable table, final List<MarkRule> marks)
    {
        final Set<IpAddress> addresses = new LinkedHashSet<>();
        for (final VirtualService service : table.services())
        {
            if (!service.key().isFirewallMark())
            {
                addresses.add(service.key().address());
            }
        }
        for (final MarkRule mark : marks)
        {
            if (mark.destination() != null && isHost(mark.destination()))
            {
                addresses.add(mark.destination().network());
            }
        }
        return addresses;
    }

    /**
     * @return the addresses whose traffic the programs steer to jvs by source: the real servers (their NAT
     *         replies), and the host sources of {@code mark} statements (the replies a fwmark service sends back
     *         through the firewall the request came by, as the firewall sandwich's inside box does).
     */
    static Set<IpAddress> sourceAddresses(final ServiceTable table, final List<MarkRule> marks)
    {
        final Set<IpAddress> addresses = serverAddresses(table);
        for (final MarkRule mark : marks)
        {
            if (mark.source() != null && isHost(mark.source()))
            {
                addresses.add(mark.source().network());
            }
        }
        return addresses;
    }

    /**
     * @return the networks wider than a host whose traffic the programs steer to jvs by destination, as a VIP's:
     *         the destination prefixes of {@code mark} statements (their host destinations are
     *         {@link #virtualAddresses}).
     */
    static Set<IpPrefix> destinationPrefixes(final List<MarkRule> marks)
    {
        final Set<IpPrefix> prefixes = new LinkedHashSet<>();
        for (final MarkRule mark : marks)
        {
            if (mark.destination() != null && !isHost(mark.destination()))
            {
                prefixes.add(mark.destination());
            }
        }
        return prefixes;
    }

    /**
     * @return the networks wider than a host whose traffic the programs steer to jvs by source, as a real
     *         server's: the source prefixes of {@code mark} statements (their host sources are
     *         {@link #sourceAddresses}).
     */
    static Set<IpPrefix> sourcePrefixes(final List<MarkRule> marks)
    {
        final Set<IpPrefix> prefixes = new LinkedHashSet<>();
        for (final MarkRule mark : marks)
        {
            if (mark.source() != null && !isHost(mark.source()))
            {
                prefixes.add(mark.source());
            }
        }
        return prefixes;
    }

    private static boolean isHost(final IpPrefix prefix)
    {
        return prefix.length() == (prefix.isV6() ? 128 : 32);
    }

    /**
     * Has the kernel resolve the next hops of {@code wanted} and waits for them, at most {@code timeoutNs}, before
     * a snapshot naming them is published: a worker that finds no MAC drops the frame, where the kernel would
     * queue it on the neighbour ({@code __neigh_event_send}) until the answer came, so without this wait the first
     * SYNs a server is given are lost and their clients wait a second for a retransmission. The caller publishes
     * afterwards (what this polls is not marked dirty). Conductor thread only, or before it runs.
     *
     * @param servers every server of the table (the topology is asked for their next hops).
     * @return those of {@code wanted} still without a next hop.
     */
    static Set<IpAddress> awaitNextHops(final TopologySource source, final Set<IpAddress> wanted,
        final Set<IpAddress> servers, final long timeoutNs)
    {
        final Set<IpAddress> missing = new LinkedHashSet<>(wanted);
        final long started = System.nanoTime();
        for (final IpAddress address : wanted)
        {
            source.resolve(address, started);
        }
        while (!missing.isEmpty())
        {
            source.poll(System.nanoTime());
            final Topology topology = source.topology(servers);
            missing.removeIf(address -> topology.resolve(address) != null);
            if (missing.isEmpty() || System.nanoTime() - started >= timeoutNs)
            {
                break;
            }
            LockSupport.parkNanos(1_000_000L);
        }
        return missing;
    }

    /** @return the addresses of the table's real servers. */
    static Set<IpAddress> serverAddressesOf(final ServiceTable table)
    {
        return serverAddresses(table);
    }

    /**
     * Queues work for the conductor's thread (any thread may call).
     *
     * @return false when the queue is full (the caller reports it busy).
     */
    boolean submit(final Consumer<Conductor> request)
    {
        final boolean queued = requests.offer(request);
        final Wakeup sleeping = wakeup;
        if (queued && sleeping != null)
        {
            // Submitters are control and signal threads, never a worker: they share one set of bindings.
            synchronized (wakers)
            {
                sleeping.wake(wakers);
            }
        }
        return queued;
    }

    /**
     * Gives the conductor a wake-up for its idle sleep (before it runs): {@link #submit} writes it, and so may a
     * worker after reporting a miss.
     *
     * @param wakeup the eventfd in the conductor's poll set.
     * @param wakers the bindings {@link #submit}'s callers write it with.
     */
    void wakeup(final Wakeup wakeup, final Syscalls wakers)
    {
        this.wakers = wakers;
        this.wakeup = wakeup;
    }

    /**
     * Gives the conductor the services' and servers' traffic figures to keep (before it runs): it shows each
     * snapshot to them and samples their rates every two seconds.
     */
    void ledger(final TrafficLedger ledger, final long nowNs)
    {
        this.ledger = ledger;
        this.lastSampleNs = nowNs;
        ledger.observe(publisher.current());
    }

    /** @return the traffic figures (conductor thread only), or null before {@link #ledger} set them. */
    TrafficLedger ledger()
    {
        return ledger;
    }

    /**
     * @param wakeups the workers' wake-ups, for {@link #awaitWorkersOnCurrent} (set before the conductor runs).
     * @param own     the bindings of the conductor's thread.
     */
    void workerWakeups(final Wakeup[] wakeups, final Syscalls own)
    {
        this.workerWakeups = wakeups.clone();
        this.ownSyscalls = own;
    }

    /** @return whether a request or a worker's message waits (any thread; the idle sleep's last look). */
    boolean hasInput()
    {
        return !requests.isEmpty() || fromWorkers.size() > 0;
    }

    /** @return the descriptors whose input is the conductor's work: rtnetlink, the announcer's sockets. */
    int[] descriptors()
    {
        final int[] topology = topologySource.descriptors();
        final int[] announcing = announcer == null ? new int[0] : announcer.descriptors();
        final int[] all = java.util.Arrays.copyOf(topology, topology.length + announcing.length);
        System.arraycopy(announcing, 0, all, topology.length, announcing.length);
        return all;
    }

    /**
     * Runs {@code request} on the conductor's thread and returns its result.
     */
    <T> CompletableFuture<T> call(final java.util.function.Function<Conductor, T> request)
    {
        final CompletableFuture<T> result = new CompletableFuture<>();
        final boolean queued = submit(conductor ->
        {
            try
            {
                result.complete(request.apply(conductor));
            }
            catch (final RuntimeException ex)
            {
                result.completeExceptionally(ex);
            }
        });
        if (!queued)
        {
            result.completeExceptionally(new IllegalStateException("the conductor is busy; try again"));
        }
        return result;
    }

    @Override
    public int doWork()
    {
        int work = requests.drain(request -> request.accept(this));
        final long now = System.nanoTime();
        work += fromWorkers.read((type, buffer, offset, length) ->
        {
            if (type == Worker.MISS_MESSAGE && length == Worker.MISS_LENGTH)
            {
                final boolean v6 = buffer.getLong(offset) != 0;
                final long high = buffer.getLong(offset + 8);
                final long low = buffer.getLong(offset + 16);
                topologySource.resolve(v6 ? IpAddress.ofV6(high, low) : IpAddress.ofV4((int)low), now);
            }
            else if (type == Worker.PATH_MTU_MESSAGE && length == Worker.PATH_MTU_LENGTH &&
                topologySource.learnPathMtu(IpAddress.ofV4(buffer.getInt(offset)), buffer.getInt(offset + 4), now))
            {
                dirty = true;
            }
        });
        if (announcer != null)
        {
            work += announcer.poll(publishedVips);
        }
        if (topologySource.poll(now))
        {
            dirty = true;
        }
        if (dirty && now - lastBuildNs >= REBUILD_PERIOD_NS)
        {
            publish(now);
            work++;
        }
        for (final java.util.function.LongConsumer task : periodic)
        {
            task.accept(now);
        }
        if (ledger != null && now - lastSampleNs >= RateEstimator.INTERVAL_NS)
        {
            // The kernel's estimator ticks every two seconds whatever else it does (ip_vs_est.c).
            lastSampleNs = now;
            ledger.sample();
        }
        return work;
    }

    /**
     * Publishes a new snapshot of the current table, topology and policy (conductor thread only), and brings the
     * programs' maps in step: VIPs (and marked addresses and networks) are added before the snapshot naming them
     * is published, and removed after.
     */
    void publish(final long now)
    {
        final DataPlane next = build(table, builder, topologySource, timeouts, settings, marks);
        final Set<IpAddress> vips = virtualAddresses(table, marks);
        // A deleted service's connections, and a removed server's, keep the packets they had (ip_vs_in_hook and
        // ip_vs_out_hook find a connection before any service), so the programs keep steering the addresses of the
        // services and servers whose slots are held for them: left to the kernel, a VIP's packets were reset.
        final Set<IpAddress> steered = new LinkedHashSet<>(vips);
        steered.addAll(builder.departedServiceAddresses(table));
        final Set<IpAddress> sources = sourceAddresses(table, marks);
        sources.addAll(builder.departedServerAddresses());
        final Set<IpPrefix> destinationPrefixes = destinationPrefixes(marks);
        final Set<IpPrefix> sourcePrefixes = sourcePrefixes(marks);
        maps.update(steered, sources, topologySource.localAddresses(), destinationPrefixes, sourcePrefixes, true);
        publisher.publish(next);
        topologySource.published();
        if (ledger != null)
        {
            ledger.observe(next);
        }
        maps.update(steered, sources, topologySource.localAddresses(), destinationPrefixes, sourcePrefixes, false);
        publishedVips = Set.copyOf(vips);
        if (announcer != null)
        {
            announcer.announceAppeared(publishedVips);
        }
        for (final Runnable action : afterPublish)
        {
            action.run();
        }
        lastBuildNs = now;
        dirty = false;
        snapshots++;
    }

    /**
     * @param announcer answers for the VIPs from now on (set before the conductor runs); it announces the current
     *                  ones at once.
     */
    void announcer(final VipAnnouncer announcer, final Set<IpAddress> vips)
    {
        this.announcer = announcer;
        this.publishedVips = Set.copyOf(vips);
        announcer.announceAppeared(publishedVips);
    }

    /** An interface's MAC changed: the VIPs' answers and announcements come from the new one. */
    void portMacChanged(final int port, final long mac)
    {
        if (announcer != null)
        {
            announcer.mac(port, mac);
        }
    }

    /**
     * An interface's device was made again and its ports opened on it: the VIPs' answers and announcements follow
     * it too (the conductor's thread).
     */
    void portReopened(final int port, final int ifindex, final long mac)
    {
        if (announcer != null)
        {
            try
            {
                announcer.reopen(port, ifindex, mac);
            }
            catch (final RuntimeException ex)
            {
                DaemonLog.warning("port " + port + ": the VIP announcer's sockets stay on the removed device " +
                    "(no answers for the VIPs on it): " + ex.getMessage());
            }
        }
    }

    void epochs(final io.jvs.core.pipeline.WorkerEpochs epochs)
    {
        this.epochs = epochs;
    }

    /**
     * Waits until every worker has begun a burst (or an idle sweep) with the current snapshot or a later one, at
     * most {@code timeoutNs}: after it, nothing a worker does uses an older one. An idle worker records its
     * snapshot at least every {@link WorkerIdleStrategy#SLEEP_MS}.
     *
     * @return whether they all did in time.
     */
    boolean awaitWorkersOnCurrent(final long timeoutNs)
    {
        if (epochs == null)
        {
            return true;
        }
        final long generation = publisher.current().generation();
        final long deadline = System.nanoTime() + timeoutNs;
        // A sleeping worker would take the snapshot only when its sleep ends: wake them (each wake is written only
        // to a worker that said it sleeps).
        if (workerWakeups != null)
        {
            for (final Wakeup worker : workerWakeups)
            {
                worker.wake(ownSyscalls);
            }
        }
        while (epochs.oldest() < generation)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(200_000L);
        }
        return true;
    }

    /**
     * Frees the slots of removed services and servers that only wait for the workers to move past the snapshots that
     * named them: a build frees such a slot once every worker uses a snapshot built after the one that first left it
     * out, so a daemon that publishes nothing after a removal would keep them until its next change. Up to two
     * publications of the unchanged table, each once the workers use the current one (at most {@code timeoutNs}
     * each); for a change that would not fit otherwise. Slots that connections or templates still count on stay
     * held.
     */
    void releaseSlotsTheWorkersHavePassed(final long timeoutNs)
    {
        for (int build = 0; build < 2 && builder.holdsSlotsForTheWorkers(); build++)
        {
            awaitWorkersOnCurrent(timeoutNs);
            publish(System.nanoTime());
        }
    }

    /** Runs after every publication (the daemon refreshes the workers' owner function). */
    /** Runs {@code task} with the time at each round from now on (set before the conductor runs). */
    void periodically(final java.util.function.LongConsumer task)
    {
        periodic.add(task);
    }

    void afterPublish(final Runnable action)
    {
        afterPublish.add(action);
    }

    /** Something changed that the next duty cycle must publish. */
    void markDirty()
    {
        dirty = true;
    }

    /** @return where workers report to the conductor. */
    ManyToOneRingBuffer fromWorkers()
    {
        return fromWorkers;
    }

    ServiceTable table()
    {
        return table;
    }

    DataPlaneSettings settings()
    {
        return settings;
    }

    void settings(final DataPlaneSettings settings)
    {
        this.settings = settings;
    }

    void marks(final List<MarkRule> marks)
    {
        this.marks = List.copyOf(marks);
    }

    List<MarkRule> marks()
    {
        return marks;
    }

    /**
     * @return the configuration in effect, what a reload is compared with (a reload's own, once applied, rather
     *         than the start's: a second reload that undoes the first is a change).
     */
    JvsConfig configuration()
    {
        return configuration;
    }

    void configuration(final JvsConfig configuration)
    {
        this.configuration = configuration;
    }

    /** @return the services the file manages (see {@link #fileServices(Set)}); do not modify it. */
    Set<ServiceKey> fileServices()
    {
        return java.util.Collections.unmodifiableSet(fileServices);
    }

    /**
     * @param declared the services the configuration a reload applied declares: from now on the file manages those
     *                 and only those.
     */
    void fileServices(final Set<ServiceKey> declared)
    {
        fileServices.clear();
        fileServices.addAll(declared);
    }

    /**
     * A control command created the service {@code key} (it did not exist, so one the file declares was deleted
     * first): it is control's now, and a reload whose file no longer declares it leaves it alone.
     */
    void createdByControl(final ServiceKey key)
    {
        fileServices.remove(key);
    }

    /** @return the builder of the snapshots, for what its slots still hold (conductor thread only). */
    DataPlaneBuilder builder()
    {
        return builder;
    }

    ConnectionTimeouts timeouts()
    {
        return timeouts;
    }

    TopologySource topologySource()
    {
        return topologySource;
    }

    long snapshots()
    {
        return snapshots;
    }

    DataPlane current()
    {
        return publisher.current();
    }

    @Override
    public void onClose()
    {
        topologySource.close();
    }
}
