package io.jvs.core.pipeline;

import io.jvs.core.concurrent.SharedKeyTable;
import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.conn.TcpStates;
import io.jvs.core.memory.CachePrefetch;
import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.Protocol;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.L4Headers;
import io.jvs.core.packet.PacketParser;
import io.jvs.core.packet.ParsedBurst;
import io.jvs.core.packet.Verdict;
import io.jvs.core.sched.Scheduler;
import io.jvs.core.sched.SchedulingContext;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceSettings;
import io.jvs.core.service.VirtualService;
import io.jvs.core.stats.TrafficStats;
import org.HdrHistogram.Histogram;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import static io.jvs.core.packet.ParsedBurst.*;

/**
 * One worker's data path: a burst of frames in, a verdict and a rewritten frame per packet out.
 * <p>
 * {@link #process} runs in two passes. The first parses every frame, classifies it and notes the
 * connection-table line it will need; the lines of each group of frames are prefetched together as soon as the group
 * is parsed ({@link CachePrefetch}), so the cache misses of a burst overlap instead of queueing one behind another,
 * and the first start while the rest are parsed. The second handles each packet: an
 * existing connection is followed (its TCP state moved, its idle timer re-armed); a packet that may open one is
 * scheduled, counted on its server and entered in the table; then the frame is rewritten for NAT, direct routing or
 * the tunnel and gets its verdict. The bulk of a burst, packets on live connections, goes through a loop without
 * calls ({@link #followEstablished}); the first frame that needs more goes to {@link #handle}, and
 * the loop takes over again after it. Then a few table slots are swept for expired entries.
 * <p>
 * Single-threaded: each worker has its own pipeline, connection tables and counters; what it shares
 * (schedulers, server counters, the persistence templates, the snapshot) is lock-free. Nothing on this
 * path locks, allocates or throws. Of the configuration it reads only the snapshot (the schedulers read
 * their servers' live weights and counts); with {@link WorkerEpochs} it records which snapshot it uses
 * before each burst and each idle sweep, so the conductor knows when no worker can name a freed slot.
 * <p>
 * Before a frame is classified, the snapshot's {@link MarkRule}s give a frame without a firewall mark
 * the mark of the first rule it matches. Frames dropped for want of a next hop leave the address they
 * needed in {@link #neighbourMisses()}, for the worker to pass on after the burst; a worker that keeps such frames
 * until the address resolves runs them again through {@link #processAgain}, which does not count their packets a
 * second time.
 */
public final class Pipeline
{
    /** Latencies above this (one minute) are recorded as this. */
    public static final long MAX_LATENCY_NS = 60_000_000_000L;
    /** {@link #openedServer}: the frame opened no connection and did not try to. */
    public static final int OPENED_NONE = 0;
    /** {@link #enter} found no server: as {@link #openedServer} records a refusal. */
    private static final int REFUSED_NO_SERVER = refused(DropReason.NO_SERVER);
    /** {@link #enter} found no room in the connection table: as {@link #openedServer} records a refusal. */
    private static final int REFUSED_TABLE_FULL = refused(DropReason.CONNECTION_TABLE_FULL);
    /** {@link #enter}'s flags for a connection an ICMP error opens: no TCP flags move its state. */
    private static final int QUOTED = -1;
    /** A new entry's life before any packet moves its state (ip_vs_conn_new), in ticks. */
    private static final int NEW_ENTRY_TICKS =
        (int)(ConnectionTimeouts.NEW_ENTRY_MS / (ConnectionTable.TICK_NS / 1_000_000L));

    private final DataPlanePublisher publisher;
    private final int workerIndex;
    private final WorkerEpochs epochs;
    /** The generation {@link #followSnapshot} last recorded. */
    private long followed = -1;
    private final NeighbourMisses misses = new NeighbourMisses();
    private final PathMtuReports pathMtus = new PathMtuReports();
    private final PacketParser parser;
    private final PacketParser strictParser;
    private final PacketParser optionsOnlyParser;
    private final PacketParser fragmentsOnlyParser;
    private final ParsedBurst parsed = new ParsedBurst(FrameBurst.MAX_FRAMES);
    private final int[] pending = new int[FrameBurst.MAX_FRAMES];
    /**
     * The servers whose counts the last run of {@link #followEstablished} moved, one a frame whose connection changed
     * between active and inactive: the slot when it became active, its complement when it became inactive. Counted by
     * {@link #countFastRun}, before any frame goes to the general path, whose scheduling reads the counts.
     */
    private final int[] activityChanges = new int[FrameBurst.MAX_FRAMES];
    private int activityChangeCount;
    private final int[] serviceOf = new int[FrameBurst.MAX_FRAMES];
    private final int[] homes = new int[FrameBurst.MAX_FRAMES];
    /**
     * The last frame {@link #followEstablished} looked up, and the slot that lookup gave, so that {@link
     * #towardsServer} does not look the same key up again when the loop stopped at that frame (a new connection's
     * lookup walks the whole probe run); -1 when the loop stopped before a lookup or went to the burst's end. Nothing
     * between the loop stopping and towardsServer touches the table, so the table's memory of where an insert goes
     * still holds.
     */
    private int lookedUpFrame = -1;
    private int lookedUpSlot;
    /** {@link #followEstablished}'s note that it stopped before a lookup: no slot a lookup gives. */
    private static final int NOT_LOOKED_UP = Integer.MIN_VALUE;
    /**
     * The frame after the one the fast loop stopped at, and the slot its lookup compares first (or {@link #NO_PROBE}),
     * found before the loop stopped: where the loop starts again after the general path takes one frame. -1 before a
     * burst's first loop (a slot of another burst may be in another table).
     */
    private int probedAheadFrame = -1;
    private int probedAheadSlot;
    /**
     * The counts of the fast loop's last run that it leaves for {@link #countFastRun}: the frames it gave the parser's
     * verdict, and its last service's forwarded packets, IP bytes and frame bytes. Counted outside the loop because
     * every method C2 inlines into the loop counts against one budget for all of it (DesiredMethodLimit, not settable
     * in a product JVM), and past it the loop's own per-frame calls stop being inlined.
     */
    private int fastRunParserVerdicts;
    private int fastRunService = -1;
    private int fastRunPackets;
    private long fastRunBytes;
    private long fastRunFrameBytes;
    /** No slot to compare first: the lookup probes from the home slot. */
    private static final int NO_PROBE = -2;
    /**
     * One address a frame, where its home slot is, or the frame itself when it has none: the lines the burst
     * prefetches, as native longs off the heap, where a native prefetch can read them.
     */
    private final UnsafeBuffer prefetchAddresses =
        new UnsafeBuffer(BufferUtil.allocateDirectAligned(FrameBurst.MAX_FRAMES * PREFETCH_STRIDE, 64));
    private final long prefetchBase = prefetchAddresses.addressOffset();
    private static final int PREFETCH_STRIDE = Long.BYTES;
    /**
     * Frames whose home lines are prefetched together, in the first pass over a burst: the first group's misses start
     * sooner the smaller it is, while each group costs a downcall (8 measured best on the Intel host, 16 and 8 alike on
     * the AMD one: perf/RESULTS.md).
     */
    private static final int PREFETCH_GROUP = 8;
    private final CachePrefetch prefetch;
    /**
     * Whether each burst's frames arrive out of this core's caches ({@link #framesArriveCold}); then the first pass
     * starts by prefetching their header lines, named here one address a line.
     */
    private boolean framesArriveCold;
    private static final int CACHE_LINE = BitUtil.CACHE_LINE_LENGTH;
    private final UnsafeBuffer headerLines =
        new UnsafeBuffer(BufferUtil.allocateDirectAligned(2 * FrameBurst.MAX_FRAMES * PREFETCH_STRIDE, 64));
    private final long headerLinesBase = headerLines.addressOffset();
    private final int[] opened = new int[FrameBurst.MAX_FRAMES];
    private final ConnectionTable v4;
    private final ConnectionTable v6;
    private final FragmentTable fragments = new FragmentTable(1024);
    private final Rewriter rewriter = new Rewriter(misses);
    private final IcmpErrors icmpErrors;
    private final TemplateTable templates;
    private final TemplateTable.Sweeper templateSweeper;
    private final IcmpResponder icmp;
    private final WorkerCounters counters;
    private final TrafficStats traffic;
    private final Histogram latency = new Histogram(MAX_LATENCY_NS, 2);
    private final FlowTuple flow = new FlowTuple();
    private final SchedulingContext context;

    /**
     * Whether the burst being processed is one {@link #processAgain} took: its packets are already in IPVS's counts.
     */
    private boolean again;
    /** The snapshot of the burst being processed (the removal listener needs it). */
    private DataPlane plane;
    private long nowNs;
    private int nowTick;
    /** The burst's timeouts in ticks, TCP states then UDP at {@link TcpStates#COUNT}: the snapshot's, as published. */
    private int[] timeoutTicks;
    /** The method of the connection {@link #enter} last made. */
    private int enteredMethod;
    /** The port key of the connection {@link #enter} last made, as {@link ConnectionTable#portKey} gives one. */
    private int enteredPortKey;

    /** Each connection table is swept end to end this often. */
    public static final long SWEEP_PERIOD_NS = 1_000_000_000L;

    /**
     * When neither a burst nor an idle sweep has run yet. The first burst starts the connection tables' sweep clock
     * instead of paying for a whole period's sweeping at once: the tables of a pipeline that has seen no frame hold
     * nothing, and that sweep, both tables end to end before any of the code is compiled, delayed the first frames of
     * every replay.
     */
    private static final long SWEEP_CLOCK_UNSET = Long.MIN_VALUE;

    private long lastSweepNs = SWEEP_CLOCK_UNSET;
    /** Time since the last sweep that has not yet been paid for in swept slots. */
    private long sweepCredit;
    /** The most slots of a table one burst sweeps ({@link #limitBurstSweep}). */
    private int burstSweepLimit = Integer.MAX_VALUE;
    /** When an idle sweep last looked at templates, and the time since then not yet paid for in buckets. */
    private long lastTemplateSweepNs;
    private long templateCredit;
    /** Keeps the first pass's reads of table slots from being optimised away. */
    private long touched;

    /**
     * The fewest slots of each table a step of the expire_nodest_conn flush looks at (a step per burst or idle sweep);
     * a step after a longer pause looks at that pause's share of {@link #SWEEP_PERIOD_NS}, as the sweep does, so a
     * table is flushed within about that period.
     */
    static final int FLUSH_SLOTS_PER_STEP = 1024;
    /** The snapshot whose removed servers were last looked for ({@link #noticeServersGone}). */
    private DataPlane serversGoneCheckedFor;
    /** Whether a flush of connections to removed servers is under way. */
    private boolean flushing;
    /** Where it goes on in each table, or -1 once it has looked at every slot of that table. */
    private int flushCursorV4 = -1;
    private int flushCursorV6 = -1;
    /** Where it goes on in this worker's share of the templates' buckets, or -1 once it has looked at all of them. */
    private int flushCursorTemplates = -1;
    /** When the flush's last step was taken, or {@link Long#MIN_VALUE} before its first. */
    private long flushLastStepNs = Long.MIN_VALUE;

    /** Where established IPv4 connections are offered ({@link ConnectionOffload}); NONE unless told otherwise. */
    private ConnectionOffload offload = ConnectionOffload.NONE;
    private boolean offloading;
    /** IPv4 slots the burst's fast loop found ready to offer, offered once the burst is done. */
    private final int[] offers = new int[FrameBurst.MAX_FRAMES];
    private int offerCount;
    private final OffloadedConnection described = new OffloadedConnection();
    /** How many entries of the IPv4 table are offloaded ({@link ConnectionTable#FLAG_OFFLOADED}). */
    private int offloadedCount;
    /** The snapshot the offloaded connections were last described under. */
    private DataPlane offloadedUnder;

    /**
     * @param publisher       where the current snapshot comes from.
     * @param workerIndex     this worker's index among the workers (rr and wrr keep a cursor each).
     * @param connectionsV4   the capacity of the IPv4 connection table.
     * @param connectionsV6   the capacity of the IPv6 connection table.
     * @param maxServices     service slots of the snapshots.
     * @param maxServers      server slots of the snapshots.
     * @param icmpPerSecond   ICMP answers per second.
     */
    public Pipeline(
        final DataPlanePublisher publisher,
        final int workerIndex,
        final int connectionsV4,
        final int connectionsV6,
        final int maxServices,
        final int maxServers,
        final int icmpPerSecond)
    {
        this(publisher, workerIndex, connectionsV4, connectionsV6, maxServices, maxServers, icmpPerSecond,
            OffHeapAllocator.DIRECT, new TemplateTable(1024));
    }

    /**
     * As the other constructor, with the connection tables' memory from the given allocator (huge pages)
     * and the persistence templates every worker shares.
     */
    public Pipeline(
        final DataPlanePublisher publisher,
        final int workerIndex,
        final int connectionsV4,
        final int connectionsV6,
        final int maxServices,
        final int maxServers,
        final int icmpPerSecond,
        final OffHeapAllocator allocator,
        final TemplateTable templates)
    {
        this(publisher, workerIndex, connectionsV4, connectionsV6, maxServices, maxServers, icmpPerSecond, allocator,
            templates, null);
    }

    /**
     * As the other constructors, for one of several workers on their own threads.
     *
     * @param epochs where this worker records the snapshot it uses (the builder's, so it frees slots only
     *               when no worker can still name them), or null for a single worker; with epochs, this
     *               worker sweeps its share of the templates ({@link TemplateTable#sweeper}), without, all.
     */
    public Pipeline(
        final DataPlanePublisher publisher,
        final int workerIndex,
        final int connectionsV4,
        final int connectionsV6,
        final int maxServices,
        final int maxServers,
        final int icmpPerSecond,
        final OffHeapAllocator allocator,
        final TemplateTable templates,
        final WorkerEpochs epochs)
    {
        this(publisher, workerIndex, connectionsV4, connectionsV6, maxServices, maxServers, icmpPerSecond, allocator,
            templates, epochs, CachePrefetch.LOADS);
    }

    /**
     * As the other constructors, with the way the burst's table lines are prefetched (the forwarder's native
     * prefetch; core's own constructors use {@link CachePrefetch#LOADS}).
     */
    public Pipeline(
        final DataPlanePublisher publisher,
        final int workerIndex,
        final int connectionsV4,
        final int connectionsV6,
        final int maxServices,
        final int maxServers,
        final int icmpPerSecond,
        final OffHeapAllocator allocator,
        final TemplateTable templates,
        final WorkerEpochs epochs,
        final CachePrefetch prefetch)
    {
        final DataPlane first = publisher.current();
        if (workerIndex < 0 || workerIndex >= first.workers())
        {
            throw new IllegalArgumentException("worker " + workerIndex + " of a configuration made for " +
                first.workers() + " workers");
        }
        if (epochs != null && workerIndex >= epochs.workers())
        {
            throw new IllegalArgumentException("worker " + workerIndex + " of epochs for " + epochs.workers() +
                " workers");
        }
        this.publisher = publisher;
        this.timeoutTicks = publisher.current().timeouts.publishedTicks();
        this.prefetch = prefetch;
        this.workerIndex = workerIndex;
        this.epochs = epochs;
        if (epochs != null)
        {
            // From now on this worker may use the current snapshot or a later one.
            epochs.enter(workerIndex, first.generation);
        }
        this.templates = templates;
        this.templateSweeper = epochs == null ? templates.sweeper(0, 1) :
            templates.sweeper(workerIndex, epochs.workers());
        this.parser = new PacketParser(true, true);
        this.strictParser = new PacketParser(false, false);
        this.optionsOnlyParser = new PacketParser(true, false);
        this.fragmentsOnlyParser = new PacketParser(false, true);
        this.v4 = new ConnectionTable(false, connectionsV4, this::onRemoved, allocator);
        this.v6 = new ConnectionTable(true, connectionsV6, this::onRemoved, allocator);
        this.counters = new WorkerCounters();
        this.traffic = new TrafficStats(maxServices, maxServers);
        this.icmp = new IcmpResponder(icmpPerSecond);
        this.icmpErrors = new IcmpErrors(rewriter, traffic, icmp, pathMtus);
        // Every change this worker makes to a server's counts is reported to it (bind, activity, removal).
        this.context = new SchedulingContext(workerIndex, 0x6A76_7300L + workerIndex, true);
    }

    /**
     * @return the snapshot the next burst will use (one volatile read), for a worker that waits for a newer one.
     */
    public DataPlane currentPlane()
    {
        return publisher.current();
    }

    /**
     * @return this worker's own counters (frames, verdicts, drops by reason, connections), which other threads may
     *         read while it runs.
     */
    public WorkerCounters counters()
    {
        return counters;
    }

    /**
     * @return this worker's counters per service and real-server slot (IPVS's connections, packets and IP bytes in
     *         and out, and jvs's frame counts), which other threads may read while it runs.
     */
    public TrafficStats traffic()
    {
        return traffic;
    }

    /**
     * @return the per-packet latency histogram (ns from a frame's receive time to when it left, as the caller records
     *         it: {@link #recordLatency}); read it from this thread.
     */
    public Histogram latency()
    {
        return latency;
    }

    /**
     * What frame {@code i} of the last burst did to the connection table, for tools that log every
     * scheduling decision (replay's decisions file); the daemon never asks.
     *
     * @return the server slot of the connection it opened (or of its one-packet schedule), {@link #OPENED_NONE}
     *         if it did not try to, or a negative value if it would have opened one but could not
     *         ({@link #refusal} says why).
     */
    public int openedServer(final int i)
    {
        return opened[i];
    }

    /**
     * @return why frame {@code i} of the last burst could not open a connection ({@link #openedServer} negative),
     *         or null.
     */
    public DropReason refusal(final int i)
    {
        return opened[i] < 0 ? DropReason.of(-1 - opened[i]) : null;
    }

    /**
     * @return the service slot that frame {@code i} of the last burst was classified to, or
     *         {@link ServiceClassifier#NONE} (replies to clients are classified by their connection, not here).
     */
    public int serviceOf(final int i)
    {
        return serviceOf[i];
    }

    /**
     * @return the last burst's parsed headers, as the frames were received (rewrites do not change them);
     *         valid until the next {@link #process}.
     */
    public ParsedBurst parsed()
    {
        return parsed;
    }

    /**
     * @return the addresses this worker needed a next hop for and had none; drain them from this thread
     *         after each burst.
     */
    public NeighbourMisses neighbourMisses()
    {
        return misses;
    }

    /**
     * @return the path MTUs this worker learnt towards real servers from routers' errors; drain them from this
     *         thread after each burst.
     */
    public PathMtuReports pathMtuReports()
    {
        return pathMtus;
    }

    /**
     * Offers this worker's established IPv4 NAT and DR connections to {@code offload} from now on (set before the
     * first burst).
     */
    public void offloadTo(final ConnectionOffload offload)
    {
        this.offload = offload;
        this.offloading = offload != ConnectionOffload.NONE;
    }

    /** @return how many of the IPv4 table's connections are offloaded now. */
    public int offloadedConnections()
    {
        return offloadedCount;
    }

    /**
     * What frames of an offloaded connection did outside the pipeline (the owner of the {@link ConnectionOffload},
     * on this worker's thread): counted as the fast loop counts the frames it forwards, and the connection's timer
     * re-armed from the last of them as that loop re-arms it, in the connection's present state.
     *
     * @param towardsServer true for the client's frames, false for a NAT server's replies.
     * @param packets       how many frames since the last call.
     * @param bytes         their IP datagrams' length.
     * @param frameBytes    their Ethernet frames' length.
     * @param lastSeenNs    when the last of them passed (System.nanoTime's clock).
     */
    public void offloadedTraffic(final ConnectionTable table, final int slot, final boolean towardsServer,
        final long packets, final long bytes, final long frameBytes, final long lastSeenNs)
    {
        if (packets == 0)
        {
            return;
        }
        final DataPlane current = plane != null ? plane : publisher.current();
        final int serverSlot = table.server(slot);
        final int service = current.serverService[serverSlot];
        traffic.offloaded(service, serverSlot, towardsServer, packets, bytes, frameBytes);
        final int[] ticks = current.timeouts.publishedTicks();
        final int timeout = table.protocol(slot) == Ipv4Header.PROTOCOL_TCP ? ticks[table.state(slot)] :
            ticks[TcpStates.COUNT];
        final int expires = ConnectionTable.tick(lastSeenNs) + timeout;
        if (expires - table.expiresTick(slot) > 0)
        {
            table.expiresTick(slot, expires);
        }
    }

    public ConnectionTable connectionsV4()
    {
        return v4;
    }

    public ConnectionTable connectionsV6()
    {
        return v6;
    }

    /**
     * Processes a burst: sets every frame's verdict and rewrites the frames to transmit.
     *
     * @param burst the frames.
     * @param now   the time on the worker's clock, read once for the burst.
     */
    public void process(final FrameBurst burst, final long now)
    {
        process(burst, now, false);
    }

    /**
     * Processes again frames that a {@link #process} already took and dropped for want of a next hop, and that the
     * caller kept until a newer snapshot might have one (the daemon's worker holds them, as the kernel queues packets
     * on a neighbour it is resolving): as {@link #process}, but the packets are not counted again in IPVS's packets
     * and bytes of their service and server, which the first pass counted, as IPVS counts a packet in ip_vs_in_stats
     * (ip_vs_out_stats for a reply) before it transmits it, whatever the transmit then makes of it. jvs's own frame
     * counts take each frame at the pass that transmits it. So every frame goes through the general path: the fast
     * loop counts a packet's IPVS counts with its frame's, and the speed of this rare path does not matter.
     *
     * @param burst the frames, as they were received (not as the first pass left them).
     * @param now   the time on the worker's clock, read once for the burst.
     */
    public void processAgain(final FrameBurst burst, final long now)
    {
        process(burst, now, true);
    }

    private void process(final FrameBurst burst, final long now, final boolean again)
    {
        this.again = again;
        final DataPlane current = publisher.current();
        if (epochs != null)
        {
            epochs.enter(workerIndex, current.generation);
        }
        if (current != serversGoneCheckedFor)
        {
            noticeServersGone(current);
        }
        if (current != offloadedUnder && offloadedCount > 0)
        {
            describeOffloadedAgain(current);
        }
        offloadedUnder = current;
        offloading = offload != ConnectionOffload.NONE && offload.offering();
        this.plane = current;
        this.nowNs = now;
        this.nowTick = ConnectionTable.tick(now);
        rewriter.nowNs = now;
        context.nowNs(now);
        this.timeoutTicks = current.timeouts.publishedTicks();
        final int count = burst.count;
        final DataPlaneSettings settings = current.settings;
        final PacketParser activeParser = settings.allowIpOptions() && settings.allowFragments() ? parser :
            strictParser(settings);
        final ParsedBurst p = parsed;
        final MarkTable marks = current.marks;
        final boolean marking = marks.mark.length != 0;
        final int ingress = burst.ingressPort;

        if (framesArriveCold)
        {
            prefetchHeaders(burst, count);
        }
        final int[] homes = this.homes;
        final long prefetchBase = this.prefetchBase;
        // The last unmarked IPv4 frame's destination (protocol, port and address) and the service it classified as: a
        // burst's frames mostly go to one service, or come back from one server, and then take one compare each
        // instead of the classifier's hash and probe. What a destination classifies as holds for the burst (one
        // snapshot); -1 is no key (the protocol takes 8 bits).
        long classifiedKey = -1;
        int classifiedService = ServiceClassifier.NONE;
        // The frames' home lines are prefetched a group at a time, so that the first group's misses are on their way
        // while the rest of the burst is parsed, and the misses of a group overlap. Not the line after a home line as
        // well, where a probe run that fills its home line goes on: few lookups go there, and on a machine whose loads
        // wait on memory longer the second line a frame cost more than the misses it saved (perf/RESULTS.md, issue 13's
        // fourth session; the groups, its ninth and twenty-fifth).
        for (int group = 0; group < count; group += PREFETCH_GROUP)
        {
            final int groupEnd = Math.min(count, group + PREFETCH_GROUP);
            for (int i = group; i < groupEnd; i++)
            {
                final long frame = burst.address(i);
                final int verdict = activeParser.parse(frame, burst.length(i), p, i);
                pending[i] = verdict;
                opened[i] = OPENED_NONE;
                // Each of the frame's records written once: a frame without ports has no service or home, and its
                // own line is prefetched.
                int service = ServiceClassifier.NONE;
                int home = -1;
                long prefetched = frame;
                if (marking && verdict == 0 && burst.firewallMark(i) == 0)
                {
                    burst.firewallMark(i, marks.match(p, i, ingress));
                }
                if (verdict == 0 && p.hasPorts(i))
                {
                    final boolean isV6 = p.kind(i) == KIND_IPV6;
                    final ConnectionTable table = isV6 ? v6 : v4;
                    final int mark = burst.firewallMark(i);
                    if (!isV6 && mark == 0)
                    {
                        final long key = (long)p.protocol(i) << 48 | (long)p.destinationPort(i) << 32 |
                            p.destinationLow(i) & 0xFFFF_FFFFL;
                        if (key != classifiedKey)
                        {
                            classifiedKey = key;
                            classifiedService = current.classifier.lookup(0, false, p.protocol(i), 0,
                                p.destinationLow(i), p.destinationPort(i));
                        }
                        service = classifiedService;
                    }
                    else
                    {
                        service = current.classifier.lookup(mark, isV6, p.protocol(i), p.destinationHigh(i),
                            p.destinationLow(i), p.destinationPort(i));
                    }
                    home = service != ServiceClassifier.NONE ?
                        table.home(p.protocol(i), p.sourceHigh(i), p.sourceLow(i), p.sourcePort(i)) :
                        table.home(p.protocol(i), p.destinationHigh(i), p.destinationLow(i), p.destinationPort(i));
                    prefetched = table.slotAddress(home);
                }
                serviceOf[i] = service;
                homes[i] = home;
                UnsafeApi.putLong(prefetchBase + (long)i * PREFETCH_STRIDE, prefetched);
            }
            touched += prefetch.lines(prefetchBase + (long)group * PREFETCH_STRIDE, groupEnd - group);
        }

        // No frame looked up yet: a burst processed again, which skips the fast loop, must not take a slot the last
        // burst's loop left for towardsServer.
        lookedUpFrame = -1;
        probedAheadFrame = -1;
        final boolean connReuse = current.settings.connReuse();
        int i = 0;
        while (true)
        {
            if (!again && (i == count || !leavesAtOnce(i, p, connReuse)))
            {
                final int from = i;
                i = followEstablished(burst, from, count, p, current);
                countFastRun(from, i, current);
            }
            if (i == count)
            {
                break;
            }
            int verdict = pending[i];
            if (verdict == 0)
            {
                verdict = handle(burst, i, p, current);
            }
            burst.verdict(i, verdict);
            counters.verdict(verdict);
            i++;
        }
        counters.framesReceived(count);
        if (offerCount > 0)
        {
            offerEstablished(current);
        }

        sweepDue(now, settings.sweepSlotsPerBurst());
        if (flushing)
        {
            flushStep(current, now);
        }
        traffic.publish();
    }

    /**
     * The frames of a burst from {@code from} on, for as long as each is one whose verdict the parser gave, a
     * client's TCP or UDP packet, not a fragment, on a live connection to an available server that forwards it by
     * NAT or direct routing, or a NAT server's reply on a live connection that leaves its state as it is and whose
     * client has a next hop: the bulk of the traffic. For those it does what {@link #handle} would, in the same
     * order, and counts them; at the first frame that needs anything else it stops before changing anything, and
     * {@link #process} hands that frame to {@link #handle}. A client's segment that changes its connection's state
     * (the ACK that establishes it, a FIN) is the loop's too, but for one that would assure a persistence template
     * or whose connection is offloaded: the servers' active and inactive counts it moves are counted when the run
     * ends ({@link #countFastRun}), before the general path's scheduling reads them.
     * <p>
     * Nothing in this loop calls out: every condition that would lead to a call (a template to assure, an ICMP
     * answer, a missing neighbour, SCTP's CRC) is tested first and ends the run. So the compiler keeps the arrays and
     * records the loop reads in registers and takes their bounds checks out of the loop, which a single call on any
     * path through it would prevent.
     *
     * @return the index of the first frame not handled, {@code count} when none is left.
     */
    private int followEstablished(
        final FrameBurst burst, final int from, final int count, final ParsedBurst p, final DataPlane current)
    {
        final int[] pending = this.pending;
        final int[] serviceOf = this.serviceOf;
        final int[] homes = this.homes;
        final int[] timeoutTicks = this.timeoutTicks;
        final boolean connReuse = current.settings.connReuse();
        final boolean activeEstablishedOnly = current.settings.activeEstablishedOnly();
        // A frame no longer than this fits every port's MTU; a longer one leaves the loop, and the general path holds
        // it to its own egress port's (one compare a frame instead of that port's MTU looked up).
        final int frameLimit = current.fastPathFrameLimit;
        // The slot the frame the loop stops at was looked up to, set only where the loop stops after a lookup: a value
        // carried from frame to frame takes a register, or a spill, for the whole loop, and one written only on the
        // way out is not carried. A local rather than the fields: each exit's bytecode counts against C2's budget for
        // the loop (DesiredMethodLimit), which the daemon's loop is near.
        int stoppedAtSlot = NOT_LOOKED_UP;
        // The run's counts, added to the counters by countFastRun once it ends: every frame the loop takes is
        // transmitted (so the frames transmitted are those it passed less those the parser gave a verdict, which are
        // rare: one count fewer to keep a frame), and consecutive frames mostly go to one service, whose counts then
        // take four additions a run instead of four read-add-stores a frame.
        fastRunParserVerdicts = 0;
        int runService = -1;
        int runPackets = 0;
        long runBytes = 0;
        long runFrameBytes = 0;
        int i = from;
        // Where this frame's lookup compares first (ConnectionTable.firstProbe), found once the frame before had
        // found its entry: the lookup's first branch then mostly goes the way it is predicted, where a quarter of
        // the entries sit in their line's second slot. NO_PROBE (from the home slot) after any other frame: a frame
        // whose lookup misses, as every new connection's does, would only waste the work.
        int nextFirstProbe = from == probedAheadFrame ? probedAheadSlot : NO_PROBE;
        for (; i < count; i++)
        {
            final int firstProbe = nextFirstProbe;
            nextFirstProbe = NO_PROBE;
            final int parsedVerdict = pending[i];
            if (parsedVerdict != 0)
            {
                burst.verdict(i, parsedVerdict);
                counters.verdict(parsedVerdict);
                // Rare: counted in the field rather than in a register carried from frame to frame.
                fastRunParserVerdicts++;
                continue;
            }
            // The frame's parsed record, its index checked once: some thirty fields are read from it below.
            final long record = p.record(i);
            final int service = serviceOf[i];
            final int protocol = protocolAt(record);
            if (fragmentAt(record) != FRAGMENT_NONE || !hasPortsAt(record) ||
                protocol != Ipv4Header.PROTOCOL_TCP && protocol != Ipv4Header.PROTOCOL_UDP)
            {
                break;
            }
            final ConnectionTable table = kindAt(record) == KIND_IPV6 ? v6 : v4;
            final int flags = tcpFlagsAt(record);
            // The frame's slot and verdict, from either path: one tail gives the verdict and offers the connection, as
            // each inlined copy counts against C2's budget for the loop.
            final int slot;
            final int verdict;
            // The state a client's TCP segment moves its connection to, or -1: the offer waits for the next frame.
            int changedState = -1;
            if (service == ServiceClassifier.NONE)
            {
                // A real server's reply to a NAT client: what towardsClient does, for as long as nothing changes.
                slot = table.lookupReverse(homes[i], protocol, destinationHighAt(record),
                    destinationLowAt(record), destinationPortAt(record), sourceHighAt(record), sourceLowAt(record),
                    sourcePortAt(record), current.serverAddresses);
                if (slot < 0)
                {
                    break;
                }
                final int serverSlot = table.server(slot);
                if (table.isExpired(slot, nowTick) || table.method(slot) != 0 || ttlAt(record) <= 1)
                {
                    break;
                }
                final int timeout;
                if (protocol == Ipv4Header.PROTOCOL_TCP)
                {
                    final int state = table.state(slot);
                    if (table.isNoOutput(slot) || !TcpStates.stays(TcpStates.OUTPUT, flags, state))
                    {
                        break;
                    }
                    timeout = timeoutTicks[state];
                }
                else
                {
                    // A first reply marks the connection's template assured: track does it.
                    if (table.template(slot) >= 0 && (table.flags(slot) & ConnectionTable.FLAG_ASSURED) == 0)
                    {
                        break;
                    }
                    timeout = timeoutTicks[TcpStates.COUNT];
                }
                final long hop = current.clientNeighbours.find(kindAt(record) == KIND_IPV6, destinationHighAt(record),
                    destinationLowAt(record));
                final int length = burst.length(i);
                if (hop == NeighbourIndex.NONE || length > frameLimit)
                {
                    break;
                }
                table.expiresTick(slot, nowTick + timeout);
                final int datagram = ipEndAt(record) - l3OffsetAt(record);
                verdict = rewriter.natOutbound(burst, i, p, current, hop, table.virtualHigh(slot),
                    table.virtualLow(slot), table.virtualPort(slot), true);
                traffic.serverReplied(current.serverService[serverSlot], serverSlot, datagram, length);
            }
            else
            {
                // One call site: each inlined copy of the lookup counts against C2's budget for the whole loop.
                final int home = homes[i];
                slot = table.lookupForward(home, firstProbe == NO_PROBE ? home : firstProbe, protocol,
                    sourceHighAt(record), sourceLowAt(record), sourcePortAt(record), destinationHighAt(record),
                    destinationLowAt(record), destinationPortAt(record));
                if (slot < 0)
                {
                    stoppedAtSlot = slot;
                    break;
                }
                nextFirstProbe = firstProbe(i + 1, count, homes, p);
                final int serverSlot = table.server(slot);
                final int entryFlags = table.flags(slot);
                final int length = burst.length(i);
                // One compare for three conditions: the server is still in its service, the connection is NAT or DR,
                // and its port follows the server's service's rule (see DataPlane.serverFastPathFlags).
                if (table.isExpired(slot, nowTick) ||
                    (entryFlags & DataPlane.FAST_PATH_FLAGS) != current.serverFastPathFlags[serverSlot] ||
                    ttlAt(record) <= 1 || current.serverEgressPort[serverSlot] == DataPlane.NO_PORT ||
                    length > frameLimit)
                {
                    stoppedAtSlot = slot;
                    break;
                }
                final int timeout;
                if (protocol == Ipv4Header.PROTOCOL_TCP)
                {
                    if ((flags & (L4Headers.TCP_SYN | L4Headers.TCP_RST)) == L4Headers.TCP_SYN && connReuse)
                    {
                        stoppedAtSlot = slot;
                        break;
                    }
                    final int state = table.state(slot);
                    final int direction = table.isNoOutput(slot) ? TcpStates.INPUT_ONLY : TcpStates.INPUT;
                    final int next = TcpStates.nextOf(direction, flags, state);
                    // A change of state as track makes it, but for an offloaded connection (towardsServer takes its
                    // frames back) and one that would assure its persistence template.
                    if (next != state)
                    {
                        if ((entryFlags & ConnectionTable.FLAG_OFFLOADED) != 0 || next == TcpStates.ESTABLISHED &&
                            table.template(slot) >= 0 && (entryFlags & ConnectionTable.FLAG_ASSURED) == 0)
                        {
                            stoppedAtSlot = slot;
                            break;
                        }
                        changedState = next;
                    }
                    timeout = timeoutTicks[next];
                }
                else
                {
                    timeout = timeoutTicks[TcpStates.COUNT];
                }
                table.expiresTick(slot, nowTick + timeout);
                if (changedState >= 0)
                {
                    table.state(slot, changedState);
                    // Moved between the server's active and inactive counts as changeActivity does; the counts
                    // themselves when the run ends.
                    final boolean wasInactive = (entryFlags & ConnectionTable.FLAG_INACTIVE) != 0;
                    if (wasInactive == TcpStates.isActive(changedState, activeEstablishedOnly))
                    {
                        table.flags(slot, entryFlags ^ ConnectionTable.FLAG_INACTIVE);
                        activityChanges[activityChangeCount++] = wasInactive ? serverSlot : ~serverSlot;
                    }
                }
                // The state and the timer as track leaves them; from here on, what forward does.
                final int datagram = ipEndAt(record) - l3OffsetAt(record);
                verdict = ConnectionTable.methodOf(entryFlags) == 0 ?
                    rewriter.natInbound(burst, i, p, current, serverSlot,
                        current.serverAddresses.portBySlotRule(serverSlot, table.virtualPort(slot)), true) :
                    rewriter.directRoute(burst, i, p, current, serverSlot, true);
                traffic.serverForwarded(serverSlot, datagram, length);
                if (service != runService)
                {
                    traffic.serviceForwarded(runService, runPackets, runBytes, runFrameBytes);
                    runService = service;
                    runPackets = 0;
                    runBytes = 0;
                    runFrameBytes = 0;
                }
                runPackets++;
                runBytes += datagram;
                runFrameBytes += length;
            }
            burst.verdict(i, verdict);
            if (offloading && changedState < 0 && table == v4 &&
                readyToOffload(table, slot, table.flags(slot), protocol))
            {
                offers[offerCount++] = slot;
            }
        }
        lookedUpFrame = stoppedAtSlot == NOT_LOOKED_UP ? -1 : i;
        lookedUpSlot = stoppedAtSlot;
        probedAheadFrame = i + 1;
        probedAheadSlot = nextFirstProbe;
        fastRunService = runService;
        fastRunPackets = runPackets;
        fastRunBytes = runBytes;
        fastRunFrameBytes = runFrameBytes;
        return i;
    }

    /**
     * Whether {@link #followEstablished} would stop at frame {@code i} whatever its lookup finds: a client's SYN to a
     * service while connection reuse is on, which the loop always leaves to {@link #handle} (every frame of a flood of
     * new connections). Such a frame then goes there without the loop's set-up and exit.
     */
    private boolean leavesAtOnce(final int i, final ParsedBurst p, final boolean connReuse)
    {
        final long record = p.record(i);
        return connReuse && pending[i] == 0 && serviceOf[i] != ServiceClassifier.NONE &&
            protocolAt(record) == Ipv4Header.PROTOCOL_TCP &&
            (tcpFlagsAt(record) & (L4Headers.TCP_SYN | L4Headers.TCP_RST)) == L4Headers.TCP_SYN;
    }

    /**
     * Counts the run of {@link #followEstablished} from frame {@code from} to frame {@code end}: the servers' active
     * and inactive connections its state changes moved (as changeActivity would have, frame by frame), its last
     * service's frames and every frame it transmitted and took.
     */
    private void countFastRun(final int from, final int end, final DataPlane current)
    {
        for (int n = 0; n < activityChangeCount; n++)
        {
            final int change = activityChanges[n];
            final RealServer server = current.servers[change >= 0 ? change : ~change];
            if (change >= 0)
            {
                server.connectionActivated(workerIndex);
            }
            else
            {
                server.connectionDeactivated(workerIndex);
            }
            context.countsChanged(server.countersAddress());
        }
        activityChangeCount = 0;
        traffic.serviceForwarded(fastRunService, fastRunPackets, fastRunBytes, fastRunFrameBytes);
        counters.transmitted(end - from - fastRunParserVerdicts);
        counters.fastPathTook(end - from);
    }

    /**
     * Says whether the frames of the bursts this pipeline is given arrive out of its core's caches: written by another
     * core (replay's reading thread copies each record into a burst) or by a device. Then each burst starts with a
     * prefetch of every frame's header lines (its first line, and the next when the frame goes on into it, where
     * IPv6's and TCP's headers end), so that their misses overlap instead of each frame's parse waiting for its own in
     * turn, as DPDK's and VPP's graphs prefetch the headers of a vector's packets before they read them. Off by
     * default: frames this core has just written (bench pipeline's, as the C peer's) are in its cache already, and
     * the prefetch would only cost its call.
     *
     * @param cold whether the frames arrive cold.
     */
    public void framesArriveCold(final boolean cold)
    {
        framesArriveCold = cold;
    }

    private void prefetchHeaders(final FrameBurst burst, final int count)
    {
        final long base = headerLinesBase;
        int lines = 0;
        for (int i = 0; i < count; i++)
        {
            final long frame = burst.address(i);
            UnsafeApi.putLong(base + (long)lines++ * PREFETCH_STRIDE, frame);
            if (burst.length(i) > CACHE_LINE - (int)(frame & (CACHE_LINE - 1)))
            {
                UnsafeApi.putLong(base + (long)lines++ * PREFETCH_STRIDE, frame + CACHE_LINE);
            }
        }
        touched += prefetch.lines(base, lines);
    }

    /**
     * Sweeps enough slots that each table is covered once per {@link #SWEEP_PERIOD_NS}, whatever the
     * packet rate: a few slots a burst at line rate, a whole table after a long pause.
     */
    private void sweepDue(final long now, final int minimumSlots)
    {
        final long elapsed =
            lastSweepNs == SWEEP_CLOCK_UNSET ? 0 : Math.min(SWEEP_PERIOD_NS, Math.max(0, now - lastSweepNs));
        lastSweepNs = now;
        sweepCredit += elapsed;
        final int budget4 = (int)(v4.slots() * sweepCredit / SWEEP_PERIOD_NS);
        final int budget6 = (int)(v6.slots() * sweepCredit / SWEEP_PERIOD_NS);
        if (budget4 >= minimumSlots || budget6 >= minimumSlots)
        {
            final int largest = Math.max(budget4, budget6);
            long spent = sweepCredit;
            int swept4 = budget4;
            int swept6 = budget6;
            if (largest > burstSweepLimit)
            {
                // Part of what is due now, the rest later: the same share of each table and of the credit.
                swept4 = (int)((long)budget4 * burstSweepLimit / largest);
                swept6 = (int)((long)budget6 * burstSweepLimit / largest);
                spent = sweepCredit * burstSweepLimit / largest;
            }
            v4.sweep(nowTick, swept4);
            v6.sweep(nowTick, swept6);
            final int share = templateSweeper.buckets();
            templateSweeper.sweep(nowNs, (int)Math.min(share, 1 + share * spent / SWEEP_PERIOD_NS),
                plane.servers);
            sweepCredit = Math.min(SWEEP_PERIOD_NS, sweepCredit - spent);
            lastTemplateSweepNs = now;
            templateCredit = 0;
        }
        // The lines the sweeps will have due by the next burst, named a burst's share at a time
        // (ConnectionTable.sweepAhead) and brought in while that burst is handled.
        final long dueByNextBurst = sweepCredit + elapsed;
        prefetchSweep(v4, (int)(v4.slots() * dueByNextBurst / SWEEP_PERIOD_NS));
        prefetchSweep(v6, (int)(v6.slots() * dueByNextBurst / SWEEP_PERIOD_NS));
    }

    private void prefetchSweep(final ConnectionTable table, final int slotsAhead)
    {
        if (table.skipsIdleBlocks())
        {
            // Its sweep reads the entries of the few blocks that fall due: finding their lines a burst ahead, block
            // by block, cost more than their misses (replay's tables, perf/RESULTS.md).
            return;
        }
        final int lines = table.sweepAhead(nowTick, slotsAhead, PREFETCH_GROUP, prefetchBase,
            FrameBurst.MAX_FRAMES);
        if (lines > 0)
        {
            touched += prefetch.lines(prefetchBase, lines);
        }
    }

    /**
     * The slot frame {@code i}'s forward lookup compares first ({@link ConnectionTable#firstProbe}), or
     * {@link #NO_PROBE} when it has no IPv4 home or is past the burst's end. For a frame that turns out not to be a
     * forward lookup the value goes unused.
     */
    private int firstProbe(final int i, final int count, final int[] homes, final ParsedBurst p)
    {
        if (i >= count)
        {
            return NO_PROBE;
        }
        final int home = homes[i];
        final long record = p.record(i);
        return home < 0 || kindAt(record) == KIND_IPV6 ? NO_PROBE :
            v4.firstProbe(home, sourcePortAt(record), destinationPortAt(record));
    }

    /**
     * Bounds the sweeping one burst does before its frames can leave, for a worker that also sweeps when it has
     * nothing to receive ({@link #sweep}): the rest of what is due waits for that, or for the next bursts. Without
     * it the first burst after a quiet spell paid for the whole spell's sweeping, up to both tables end to end,
     * before its first packet left (milliseconds on a daemon's default tables). Replay and the benchmarks, which never
     * sweep from an idle loop, leave it unbounded.
     *
     * @param slots the most slots of each table a burst sweeps, at least 1.
     */
    public void limitBurstSweep(final int slots)
    {
        if (slots < 1)
        {
            throw new IllegalArgumentException("a burst must sweep at least one slot, not " + slots);
        }
        burstSweepLimit = slots;
    }

    /**
     * Between bursts with nothing to process: records that this worker now uses the current snapshot, so a
     * conductor waiting for every worker to take it (before it gives added servers their weights) need not wait
     * for the next burst or sweep. One volatile read when nothing changed.
     */
    public void followSnapshot()
    {
        if (epochs != null)
        {
            final long generation = publisher.current().generation;
            if (generation != followed)
            {
                followed = generation;
                epochs.enter(workerIndex, generation);
            }
        }
    }

    /**
     * Expires connections without traffic: a worker with nothing to receive calls this from its idle loop.
     * It also retires expired persistence templates of this worker's share, a whole share per
     * {@link #SWEEP_PERIOD_NS}, and records the snapshot it uses in the epochs.
     *
     * @param now    the time.
     * @param budget slots to examine in each connection table.
     */
    public void sweep(final long now, final int budget)
    {
        final DataPlane current = publisher.current();
        if (epochs != null)
        {
            epochs.enter(workerIndex, current.generation);
        }
        if (current != serversGoneCheckedFor)
        {
            noticeServersGone(current);
        }
        if (current != offloadedUnder && offloadedCount > 0)
        {
            // An idle worker too: the offloaded connections' frames may never reach it, and a server removed or a
            // next hop changed must still take them back or change them.
            describeOffloadedAgain(current);
        }
        offloadedUnder = current;
        this.plane = current;
        this.nowNs = now;
        rewriter.nowNs = now;
        v4.sweep(ConnectionTable.tick(now), budget);
        v6.sweep(ConnectionTable.tick(now), budget);
        // What a sweep from the idle loop covered is not due again from the next burst.
        lastSweepNs = now;
        sweepCredit = 0;
        if (flushing)
        {
            flushStep(current, now);
        }
        // This worker's share of the templates is its own to retire, traffic or not.
        templateCredit += Math.min(SWEEP_PERIOD_NS, Math.max(0, now - lastTemplateSweepNs));
        lastTemplateSweepNs = now;
        final int share = templateSweeper.buckets();
        final long due = Math.min(share, share * templateCredit / SWEEP_PERIOD_NS);
        if (due > 0)
        {
            templateSweeper.sweep(now, (int)due, current.servers);
            templateCredit = 0;
        }
    }

    /**
     * With expire_nodest_conn on, a snapshot in which a server has left its service starts a flush of the
     * connections to servers no longer in their service, as the kernel queues ip_vs_expire_nodest_conn_flush when
     * it deletes a destination (__ip_vs_del_dest, for ipvsadm -d and for each server of a deleted service): the
     * connections go at once instead of at their next packet or their timeout, and so do the persistence templates
     * that placed them once they place nothing else.
     */
    private void noticeServersGone(final DataPlane current)
    {
        final DataPlane before = serversGoneCheckedFor;
        serversGoneCheckedFor = current;
        if (!current.settings.expireNodestConn())
        {
            return;
        }
        for (int slot = 1; slot < current.servers.length; slot++)
        {
            final RealServer server = current.servers[slot];
            if (server != null && !current.serverAvailable[slot] && (before == null || slot >= before.servers.length ||
                before.servers[slot] != server || before.serverAvailable[slot]))
            {
                flushing = true;
                flushCursorV4 = 0;
                flushCursorV6 = 0;
                flushCursorTemplates = 0;
                flushLastStepNs = Long.MIN_VALUE;
                return;
            }
        }
    }

    /**
     * The flush's next {@link #FLUSH_SLOTS_PER_STEP} slots of each table (ip_vs_expire_nodest_conn_flush): an entry
     * whose server is no longer in its service is removed, and a template it leaves placing nothing is expired
     * (ip_vs_conn_del of the controlling template once its n_control is 0).
     */
    private void flushStep(final DataPlane current, final long now)
    {
        // Each step looks at the share of the tables the time since the last one is of SWEEP_PERIOD_NS, and at least
        // FLUSH_SLOTS_PER_STEP: the flush is over within about that period however seldom bursts and idle sweeps
        // come (an idle worker sleeps 100 ms between them, which at 1024 slots a step took some 100 s to flush a
        // table of a million slots).
        final long elapsed = flushLastStepNs == Long.MIN_VALUE ? 0 :
            Math.min(SWEEP_PERIOD_NS, Math.max(0, now - flushLastStepNs));
        flushLastStepNs = now;
        if (flushCursorV4 >= 0)
        {
            flushCursorV4 = flushServersGone(v4, flushCursorV4, current, flushBudget(v4.slots(), elapsed));
        }
        if (flushCursorV6 >= 0)
        {
            flushCursorV6 = flushServersGone(v6, flushCursorV6, current, flushBudget(v6.slots(), elapsed));
        }
        if (flushCursorTemplates >= 0)
        {
            // Templates that already place nothing: the kernel's flush goes through them too (the connection
            // table holds them), those left placing nothing by the connections flushed above are expired there.
            flushCursorTemplates = templateSweeper.expireServersGone(flushCursorTemplates,
                flushBudget(templateSweeper.buckets() * SharedKeyTable.WAYS, elapsed) / SharedKeyTable.WAYS,
                current.serverAvailable, nowNs);
        }
        flushing = flushCursorV4 >= 0 || flushCursorV6 >= 0 || flushCursorTemplates >= 0;
    }

    /**
     * @return how many of {@code slots} a flush step looks at after {@code elapsed} ns.
     */
    private static int flushBudget(final int slots, final long elapsed)
    {
        return (int)Math.max(FLUSH_SLOTS_PER_STEP, slots * elapsed / SWEEP_PERIOD_NS);
    }

    /**
     * @param budget how many slots to look at.
     * @return where the table's flush goes on, or -1 when it has looked at every slot.
     */
    private int flushServersGone(final ConnectionTable table, final int from, final DataPlane current,
        final int budget)
    {
        final int slots = table.slots();
        int cursor = from;
        for (int examined = 0; examined < budget && cursor < slots; examined++)
        {
            if (table.isUsed(cursor))
            {
                final int server = table.server(cursor);
                if (server > 0 && server < current.serverAvailable.length && !current.serverAvailable[server])
                {
                    final int template = table.template(cursor);
                    table.remove(cursor, false);
                    if (template >= 0)
                    {
                        templates.expireIfPlacingNothing(template, nowNs);
                    }
                    // The removal's shift may have moved a later entry into this slot: look at it again. Entries
                    // only move back towards their home, so none moves into a slot the flush has passed.
                    continue;
                }
            }
            cursor++;
        }
        return cursor < slots ? cursor : -1;
    }

    private PacketParser strictParser(final DataPlaneSettings settings)
    {
        // One parser per combination, made up front: a burst allocates nothing.
        if (settings.allowIpOptions() == settings.allowFragments())
        {
            return strictParser;
        }
        return settings.allowIpOptions() ? optionsOnlyParser : fragmentsOnlyParser;
    }

    /**
     * Records each frame's time in jvs, from its receive time to {@code leftNs}: the caller's, once the burst's
     * frames are done with (the daemon's worker as it kicks their transmission, a benchmark after its burst), since
     * only the caller knows when that is. {@link #process} records nothing.
     */
    public void recordLatency(final FrameBurst burst, final long leftNs)
    {
        final int count = burst.count;
        final long common = burst.commonReceiveTimeNs();
        if (common != FrameBurst.MIXED_RECEIVE_TIMES && count > 0)
        {
            // The frames of one poll: one value for all of them, as the pass below would record it.
            latency.recordValueWithCount(Math.max(0, Math.min(MAX_LATENCY_NS, leftNs - common)), count);
            return;
        }
        long runValue = -1;
        int runLength = 0;
        for (int i = 0; i < count; i++)
        {
            final long value = Math.max(0, Math.min(MAX_LATENCY_NS, leftNs - burst.receiveTimeNs(i)));
            if (value == runValue)
            {
                runLength++;
                continue;
            }
            if (runLength > 0)
            {
                latency.recordValueWithCount(runValue, runLength);
            }
            runValue = value;
            runLength = 1;
        }
        if (runLength > 0)
        {
            latency.recordValueWithCount(runValue, runLength);
        }
    }

    // -----------------------------------------------------------------------------------------------------
    // One packet

    private int handle(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane current)
    {
        if (p.fragment(i) == FRAGMENT_LATER)
        {
            return followFragment(burst, i, p, current);
        }
        if (!p.hasPorts(i))
        {
            if (IcmpErrors.isError(p, i))
            {
                final int verdict = icmpError(burst, i, p, current);
                if (verdict != 0)
                {
                    return verdict;
                }
            }
            else if (current.settings.answerVipEcho() && IcmpResponder.isEchoRequest(p, i) &&
                current.classifier.isVirtualAddress(p.kind(i) == KIND_IPV6, p.destinationHigh(i),
                    p.destinationLow(i)) && icmp.echo(burst, i, p, current) == IcmpResponder.SENT)
            {
                // A virtual address the box does not hold (vip-arp on): its kernel would not answer, so jvs does.
                counters.echoAnswered();
                return Verdict.transmit(burst.ingressPort);
            }
            return unmatched(current);
        }
        final int service = serviceOf[i];
        return service != ServiceClassifier.NONE ? towardsServer(burst, i, p, current, service) :
            towardsClient(burst, i, p, current);
    }

    /**
     * An ICMP or ICMPv6 error: about a connection, passed on ({@link IcmpErrors}); about a reply of no connection, with
     * schedule_icmp, scheduled as that connection's first packet would be.
     *
     * @return the verdict, or 0 when the error is none of jvs's business.
     */
    private int icmpError(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane current)
    {
        final ConnectionTable table = p.kind(i) == KIND_IPV6 ? v6 : v4;
        final int verdict = icmpErrors.handle(burst, i, p, current, table, nowTick, again);
        if (verdict != 0 || !current.settings.scheduleIcmp() || !icmpErrors.quoteUnmatched())
        {
            return verdict;
        }
        return scheduleQuoted(burst, i, p, current, table);
    }

    /**
     * schedule_icmp: an error from the client's side about a reply of no connection jvs knows (a director behind ECMP
     * that never saw the connection: the client's packets went to another) is scheduled as the connection's first
     * packet would be, from the quoted reply's ends (its source the virtual service, its destination the client),
     * and goes to the server chosen as the connection's packets go, as ip_vs_in_icmp does with ip_vs_try_to_schedule.
     * The entry starts as ip_vs_conn_new leaves one (no state, inactive, 3 s), so that the client's next packet
     * follows it to the same server and moves it on. Any TCP quote is scheduled, whatever its flags, as
     * tcp_conn_schedule does for an ICMP error (its 8 quoted bytes need not hold them). Refused without a server or
     * room, the error is dropped without an answer (ip_vs_leave answers no ICMP error).
     *
     * @return the verdict, or 0 when the quote names no service (the host's business).
     */
    private int scheduleQuoted(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane current,
        final ConnectionTable table)
    {
        final boolean isV6 = p.kind(i) == KIND_IPV6;
        final IcmpErrors errors = icmpErrors;
        final int protocol = errors.quotedProtocol();
        final long virtualHigh = errors.quotedSourceHigh();
        final long virtualLow = errors.quotedSourceLow();
        final int virtualPort = errors.quotedSourcePort();
        final long clientHigh = errors.quotedDestinationHigh();
        final long clientLow = errors.quotedDestinationLow();
        final int clientPort = errors.quotedDestinationPort();
        // The error's own mark, as the kernel looks the service up with the error's skb->mark.
        final int service = current.classifier.lookup(burst.firewallMark(i), isV6, protocol, virtualHigh, virtualLow,
            virtualPort);
        if (service == ServiceClassifier.NONE)
        {
            return 0;
        }
        if (p.ttl(i) <= 1)
        {
            // As for a packet: one that cannot be forwarded opens no connection.
            return Verdict.drop(DropReason.TTL_EXPIRED);
        }
        final int found = table.lookupForward(protocol, clientHigh, clientLow, clientPort, virtualHigh, virtualLow,
            virtualPort);
        if (found >= 0)
        {
            // An expired entry that the sweep has not reached yet (a live one took the error to its server).
            table.remove(found, false);
            table.lookupForward(protocol, clientHigh, clientLow, clientPort, virtualHigh, virtualLow, virtualPort);
        }
        final int entered = enter(current, table, isV6, service, protocol, clientHigh, clientLow, clientPort,
            virtualHigh, virtualLow, virtualPort, burst.firewallMark(i), QUOTED);
        opened[i] = entered;
        if (entered < 0)
        {
            return Verdict.drop(DropReason.of(-1 - entered));
        }
        return errors.towardsServer(burst, i, p, current, entered, enteredMethod, enteredPortKey, isV6, again);
    }

    private int unmatched(final DataPlane current)
    {
        return current.settings.passUnmatched() ? Verdict.pass() : Verdict.drop(DropReason.NO_SERVICE);
    }

    /**
     * A packet from a client: most belong to a connection that is simply followed, which this method does in few
     * bytecodes so that the compiler inlines it into {@link #process}; anything else (a new connection, an expired
     * or reused entry, a server gone) goes to {@link #openConnection}, which decides again from the start.
     */
    private int towardsServer(
        final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane current, final int service)
    {
        final ConnectionTable table = p.kind(i) == KIND_IPV6 ? v6 : v4;
        final int protocol = p.protocol(i);
        final int flags = p.tcpFlags(i);
        final int slot = i == lookedUpFrame ? lookedUpSlot : table.lookupForward(homes[i], protocol, p.sourceHigh(i),
            p.sourceLow(i), p.sourcePort(i), p.destinationHigh(i), p.destinationLow(i), p.destinationPort(i));
        if (slot >= 0)
        {
            withdrawOffloaded(table, slot);
            final int serverSlot = table.server(slot);
            // The same tests as openConnection's, in its order: a live entry to an available server, and no SYN
            // that connection reuse would turn into a new connection.
            if (!table.isExpired(slot, nowTick) && current.serverAvailable[serverSlot] &&
                !((flags & (L4Headers.TCP_SYN | L4Headers.TCP_RST)) == L4Headers.TCP_SYN &&
                    protocol == Ipv4Header.PROTOCOL_TCP && current.settings.connReuse()))
            {
                final int direction = table.isNoOutput(slot) ? TcpStates.INPUT_ONLY : TcpStates.INPUT;
                track(table, slot, direction, flags, current.servers[serverSlot], current.timeouts, current.settings);
                final int method = table.method(slot);
                if (p.fragment(i) == FRAGMENT_FIRST)
                {
                    rememberFirstFragment(p, i, serverSlot, method);
                }
                return forward(burst, i, p, current, serverSlot, method, service, table.portKey(slot));
            }
        }
        return openConnection(burst, i, p, current, service, slot);
    }

    /**
     * Everything of a client's packet but following a live connection: the entry found may be expired, its server
     * unavailable or its state one that a SYN reopens; otherwise a packet that may open a connection is scheduled
     * and entered.
     *
     * @param entry the entry {@link ConnectionTable#lookupForward} found for the packet, or a negative value.
     */
    private int openConnection(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane current,
        final int service, final int entry)
    {
        final boolean isV6 = p.kind(i) == KIND_IPV6;
        final ConnectionTable table = isV6 ? v6 : v4;
        final int protocol = p.protocol(i);
        final int flags = p.tcpFlags(i);
        final boolean tcp = protocol == Ipv4Header.PROTOCOL_TCP;
        final boolean syn = tcp && (flags & (L4Headers.TCP_SYN | L4Headers.TCP_RST)) == L4Headers.TCP_SYN;
        final DataPlaneSettings settings = current.settings;
        int slot = entry;
        if (slot >= 0)
        {
            final int serverSlot = table.server(slot);
            boolean startAfresh = table.isExpired(slot, nowTick);
            if (!startAfresh && !current.serverAvailable[serverSlot])
            {
                if (!settings.expireNodestConn())
                {
                    return Verdict.drop(DropReason.SERVER_REMOVED);
                }
                startAfresh = true;
            }
            if (!startAfresh && syn && settings.connReuse())
            {
                final int state = table.state(slot);
                startAfresh = state == TcpStates.TIME_WAIT || state == TcpStates.CLOSE ||
                    (settings.expireNodestConn() && current.serverQuiesced[serverSlot]);
            }
            if (!startAfresh)
            {
                final RealServer server = current.servers[serverSlot];
                final int direction = table.isNoOutput(slot) ? TcpStates.INPUT_ONLY : TcpStates.INPUT;
                track(table, slot, direction, flags, server, current.timeouts, settings);
                final int method = table.method(slot);
                rememberFirstFragment(p, i, serverSlot, method);
                return forward(burst, i, p, current, serverSlot, method, service, table.portKey(slot));
            }
            table.remove(slot, false);
            // The removal may have shifted the probe run: find where the new entry goes.
            table.lookupForward(protocol, p.sourceHigh(i), p.sourceLow(i), p.sourcePort(i),
                p.destinationHigh(i), p.destinationLow(i), p.destinationPort(i));
        }

        final boolean creates = tcp ? syn || (settings.sloppyTcp() && (flags & L4Headers.TCP_RST) == 0) : true;
        if (!creates)
        {
            // As the kernel: a TCP segment of no known connection is not ours to drop.
            return Verdict.pass();
        }
        if (p.ttl(i) <= 1)
        {
            // Answered before anything is created: a packet that cannot be forwarded opens no connection. From the
            // virtual address, as forward answers.
            opened[i] = refused(DropReason.TTL_EXPIRED);
            return dropAndAnswer(DropReason.TTL_EXPIRED, burst, i, p, current,
                isV6 ? L4Headers.ICMPV6_TIME_EXCEEDED : L4Headers.ICMP_TIME_EXCEEDED, 0, 0, true);
        }
        final int entered = enter(current, table, isV6, service, protocol, p.sourceHigh(i), p.sourceLow(i),
            p.sourcePort(i), p.destinationHigh(i), p.destinationLow(i), p.destinationPort(i), burst.firewallMark(i),
            flags);
        opened[i] = entered;
        if (entered == REFUSED_NO_SERVER)
        {
            return dropAndAnswer(DropReason.NO_SERVER, burst, i, p, current,
                isV6 ? L4Headers.ICMPV6_DESTINATION_UNREACHABLE : L4Headers.ICMP_DESTINATION_UNREACHABLE,
                isV6 ? L4Headers.ICMPV6_CODE_PORT_UNREACHABLE : L4Headers.ICMP_CODE_PORT_UNREACHABLE, 0, true);
        }
        if (entered == REFUSED_TABLE_FULL)
        {
            return Verdict.drop(DropReason.CONNECTION_TABLE_FULL);
        }
        rememberFirstFragment(p, i, entered, enteredMethod);
        return forward(burst, i, p, current, entered, enteredMethod, service, enteredPortKey);
    }

    /**
     * Schedules a new connection of a service and enters it, the part of ip_vs_schedule and ip_vs_conn_new that a
     * client's first packet and an ICMP error quoting a reply (schedule_icmp) share: a persistence template's server
     * or the scheduler's, the template placed, the entry made (none for one-packet scheduling) and counted on its
     * server and service. The table's last lookup must have been the {@link ConnectionTable#lookupForward} of these
     * ends that found nothing. Leaves the connection's method in {@link #enteredMethod} and its port key in
     * {@link #enteredPortKey}.
     *
     * @param tcpFlags the flags of the TCP packet that opens it, moving the entry's state as {@link #track} would; or
     *                 {@link #QUOTED} for an ICMP error, after which the entry is as ip_vs_conn_new leaves one: no
     *                 state, inactive, {@link ConnectionTimeouts#NEW_ENTRY_MS} to live.
     * @return the server's slot, or {@link #REFUSED_NO_SERVER} or {@link #REFUSED_TABLE_FULL}.
     */
    private int enter(final DataPlane current, final ConnectionTable table, final boolean isV6, final int service,
        final int protocol, final long clientHigh, final long clientLow, final int clientPort, final long virtualHigh,
        final long virtualLow, final int virtualPort, final int firewallMark, final int tcpFlags)
    {
        final boolean tcp = protocol == Ipv4Header.PROTOCOL_TCP;
        final DataPlaneSettings settings = current.settings;
        final VirtualService virtualService = current.services[service];
        final ServiceSettings serviceSettings = current.serviceSettings[service];
        int template = TemplateTable.NOT_FOUND;
        long networkHigh = 0;
        long networkLow = 0;
        RealServer server = null;
        if (serviceSettings.persistent())
        {
            final int prefix = serviceSettings.netmaskPrefix();
            networkHigh = isV6 ? maskHigh(clientHigh, prefix) : 0;
            networkLow = isV6 ? maskLow(clientLow, prefix) : maskV4(clientLow, prefix);
            final long found = templates.find(current.templateGroup[service], networkHigh, networkLow, current,
                nowNs);
            if (found != TemplateTable.NOT_FOUND)
            {
                template = TemplateTable.way(found);
                final int templateServer = TemplateTable.server(found);
                server = templateServer != 0 ? current.servers[templateServer] : null;
            }
        }
        final boolean fromTemplate = server != null;
        if (server == null)
        {
            // One read of the service's scheduler, which an edit may replace: the flow is filled for the one that
            // chooses, whenever that one reads it.
            final Scheduler scheduler = virtualService.scheduler();
            if (scheduler.readsFlow())
            {
                if (isV6)
                {
                    flow.setV6(protocolOf(protocol), clientHigh, clientLow, clientPort, virtualHigh, virtualLow,
                        virtualPort);
                }
                else
                {
                    flow.setV4(protocolOf(protocol), (int)clientLow, clientPort, (int)virtualLow, virtualPort);
                }
                flow.firewallMark(firewallMark);
            }
            server = scheduler.schedule(flow, context);
        }
        final int serverSlot = server == null ? 0 : server.forwardingSlot();
        if (serverSlot == 0 || current.servers[serverSlot] != server)
        {
            return REFUSED_NO_SERVER;
        }
        if (serviceSettings.persistent() && !fromTemplate)
        {
            template = templates.place(current.templateGroup[service], networkHigh, networkLow, serverSlot,
                current.servers, nowNs,
                serviceSettings.persistenceSeconds() * 1_000_000_000L);
        }
        // The snapshot's method (0 is NAT), not the server's live one: a reload may be changing it. The entry keeps
        // it for the connection's life.
        final int method = current.forwardMethod[serverSlot];
        final int portKey = virtualPort | current.servicePortKey[service];
        enteredMethod = method;
        enteredPortKey = portKey;
        // One-packet scheduling is for UDP only, also on a -f service whose mark takes TCP too: ip_vs_schedule and
        // ip_vs_sched_persist set IP_VS_CONN_F_ONE_PACKET only for a UDP packet, and a TCP one gets an entry.
        if (serviceSettings.onePacket() && protocol == Ipv4Header.PROTOCOL_UDP)
        {
            counters.connectionOpened();
            traffic.connection(service, serverSlot);
            return serverSlot;
        }
        final int slot = table.insert(protocol, clientHigh, clientLow, clientPort, virtualHigh, virtualLow,
            virtualPort, nowTick);
        if (slot == ConnectionTable.FULL)
        {
            return REFUSED_TABLE_FULL;
        }
        if (template != TemplateTable.NOT_FOUND &&
            templates.attach(template, nowNs, serviceSettings.persistenceSeconds() * 1_000_000_000L))
        {
            table.template(slot, template);
        }
        final boolean inboundOnly = method != 0;
        final boolean quoted = tcpFlags == QUOTED;
        // What track would make of the first packet, written once: the state this packet moves a new entry to,
        // counted active or inactive on its server from the start (as binding it inactive, then activating it).
        final int state = tcp && !quoted ? TcpStates.next(inboundOnly ? TcpStates.INPUT_ONLY : TcpStates.INPUT,
            TcpStates.flagIndex(tcpFlags), TcpStates.NONE) : TcpStates.NONE;
        final boolean active = tcp && TcpStates.isActive(state, settings.activeEstablishedOnly());
        final int entryFlags = (active ? 0 : ConnectionTable.FLAG_INACTIVE) |
            (inboundOnly ? ConnectionTable.FLAG_NO_OUTPUT : 0) | ConnectionTable.methodFlags(method) |
            (portKey != virtualPort ? ConnectionTable.FLAG_PACKETS_PORT : 0);
        table.open(slot, serverSlot, entryFlags, state,
            nowTick + (quoted ? NEW_ENTRY_TICKS : timeoutTicks[tcp ? state : TcpStates.COUNT]));
        if (tcp && state == TcpStates.ESTABLISHED)
        {
            // Sloppy TCP's first packet may establish the connection at once.
            assureTemplate(table, slot);
        }
        server.bindConnection(workerIndex, !active);
        context.countsChanged(server.countersAddress());
        counters.connectionOpened();
        traffic.connection(service, serverSlot);
        return serverSlot;
    }

    /**
     * Answers a frame of the last burst processed that was dropped for want of a next hop and that its caller gave
     * up holding: the sender hears that the host is unreachable (ICMP host unreachable, ICMPv6 address unreachable),
     * as the kernel tells it when a neighbour's resolution fails with packets queued on it (arp_error_report,
     * ipv4_link_failure or ip6_link_failure, then icmp_send): a client of a server gone from the network fails
     * at once instead of waiting out its SYN retries. Rate-limited as every ICMP answer of the pipeline.
     *
     * @param burst the burst {@link #process} or {@link #processAgain} last processed, unchanged since.
     * @param i     the frame, whose verdict was a {@link DropReason#NO_NEIGHBOUR} drop.
     * @return the frame's verdict now: transmit the answer by the port the frame came in on, or the same drop.
     */
    public int answerNoNeighbour(final FrameBurst burst, final int i)
    {
        final boolean isV6 = parsed.kind(i) == KIND_IPV6;
        final int dropped = burst.verdict(i);
        final int verdict = dropAndAnswer(DropReason.NO_NEIGHBOUR, burst, i, parsed, plane,
            isV6 ? L4Headers.ICMPV6_DESTINATION_UNREACHABLE : L4Headers.ICMP_DESTINATION_UNREACHABLE,
            isV6 ? L4Headers.ICMPV6_CODE_ADDRESS_UNREACHABLE : L4Headers.ICMP_CODE_HOST_UNREACHABLE, 0, false);
        if (verdict != dropped)
        {
            // Counted as a drop when it was processed; now as the frames answered are (icmpSent counts its reason).
            // A drop that stands was counted once already.
            counters.reverdict(dropped, verdict);
        }
        return verdict;
    }

    private static int refused(final DropReason reason)
    {
        return -1 - reason.id();
    }

    /**
     * Remembers where a first fragment went, so its later fragments follow it.
     */
    private void rememberFirstFragment(final ParsedBurst p, final int i, final int serverSlot, final int method)
    {
        if (p.fragment(i) == FRAGMENT_FIRST)
        {
            fragments.put(p.sourceHigh(i), p.sourceLow(i), p.destinationHigh(i), p.destinationLow(i), p.protocol(i),
                p.fragmentId(i), serverSlot, method, FragmentTable.TOWARDS_SERVER, 0, 0, nowTick);
        }
    }

    private int towardsClient(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane current)
    {
        final boolean isV6 = p.kind(i) == KIND_IPV6;
        final ConnectionTable table = isV6 ? v6 : v4;
        final int slot = table.lookupReverse(homes[i], p.protocol(i), p.destinationHigh(i), p.destinationLow(i),
            p.destinationPort(i), p.sourceHigh(i), p.sourceLow(i), p.sourcePort(i), current.serverAddresses);
        if (slot >= 0)
        {
            withdrawOffloaded(table, slot);
        }
        // Only NAT replies come back through jvs; DR and TUN servers answer clients directly.
        if (slot < 0 || table.isExpired(slot, nowTick) || table.method(slot) != 0)
        {
            return orphanedOrUnmatched(p, i, current, table);
        }
        final int serverSlot = table.server(slot);
        final RealServer server = current.servers[serverSlot];
        track(table, slot, TcpStates.OUTPUT, p.tcpFlags(i), server, current.timeouts, current.settings);
        if (p.ttl(i) <= 1)
        {
            // Not counted: the kernel's ip_forward drops it before the FORWARD hook where ip_vs_out_hook would.
            return dropAndAnswer(DropReason.TTL_EXPIRED, burst, i, p, current,
                isV6 ? L4Headers.ICMPV6_TIME_EXCEEDED : L4Headers.ICMP_TIME_EXCEEDED, 0, 0, false);
        }
        final long virtualHigh = table.virtualHigh(slot);
        final long virtualLow = table.virtualLow(slot);
        final int datagram = p.ipEnd(i) - p.l3Offset(i);
        final int length = burst.length(i);
        final int rewritten = rewriter.natOutbound(burst, i, p, current, virtualHigh, virtualLow,
            table.virtualPort(slot));
        final int verdict = rewritten == Rewriter.TOO_BIG ? answerTooBig(burst, i, p, current, false) : rewritten;
        if (p.fragment(i) == FRAGMENT_FIRST)
        {
            fragments.put(p.sourceHigh(i), p.sourceLow(i), p.destinationHigh(i), p.destinationLow(i), p.protocol(i),
                p.fragmentId(i), serverSlot, 0, FragmentTable.TOWARDS_CLIENT, virtualHigh, virtualLow, nowTick);
        }
        if (!again)
        {
            // Whatever the verdict: handle_response counts the reply (ip_vs_out_stats) before the stack routes it to
            // the client, so one whose client has no next hop yet is counted; and the server's frame count takes
            // its replies sent or not. Both at the first pass, so a held reply sent at a later one is counted once.
            traffic.serverReplied(current.serverService[serverSlot], serverSlot, datagram, length);
        }
        return verdict;
    }

    /**
     * A packet no service takes and no NAT reply matches may still be a client's on a connection whose service was
     * deleted (ipvsadm -D, or -C before a -R). ip_vs_in_hook looks the connection up (conn_in_get) before it looks
     * for a service, and one whose destination is no longer available is dropped without re-arming its timer, or
     * with expire_nodest_conn expired and the packet scheduled afresh (ip_vs_try_to_schedule: with no service, the
     * host's). Passed to the host, the box's kernel answered it with a reset, so the connection was lost even when
     * the service and its server came back in time to take it back.
     */
    private int orphanedOrUnmatched(final ParsedBurst p, final int i, final DataPlane current,
        final ConnectionTable table)
    {
        final int slot = table.lookupForward(p.protocol(i), p.sourceHigh(i), p.sourceLow(i), p.sourcePort(i),
            p.destinationHigh(i), p.destinationLow(i), p.destinationPort(i));
        if (slot >= 0 && !table.isExpired(slot, nowTick) && !current.serverAvailable[table.server(slot)])
        {
            if (!current.settings.expireNodestConn())
            {
                return Verdict.drop(DropReason.SERVER_REMOVED);
            }
            table.remove(slot, false);
        }
        return unmatched(current);
    }

    /**
     * Moves a connection's state for one packet and re-arms its idle timer (the kernel's set_tcp_state and
     * ip_vs_set_state).
     */
    private void track(final ConnectionTable table, final int slot, final int direction, final int tcpFlags,
        final RealServer server, final ConnectionTimeouts timeouts, final DataPlaneSettings settings)
    {
        final int timeout;
        if (table.protocol(slot) == Ipv4Header.PROTOCOL_TCP)
        {
            final int flags = table.flags(slot);
            int tableDirection = direction;
            if ((flags & ConnectionTable.FLAG_NO_OUTPUT) != 0)
            {
                if (direction == TcpStates.OUTPUT)
                {
                    table.flags(slot, flags & ~ConnectionTable.FLAG_NO_OUTPUT);
                }
                else
                {
                    tableDirection = TcpStates.INPUT_ONLY;
                }
            }
            final int old = table.state(slot);
            final int next = TcpStates.next(tableDirection, TcpStates.flagIndex(tcpFlags), old);
            if (next != old)
            {
                table.state(slot, next);
                changeActivity(table, slot, server, TcpStates.isActive(next, settings.activeEstablishedOnly()));
                if (next == TcpStates.ESTABLISHED)
                {
                    assureTemplate(table, slot);
                }
            }
            timeout = timeoutTicks[next];
        }
        else
        {
            timeout = timeoutTicks[TcpStates.COUNT];
            if (direction == TcpStates.OUTPUT)
            {
                assureTemplate(table, slot);
            }
        }
        table.expiresTick(slot, nowTick + timeout);
    }

    /**
     * Marks the connection's persistence template assured, once: set_tcp_state does it when a connection reaches
     * ESTABLISHED, udp_state_transition on a reply (ip_vs_control_assure_ct), and ipvsadm -L -c then shows the
     * template's state as ASSURED.
     */
    private void assureTemplate(final ConnectionTable table, final int slot)
    {
        final int template = table.template(slot);
        final int flags = table.flags(slot);
        if (template >= 0 && (flags & ConnectionTable.FLAG_ASSURED) == 0)
        {
            table.flags(slot, flags | ConnectionTable.FLAG_ASSURED);
            templates.assure(template);
        }
    }

    /** Moves a connection between its server's active and inactive counts when its state says so. */
    private void changeActivity(final ConnectionTable table, final int slot, final RealServer server,
        final boolean active)
    {
        final int flags = table.flags(slot);
        final boolean inactive = (flags & ConnectionTable.FLAG_INACTIVE) != 0;
        if (inactive && active)
        {
            table.flags(slot, flags & ~ConnectionTable.FLAG_INACTIVE);
            server.connectionActivated(workerIndex);
            context.countsChanged(server.countersAddress());
        }
        else if (!inactive && !active)
        {
            table.flags(slot, flags | ConnectionTable.FLAG_INACTIVE);
            server.connectionDeactivated(workerIndex);
            context.countsChanged(server.countersAddress());
        }
    }

    /**
     * Sends a client's packet, bound to its connection, on to the connection's server. The packet is counted in IPVS's
     * counts first, as ip_vs_in_hook counts it (ip_vs_in_stats) before packet_xmit, whose route lookup
     * (__ip_vs_get_out_rt) may then drop it for its TTL or the MTU, and whose output may find no neighbour: a packet
     * that found or made its connection is in the service's and server's InPkts whatever becomes of it. jvs's frame
     * counts take only the frames that leave.
     *
     * @param portKey the connection's {@link ConnectionTable#portKey}, for NAT's port
     *                ({@link io.jvs.core.conn.ServerAddresses#port}).
     */
    private int forward(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane current,
        final int serverSlot, final int method, final int service, final int portKey)
    {
        if (!again)
        {
            traffic.in(service, serverSlot, p.ipEnd(i) - p.l3Offset(i));
        }
        if (p.ttl(i) <= 1)
        {
            // From the virtual address: IPVS's decrement_ttl (in __ip_vs_get_out_rt) answers while the packet's route
            // is still the local one to it, and __icmp_send / icmp6_send answer from a local destination.
            return dropAndAnswer(DropReason.TTL_EXPIRED, burst, i, p, current,
                p.kind(i) == KIND_IPV6 ? L4Headers.ICMPV6_TIME_EXCEEDED : L4Headers.ICMP_TIME_EXCEEDED, 0, 0, true);
        }
        final int length = burst.length(i);
        final int verdict = switch (method)
        {
            case 0 -> rewriter.natInbound(burst, i, p, current, serverSlot,
                current.serverAddresses.port(serverSlot, portKey));
            case 1 -> rewriter.directRoute(burst, i, p, current, serverSlot);
            default -> rewriter.tunnel(burst, i, p, current, serverSlot);
        };
        if (verdict == Rewriter.TOO_BIG)
        {
            return answerTooBig(burst, i, p, current, true);
        }
        if (Verdict.kind(verdict) == Verdict.TRANSMIT)
        {
            traffic.framesForwarded(service, serverSlot, length);
        }
        return verdict;
    }

    /**
     * Drops a packet the rewriter found {@link Rewriter#TOO_BIG} for its egress port and answers its sender with
     * frag-needed or packet-too-big naming the MTU, as the kernel's icmp_send / icmpv6_send from IPVS's
     * ensure_mtu_is_adequate (towards a server) or ip_forward (a NAT reply towards a client) would.
     * <p>
     * Towards a server the answer comes from the packet's destination, the virtual address: IPVS checks the MTU in
     * __ip_vs_get_out_rt before it drops the packet's route, which is still the local one to the VIP, and
     * __icmp_send answers from the destination when the route is local (RTCF_LOCAL), as icmp6_send does when
     * ipv6_chk_addr finds it. A NAT reply is forwarded (ip_forward) and answered from the address routing picks
     * towards the server, the server side's own.
     *
     * @param towardsServer whether the packet was going to a real server.
     */
    private int answerTooBig(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane current,
        final boolean towardsServer)
    {
        final boolean isV6 = p.kind(i) == KIND_IPV6;
        return dropAndAnswer(DropReason.MTU_EXCEEDED, burst, i, p, current,
            isV6 ? L4Headers.ICMPV6_PACKET_TOO_BIG : L4Headers.ICMP_DESTINATION_UNREACHABLE,
            isV6 ? 0 : L4Headers.ICMP_CODE_FRAGMENTATION_NEEDED, rewriter.tooBigMtu(), towardsServer);
    }

    private int followFragment(final FrameBurst burst, final int i, final ParsedBurst p, final DataPlane current)
    {
        if (!fragments.find(p.sourceHigh(i), p.sourceLow(i), p.destinationHigh(i), p.destinationLow(i),
            p.protocol(i), p.fragmentId(i), nowTick))
        {
            return Verdict.drop(DropReason.FRAGMENT_ORPHAN);
        }
        final int serverSlot = fragments.foundServer();
        if (current.servers[serverSlot] == null)
        {
            return Verdict.drop(DropReason.SERVER_REMOVED);
        }
        final int length = burst.length(i);
        final int datagram = p.ipEnd(i) - p.l3Offset(i);
        final int service = current.serverService[serverSlot];
        final boolean towardsClient = fragments.foundDirection() == FragmentTable.TOWARDS_CLIENT;
        // As forward and towardsClient count: a fragment to a server before its TTL is looked at (ip_vs_in_stats
        // before packet_xmit), one to a client only if its TTL lets the kernel's ip_forward take it to the FORWARD
        // hook (ip_vs_out_stats), whatever the transmit then makes of either.
        if (!towardsClient && !again)
        {
            traffic.in(service, serverSlot, datagram);
        }
        if (p.ttl(i) <= 1)
        {
            return Verdict.drop(DropReason.TTL_EXPIRED);
        }
        if (towardsClient && !again)
        {
            traffic.out(service, serverSlot, datagram);
        }
        if (!again)
        {
            counters.fragmentFollowed();
        }
        final int verdict;
        if (towardsClient)
        {
            verdict = rewriter.natOutbound(burst, i, p, current, fragments.foundVirtualHigh(),
                fragments.foundVirtualLow(), 0);
        }
        else
        {
            verdict = switch (fragments.foundMethod())
            {
                case 0 -> rewriter.natInboundFragment(burst, i, p, current, serverSlot);
                case 1 -> rewriter.directRoute(burst, i, p, current, serverSlot);
                default -> rewriter.tunnel(burst, i, p, current, serverSlot);
            };
        }
        if (verdict == Rewriter.TOO_BIG)
        {
            return answerTooBig(burst, i, p, current, !towardsClient);
        }
        if (Verdict.kind(verdict) == Verdict.TRANSMIT)
        {
            traffic.serverFrame(serverSlot, length);
        }
        return verdict;
    }


    /**
     * Drops a packet and, rate permitting, turns its frame into the ICMP error that answers it. The
     * reason is counted either way; a frame that carries an answer leaves as a transmit on the port it
     * came in on (so frames in = transmitted + passed + dropped still holds).
     */
    private int dropAndAnswer(final DropReason reason, final FrameBurst burst, final int i, final ParsedBurst p,
        final DataPlane current, final int type, final int code, final int mtu, final boolean fromDestination)
    {
        final int result = icmp.answer(burst, i, p, current, nowNs, type, code, mtu, fromDestination);
        if (result == IcmpResponder.SENT)
        {
            counters.icmpSent(reason);
            return Verdict.transmit(burst.ingressPort);
        }
        if (result == IcmpResponder.RATE_LIMITED)
        {
            counters.icmpAnswerSkipped();
        }
        return Verdict.drop(reason);
    }

    private static long maskV4(final long address, final int prefix)
    {
        return prefix == 0 ? 0 : address & (0xFFFF_FFFFL << (32 - prefix)) & 0xFFFF_FFFFL;
    }

    private static long maskHigh(final long high, final int prefix)
    {
        return prefix >= 64 ? high : (prefix == 0 ? 0 : high & (-1L << (64 - prefix)));
    }

    private static long maskLow(final long low, final int prefix)
    {
        return prefix <= 64 ? 0 : (prefix == 128 ? low : low & (-1L << (128 - prefix)));
    }

    private static Protocol protocolOf(final int number)
    {
        return switch (number)
        {
            case Ipv4Header.PROTOCOL_TCP -> Protocol.TCP;
            case Ipv4Header.PROTOCOL_UDP -> Protocol.UDP;
            default -> Protocol.SCTP;
        };
    }

    /**
     * Uncounts a connection that leaves the table: its server's active or inactive count.
     */
    private void onRemoved(final ConnectionTable table, final int slot, final boolean evicted)
    {
        withdrawOffloaded(table, slot);
        final DataPlane current = plane != null ? plane : publisher.current();
        final int serverSlot = table.server(slot);
        final RealServer server = serverSlot > 0 && serverSlot < current.servers.length ? current.servers[serverSlot] : null;
        if (server != null)
        {
            server.unbindConnection(workerIndex, table.isInactive(slot));
            context.countsChanged(server.countersAddress());
        }
        final int template = table.template(slot);
        if (template >= 0)
        {
            templates.detach(template);
        }
        counters.connectionEnded();
    }

    /**
     * Whether a connection whose frame the fast loop just forwarded is one to offer: not offloaded yet, of a service
     * without persistence (a template's timers follow its connections' packets), TCP once established (its other
     * states move on the frames the offload leaves to the pipeline, and their timers differ) or UDP.
     */
    private static boolean readyToOffload(final ConnectionTable table, final int slot, final int entryFlags,
        final int protocol)
    {
        return (entryFlags & ConnectionTable.FLAG_OFFLOADED) == 0 && table.template(slot) < 0 &&
            (protocol == Ipv4Header.PROTOCOL_UDP || table.state(slot) == TcpStates.ESTABLISHED);
    }

    /** Offers the connections the burst found ready, each once. */
    private void offerEstablished(final DataPlane current)
    {
        final ConnectionTable table = v4;
        for (int k = 0; k < offerCount; k++)
        {
            final int slot = offers[k];
            final int flags = table.flags(slot);
            if ((flags & ConnectionTable.FLAG_OFFLOADED) == 0 && table.isUsed(slot) &&
                describe(table, slot, current) && offload.offer(table, slot, described))
            {
                table.flags(slot, flags | ConnectionTable.FLAG_OFFLOADED);
                offloadedCount++;
            }
        }
        offerCount = 0;
    }

    /**
     * A new snapshot: each offloaded connection is offered again as it now describes it (a server's next hop, MTU
     * or port may have changed), or withdrawn when the fast loop would no longer take its frames.
     */
    private void describeOffloadedAgain(final DataPlane current)
    {
        final ConnectionTable table = v4;
        for (int slot = 0, slots = table.slots(); slot < slots && offloadedCount > 0; slot++)
        {
            if (table.isUsed(slot) && (table.flags(slot) & ConnectionTable.FLAG_OFFLOADED) != 0 &&
                !(describe(table, slot, current) && offload.offer(table, slot, described)))
            {
                withdrawOffloaded(table, slot);
            }
        }
    }

    /** Takes an offloaded connection's frames back into the pipeline (nothing for one that is not offloaded). */
    private void withdrawOffloaded(final ConnectionTable table, final int slot)
    {
        final int flags = table.flags(slot);
        if ((flags & ConnectionTable.FLAG_OFFLOADED) != 0)
        {
            offload.withdraw(table, slot);
            table.flags(slot, flags & ~ConnectionTable.FLAG_OFFLOADED);
            offloadedCount--;
        }
    }

    /**
     * Fills {@link #described} with what the fast loop does to the connection's frames under {@code current}.
     *
     * @return false when the loop would not take them (no next hop, a server out of its service, TUN).
     */
    private boolean describe(final ConnectionTable table, final int slot, final DataPlane current)
    {
        final int serverSlot = table.server(slot);
        final int entryFlags = table.flags(slot);
        final int method = ConnectionTable.methodOf(entryFlags);
        final int egress = current.serverEgressPort[serverSlot];
        if (method > 1 || egress == DataPlane.NO_PORT ||
            (entryFlags & DataPlane.FAST_PATH_FLAGS) != current.serverFastPathFlags[serverSlot])
        {
            return false;
        }
        final OffloadedConnection d = described;
        d.protocol = table.protocol(slot);
        d.nat = method == 0;
        d.client = (int)table.clientLow(slot);
        d.clientPort = table.clientPort(slot);
        d.virtual = (int)table.virtualLow(slot);
        d.virtualPort = table.virtualPort(slot);
        d.server = d.nat ? (int)current.serverAddresses.low(serverSlot) : d.virtual;
        d.serverPort = d.nat ? current.serverAddresses.portBySlotRule(serverSlot, d.virtualPort) : d.virtualPort;
        d.serverEgress = egress;
        d.serverMac = current.serverNextHopMac[serverSlot];
        d.serverSourceMac = current.portMac[egress];
        d.serverMtu = current.serverMtu[serverSlot];
        if (d.nat)
        {
            final long hop = current.clientNeighbours.find(false, 0, table.clientLow(slot));
            if (hop == NeighbourIndex.NONE)
            {
                return false;
            }
            d.clientEgress = NeighbourIndex.port(hop);
            d.clientMac = NeighbourIndex.mac(hop);
            d.clientSourceMac = current.portMac[d.clientEgress];
            d.clientMtu = Rewriter.clientMtu(current, d.clientEgress, false, 0, table.clientLow(slot));
        }
        return true;
    }
}
