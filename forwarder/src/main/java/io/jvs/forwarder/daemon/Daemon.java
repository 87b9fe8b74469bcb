package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.io.IoMessages;
import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.pipeline.ClientDispatch;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlanePublisher;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.core.pipeline.TemplateTable;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.pipeline.WorkerEpochs;
import io.jvs.core.rules.RuleException;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;
import io.jvs.forwarder.config.CpuList;
import io.jvs.forwarder.config.InterfaceConfig;
import io.jvs.forwarder.config.OffloadMode;
import io.jvs.forwarder.config.JvsConfig;
import io.jvs.forwarder.config.PortKind;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;
import io.jvs.forwarder.memory.HugePageAllocator;
import io.jvs.forwarder.memory.NativeCachePrefetch;
import io.jvs.forwarder.port.Port;
import io.jvs.forwarder.port.packet.AfPacketPort;
import io.jvs.forwarder.port.packet.AfPacketPrograms;
import io.jvs.forwarder.port.packet.AfPacketSettings;
import io.jvs.forwarder.port.packet.SimulatedPacketKernel;
import io.jvs.forwarder.port.xdp.AfXdpDevices;
import io.jvs.forwarder.port.xdp.AfXdpSettings;
import io.jvs.forwarder.port.xdp.SimulatedXdpKernel;
import io.jvs.forwarder.port.xdp.XdpSteering;
import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.FanoutPrograms;
import io.jvs.nativebindings.bpf.TcPrograms;
import io.jvs.nativebindings.bpf.TcxDirection;
import io.jvs.nativebindings.bpf.TcxLink;
import io.jvs.nativebindings.bpf.XdpFlowTable;
import io.jvs.nativebindings.bpf.XdpKernelDrops;
import io.jvs.nativebindings.bpf.XdpVipFilter;
import io.jvs.nativebindings.packet.AfPacket;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import sun.misc.Signal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * The load balancer as a process ({@code tools/jvs run --config FILE}): reads the configuration, builds the data
 * plane, warms the data path over simulated rings, opens the interfaces (AF_XDP sockets and their XDP program, or
 * AF_PACKET rings with their fanout and steal programs), starts the conductor and one worker per queue, prints
 * one {@code ready} line and tells systemd. SIGHUP reloads the file; SIGTERM or SIGINT stops polling, lets the
 * transmit rings drain, detaches the programs, removes the control socket and exits 0.
 * <p>
 * Every program is attached through a BPF link and every TAP is held by a descriptor, so a daemon killed with
 * SIGKILL leaves no program steering frames to nobody: the kernel drops them with the process.
 */
public final class Daemon implements AutoCloseable
{
    /** Exit status for a configuration or usage the daemon refuses before touching anything. */
    public static final int EXIT_REFUSED = 2;
    /** Exit status when the kernel refused a step of starting (an interface, a program, a socket). */
    public static final int EXIT_FAILED = 1;

    private static final int MAX_SERVICES = 1024;
    private static final int MAX_SERVERS = 8192;
    /** What the warm-up's pipelines offer their connections to: it takes none. */
    private static final io.jvs.core.pipeline.ConnectionOffload WARM_UP_OFFLOAD =
        new io.jvs.core.pipeline.ConnectionOffload()
        {
            @Override
            public boolean offer(final io.jvs.core.conn.ConnectionTable table, final int slot,
                final io.jvs.core.pipeline.OffloadedConnection connection)
            {
                return false;
            }

            @Override
            public void withdraw(final io.jvs.core.conn.ConnectionTable table, final int slot)
            {
            }
        };

    /** The most connections a worker offloads (two flows each, about 100 B of kernel memory a flow). */
    static final int OFFLOADED_PER_WORKER = 1 << 16;
    private static final int HANDOFF_SLOTS = 4096;
    private static final int BATCH = 64;
    /** How long a status waits for a worker's copy of its latency histogram. */
    private static final long LATENCY_COPY_WAIT_NS = 500_000_000L;
    /** The longest the start waits for the servers' next hops: past the kernel's first ARP retransmission. */
    private static final long START_NEXT_HOP_WAIT_NS = 1_500_000_000L;
    /** How often the conductor looks for refused redirects, to take a port that refuses them out at once. */
    private static final long REFUSALS_SAMPLE_NS = 10_000_000L;

    private final Path configFile;
    private final JvsConfig config;
    private final int workers;
    private final Syscalls control = Syscalls.create();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicReference<FrameOwner> owner = new AtomicReference<>();
    private final DaemonCounters counters;
    private Conductor conductor;
    private DataPlaneMaps maps;
    private Worker[] workerAgents;
    private Wakeup[] workerWakeups;
    /** The workers' shared persistence templates, set before the control socket opens. */
    private TemplateTable templates;
    /** Bindings for threads other than the workers and the conductor (control clients), one at a time. */
    private final Syscalls otherThreads = Syscalls.create();
    private final Object listing = new Object();
    private final Object latencyBaselineLock = new Object();
    /** Each worker's latency at the last {@code ipvsadm -Z}, or null: guarded by {@link #latencyBaselineLock}. */
    private final org.HdrHistogram.Histogram[] latencyBaselines;
    private IpvsBackend ipvsBackend;
    /** Set once by the first control client that lists without -n; a race makes two equal ones. */
    private volatile io.jvs.core.control.Names names;
    /** How long the stop waits for the conductor to finish what it is doing (a reload, a ctl change) and stop. */
    static final long CONDUCTOR_STOP_WAIT_MS = 10_000;

    private AgentRunner conductorRunner;
    private AgentRunner[] workerRunners;
    private ControlServer controlServer;
    private HostTap[] taps;
    private boolean closed;
    /** The AF_XDP interfaces' sockets and programs, or null; the conductor's once the daemon runs. */
    private AfXdpDevices xdpDevices;
    /** Unless {@code offload off}: the flows the XDP program forwards, and their counts mapped in. */
    private XdpFlowTable flowTable;
    private XdpFlowTable.FlowStats flowStats;
    private OffloadEgress offloadEgress;
    /**
     * The kernel's drops of frames the AF_XDP interfaces' programs decided on (aborted, refused redirects, unsent
     * bulk transmits), or null without AF_XDP interfaces or when the kernel cannot count them.
     */
    private XdpKernelDrops kernelDrops;
    /** By port, the ifindex {@link #kernelDrops} watches for it, or 0; the conductor's once the daemon runs. */
    private int[] kernelDropsWatched;
    /** By port, the drops counted on devices of its name before it was made again; the conductor's. */
    private long[][] kernelDropsBefore;
    private long lastRefusalsSampleNs = Long.MIN_VALUE / 2;
    /** The refused and unsent redirects of the last look, summed over the ports watched now. */
    private long refusalsSeen;
    /** By port, its place among {@link #xdpDevices}' devices, or -1 for an AF_PACKET interface. */
    private int[] xdpDeviceOf;
    /** By port, the fanout program of an AF_PACKET interface with several workers, or null. */
    private BpfProgram[] fanoutPrograms;
    /** By port, the steal program's link of an AF_PACKET interface, or null; replaced with the device. */
    private TcxLink[] stealLinks;
    /** Fanout groups made for devices made again: each one's group id differs from every earlier one's. */
    private int fanoutGroupsMade;

    private Daemon(final Path configFile, final JvsConfig config, final int workers)
    {
        this.configFile = configFile;
        this.config = config;
        this.workers = workers;
        this.latencyBaselines = new org.HdrHistogram.Histogram[workers];
        this.counters = new DaemonCounters(workers);
    }

    /**
     * The daemon's own entry point, for a JVM started without the tools (tests, a plain {@code java -cp}).
     *
     * @param args {@code --config FILE}.
     */
    public static void main(final String[] args)
    {
        if (args.length != 2 || !args[0].equals("--config"))
        {
            System.err.println("usage: Daemon --config FILE");
            System.exit(EXIT_REFUSED);
        }
        System.exit(run(Path.of(args[1])));
    }

    /**
     * Runs the daemon until SIGTERM or SIGINT.
     *
     * @return the exit status: 0 after a clean stop, {@link #EXIT_REFUSED} for a configuration refused before
     *         anything was touched, {@link #EXIT_FAILED} when starting failed (everything opened is undone).
     */
    public static int run(final Path configFile)
    {
        DaemonLog.takeOverJavaLogging();
        final JvsConfig config;
        try
        {
            config = JvsConfig.load(configFile);
        }
        catch (final RuleException ex)
        {
            DaemonLog.error(ex.getMessage());
            return EXIT_REFUSED;
        }
        catch (final IOException ex)
        {
            DaemonLog.error(IoMessages.describe(configFile, ex));
            return EXIT_REFUSED;
        }
        final String refusal = refusal(config);
        if (refusal != null)
        {
            DaemonLog.error(refusal);
            return EXIT_REFUSED;
        }
        final int workers = workerCount(config);
        final String queueRefusal = queueRefusal(config, workers, Daemon::receiveQueues);
        if (queueRefusal != null)
        {
            DaemonLog.error(queueRefusal);
            return EXIT_REFUSED;
        }
        if (!config.definesServices())
        {
            DaemonLog.warning(config.source() + ": no services (no ipvsadm rule lines and no rules statement): " +
                "every frame goes to the host until a reload or ctl adds some");
        }
        final Daemon daemon;
        try
        {
            daemon = new Daemon(configFile, config, workers);
        }
        catch (final NativeCallException | IllegalStateException | IllegalArgumentException ex)
        {
            DaemonLog.error("cannot start: " + ex.getMessage());
            return EXIT_FAILED;
        }
        // The reason first, then what undoing the start logs ("stopped").
        try (daemon)
        {
            try
            {
                daemon.start();
            }
            catch (final StartFailure ex)
            {
                DaemonLog.error(ex.getMessage());
                return ex.status;
            }
            catch (final NativeCallException | IllegalStateException | IllegalArgumentException ex)
            {
                DaemonLog.error("cannot start: " + ex.getMessage());
                return EXIT_FAILED;
            }
            daemon.awaitStop();
            return 0;
        }
    }

    /**
     * How many workers the daemon runs with a configuration on this machine: its {@code workers} count, or the
     * default for its interfaces and CPUs. The start and a reload both ask here, so that a reload judges a file by
     * what a start with it would run.
     */
    static int workerCount(final JvsConfig config)
    {
        return config.workerCount(Runtime.getRuntime().availableProcessors(), Daemon::receiveQueues);
    }

    /** What the daemon needs of a configuration that the language allows, checked before anything is touched. */
    private static String refusal(final JvsConfig config)
    {
        if (config.interfaces().isEmpty())
        {
            return config.source() + ": no interface statement: the daemon needs at least one interface to own";
        }
        final Syscalls syscalls = Syscalls.create();
        for (final InterfaceConfig face : config.interfaces())
        {
            if (syscalls.ifNameToIndex(face.name()) < 0)
            {
                return config.source() + ":" + face.line() + ": interface " + face.name() +
                    ": no such interface in this network namespace";
            }
        }
        String control = ControlServer.refusal(config.control(), config.controlGroup());
        if (control == null && ControlServer.answers(config.control()))
        {
            // Before the ports: a second daemon would otherwise warm up, take what the first left free (an AF_PACKET
            // device's frames, a TAP's name) and only then find the first at its AF_XDP queue or its socket.
            control = ControlServer.ANOTHER_DAEMON_ANSWERS + " (is it already running with this file?)";
        }
        if (control != null)
        {
            return (config.controlAt() != null ? config.controlAt() : config.source()) + ": control " +
                config.control() + (config.controlAt() != null ? "" : " (the default)") + ": " + control;
        }
        final String cpus = cpusRefusal(config.cpus(), allowedCpus());
        if (cpus != null)
        {
            return config.workersAt() + ": workers: cpus: " + cpus;
        }
        return null;
    }

    /**
     * @param cpus    the CPUs a {@code workers} statement pins its workers to.
     * @param allowed the CPUs this process may run on, or null when that is not known.
     * @return why one of them cannot take a worker, or null.
     */
    static String cpusRefusal(final List<Integer> cpus, final BitSet allowed)
    {
        if (allowed == null)
        {
            return null;
        }
        for (final int cpu : cpus)
        {
            if (!allowed.get(cpu))
            {
                return "CPU " + cpu + " is not one this process may run on (" + CpuList.format(allowed) + ")";
            }
        }
        return null;
    }

    /** The process's CPUs, as the kernel lists them in /proc/self/status (its affinity, cpusets included). */
    private static BitSet allowedCpus()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Cpus_allowed_list:"))
                {
                    return CpuList.parseSet(line.substring("Cpus_allowed_list:".length()).trim());
                }
            }
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            // Unknown: the worker reports a CPU it cannot bind to when it starts.
        }
        return null;
    }

    /**
     * An AF_XDP socket is bound to one receive queue and worker q binds queue q of every AF_XDP device, so such a
     * device needs a queue for every worker and a worker for every queue: a frame the device steers to a queue
     * without a socket is passed to the kernel, which answers a VIP on lo with a reset or not at all. AF_PACKET
     * devices are shared by fanout and take any count.
     *
     * @param workers      how many workers the daemon would run ({@link #workerCount}).
     * @param deviceQueues the receive queues a device (by name) has.
     * @return why a device's queues and the workers do not match, naming the interface's file and line, or null.
     */
    static String queueRefusal(final JvsConfig config, final int workers, final ToIntFunction<String> deviceQueues)
    {
        for (final InterfaceConfig face : config.interfaces())
        {
            if (face.port() != PortKind.AFXDP)
            {
                continue;
            }
            final String at = config.source() + ":" + face.line() + ": interface " + face.name() + " has ";
            final int queues = deviceQueues.applyAsInt(face.name());
            final String has = queues + " receive queue" + (queues == 1 ? "" : "s");
            if (queues < workers)
            {
                return at + has + " but " + workers + " workers: with port afxdp " +
                    "each worker owns a queue of every interface (give it more queues with 'ethtool -L " +
                    face.name() + " combined " + workers + "', set 'workers " + queues + "', or use port afpacket)";
            }
            if (face.queuesGiven() && face.queues() != queues)
            {
                return at + has + " but queues " + face.queues() + ": " + (face.queues() < queues ?
                    "frames it steers to " + range(face.queues(), queues) + " would reach no socket and go to " +
                        "the kernel" : "it has no " + range(queues, face.queues())) + " (write 'queues " +
                    queues + "' or leave queues out, or give it " + face.queues() + " with 'ethtool -L " +
                    face.name() + " combined " + face.queues() + "' or 'rx " + face.queues() + "')";
            }
            if (workers < queues)
            {
                return at + has + " but " + workers + " worker" + (workers == 1 ? "" : "s") + ": with port afxdp " +
                    "worker q serves queue q, so frames it steers to " + range(workers, queues) + " would reach " +
                    "no socket and go to the kernel (set 'workers " + queues + "', or give it " + workers +
                    " with 'ethtool -L " + face.name() + " combined " + workers + "' or 'rx " + workers + "')";
            }
        }
        return null;
    }

    /** @return "queue 2" or "queues 2-3": the queues from {@code from} to before {@code to}. */
    private static String range(final int from, final int to)
    {
        return to - from == 1 ? "queue " + from : "queues " + from + "-" + (to - 1);
    }

    /** The device's real receive queues, as sysfs lists them (veth: only the real ones, not numrxqueues). */
    static int receiveQueues(final String device)
    {
        int count = 0;
        try (DirectoryStream<Path> queues = Files.newDirectoryStream(Path.of("/sys/class/net", device, "queues"),
            "rx-*"))
        {
            for (final Path ignored : queues)
            {
                count++;
            }
        }
        catch (final IOException ex)
        {
            return 1;
        }
        return Math.max(1, count);
    }

    private void start()
    {
        final SchedulerSettings schedulerSettings = config.schedulerSettings(workers);
        final ServiceTable table;
        try
        {
            table = config.serviceTable(schedulerSettings);
        }
        catch (final RuleException ex)
        {
            throw new StartFailure(ex.getMessage(), EXIT_REFUSED);
        }
        final Syscalls[] workerSyscalls = new Syscalls[workers];
        for (int w = 0; w < workers; w++)
        {
            workerSyscalls[w] = Syscalls.create();
        }
        final KernelTopology topology = own(KernelTopology.open(control, config));
        final WorkerEpochs epochs = new WorkerEpochs(workers);
        final DataPlaneBuilder builder = new DataPlaneBuilder(MAX_SERVICES, MAX_SERVERS, epochs);
        final ConnectionTimeouts timeouts = config.connectionTimeouts();
        final DataPlane first = Conductor.firstSnapshot(table, builder, topology, timeouts, config.settings(),
            config.markRules());
        final DataPlanePublisher publisher = new DataPlanePublisher(first);
        // Asks the kernel for the next hops the first snapshot lacks, while the rest starts.
        topology.poll(System.nanoTime());

        try
        {
            warmUp(first.topology());
        }
        catch (final StartFailure ex)
        {
            throw ex;
        }
        catch (final RuntimeException ex)
        {
            // The warm-up makes the first packets fast; without it they are slow, not lost: start anyway.
            DaemonLog.warning("the data path's warm-up failed, so the JIT compiles it on the first real packets: " +
                ex.getMessage());
        }

        final XdpVipFilter filter = own(XdpVipFilter.create(control, 4096));
        maps = new DataPlaneMaps(filter, config.vipArp());
        maps.update(Conductor.virtualAddresses(table, config.markRules()),
            Conductor.sourceAddresses(table, config.markRules()), topology.localAddresses(),
            Conductor.destinationPrefixes(config.markRules()), Conductor.sourcePrefixes(config.markRules()), false);
        warnOfUnsteerableMarks();
        offloadPrepared(filter);
        final Port[][] ports = openPorts(workerSyscalls, filter);
        final String[] portNames = new String[config.interfaces().size()];
        final int[] boundIndexes = new int[portNames.length];
        for (int p = 0; p < portNames.length; p++)
        {
            portNames[p] = config.interfaces().get(p).name();
            boundIndexes[p] = control.ifNameToIndex(portNames[p]);
        }
        kernelDrops = watchKernelDrops(boundIndexes);
        taps = openTaps(workerSyscalls, first.topology());
        final HostTap[] hostTaps = taps;
        final Syscalls tapControl = Syscalls.create();
        topology.onPortMac((port, mac) ->
        {
            conductor.portMacChanged(port, mac);
            hostTaps[port].mac(tapControl, mac);
        });

        conductor = new Conductor(table, builder, publisher, topology, maps, timeouts, config.settings(),
            config.markRules(), config);
        conductor.epochs(epochs);
        if (offloadEgress != null)
        {
            conductor.periodically(offloadEgress::check);
            if (kernelDrops != null)
            {
                conductor.periodically(this::egressCheckedOnRefusals);
            }
        }
        refreshOwner(maps);
        conductor.afterPublish(() -> refreshOwner(maps));
        final StolenFrames stolen = new StolenFrames();
        stolen.update(maps.vips(), topology.localAddresses(), maps.sources(), maps.destinationPrefixes(),
            maps.sourcePrefixes());
        conductor.afterPublish(() -> stolen.update(maps.vips(), topology.localAddresses(), maps.sources(),
            maps.destinationPrefixes(), maps.sourcePrefixes()));

        if (config.vipArp())
        {
            conductor.announcer(own(VipAnnouncer.open(control, announcerInterfaces(first.topology()))),
                Conductor.virtualAddresses(table, config.markRules()));
        }
        // The servers' next hops before ready (an ARP answer may have been lost while the programs attached).
        final java.util.Set<IpAddress> servers = Conductor.serverAddressesOf(table);
        final java.util.Set<IpAddress> unresolved = Conductor.awaitNextHops(topology, servers, servers,
            START_NEXT_HOP_WAIT_NS);
        if (!unresolved.isEmpty())
        {
            DaemonLog.warning("no MAC yet for the next hop of " + unresolved + ": their first frames wait (up to a " +
                "second) for the kernel to resolve them");
        }
        conductor.publish(System.nanoTime());

        final TemplateTable templates = new TemplateTable(Math.max(1024, config.connections() / 16),
            HugePageAllocator.FAULTED_IN);
        this.templates = templates;
        final HandoffRing[][] rings = new HandoffRing[workers][workers];
        final boolean handsOff = workers > 1;
        if (handsOff)
        {
            for (int from = 0; from < workers; from++)
            {
                for (int to = 0; to < workers; to++)
                {
                    if (from != to)
                    {
                        rings[from][to] = own(new HandoffRing(HANDOFF_SLOTS));
                    }
                }
            }
        }
        final Wakeup[] wakeups = new Wakeup[workers];
        workerWakeups = wakeups;
        for (int w = 0; w < workers; w++)
        {
            wakeups[w] = own(new Wakeup(workerSyscalls[w]));
        }
        workerAgents = new Worker[workers];
        final WorkerIdleStrategy[] idles = new WorkerIdleStrategy[workers];
        for (int w = 0; w < workers; w++)
        {
            final Pipeline pipeline = new Pipeline(publisher, w, config.connections(),
                Math.max(1024, config.connections() / 4), MAX_SERVICES, MAX_SERVERS,
                config.settings().icmpRepliesPerSecond(), HugePageAllocator.FAULTED_IN, templates, epochs,
                NativeCachePrefetch.best());
            pipeline.limitBurstSweep(Worker.BURST_SWEEP_SLOTS);
            final boolean[] portHandsOff = new boolean[ports[w].length];
            final HostPassPolicy[] policies = new HostPassPolicy[ports[w].length];
            for (int p = 0; p < ports[w].length; p++)
            {
                final boolean xdp = config.interfaces().get(p).port() == PortKind.AFXDP;
                portHandsOff[p] = handsOff && xdp;
                policies[p] = xdp ? HostPassPolicy.ALWAYS : stolen;
            }
            final HandoffRing[] inbound = new HandoffRing[workers];
            for (int from = 0; from < workers; from++)
            {
                inbound[from] = rings[from][w];
            }
            final Worker worker = new Worker(w, ports[w], portHandsOff, pipeline, taps, policies, rings[w], inbound,
                wakeups, workerSyscalls[w], owners(owner), counters, BATCH, conductor.fromWorkers());
            workerAgents[w] = worker;
            if (flowStats != null)
            {
                final int pairs = flowStats.slots() / 2 / workers;
                final XdpFlowOffload offload = new XdpFlowOffload(pipeline, own(flowTable.flows().elements()),
                    flowStats, w * 2 * pairs, pairs, pipeline.connectionsV4().slots(), counters, w,
                    offloadEgress::anyTakes);
                pipeline.offloadTo(offload);
                worker.offload(offload);
            }
            if (!config.cpus().isEmpty())
            {
                worker.pinTo(config.cpus().get(w));
            }
            final PollSet pollSet = own(new PollSet(workerSyscalls[w], pollFds(ports[w], wakeups[w]), true));
            worker.sleepsIn(pollSet);
            idles[w] = new WorkerIdleStrategy(config.idle(), pollSet, wakeups[w], worker::longestSleepMs)
                .countInto(counters, w);
        }

        try
        {
            ipvsBackend = new IpvsBackend(this, new io.jvs.core.control.KernelChecks.Limits(MAX_SERVICES,
                MAX_SERVERS), config.connections());
            controlServer = ControlServer.open(config.control(), config.controlGroup(), this::answer,
                new NetlinkBackend(ipvsBackend));
        }
        catch (final IOException ex)
        {
            throw new StartFailure("control socket " + ex.getMessage(), EXIT_FAILED);
        }

        // Workers are made: a device made again under an interface's name has its ports opened on it from now on.
        final PortReopener reopener = own(new PortReopener(portNames, boundIndexes, workerAgents, wakeups, control,
            port -> reopenPorts(port, filter), (port, link) ->
            {
                conductor.portReopened(port, link.index(), link.mac());
                kernelDropsMoved(port, link.index());
            }));
        topology.onPortLink(reopener::linkChanged);

        final ErrorHandler errors = error -> DaemonLog.error("uncaught in an agent: " + error);
        final io.jvs.core.stats.TrafficStats[] traffic = new io.jvs.core.stats.TrafficStats[workers];
        for (int w = 0; w < workers; w++)
        {
            traffic[w] = workerAgents[w].pipeline().traffic();
        }
        conductor.ledger(new io.jvs.core.stats.TrafficLedger(traffic), System.nanoTime());
        final Wakeup conductorWakeup = own(new Wakeup(control));
        final int[] conductorFds = conductor.descriptors();
        final int[] conductorPoll = java.util.Arrays.copyOf(conductorFds, conductorFds.length + 1);
        conductorPoll[conductorFds.length] = conductorWakeup.fd();
        conductor.wakeup(conductorWakeup, Syscalls.create());
        conductor.workerWakeups(workerWakeups, control);
        for (final Worker worker : workerAgents)
        {
            worker.wakeConductor(conductorWakeup);
        }
        final ConductorIdleStrategy conductorIdle = new ConductorIdleStrategy(own(new PollSet(control, conductorPoll)),
            conductorWakeup, conductor::hasInput);
        // The start's garbage (parsing, the warm-up, the first snapshot) collected now, before any traffic: the
        // first young collections under traffic otherwise copy what it left alive, the longest pauses the workers
        // ever meet (perf/RESULTS.md, issue 11's twenty-second session).
        System.gc();
        conductorRunner = new AgentRunner(conductorIdle, errors, null, conductor);
        AgentRunner.startOnThread(conductorRunner);
        workerRunners = new AgentRunner[workers];
        for (int w = 0; w < workers; w++)
        {
            workerRunners[w] = new AgentRunner(idles[w], errors, null, workerAgents[w]);
            AgentRunner.startOnThread(workerRunners[w]);
        }
        installSignals();
        final String summary = "ready: " + workers + " worker" + (workers == 1 ? "" : "s") + ", " +
            describeInterfaces() + ", " + table.services().size() + (table.services().size() == 1 ? " service, " :
            " services, ") + table.allServers().size() + (table.allServers().size() == 1 ? " real server" :
            " real servers") + ", idle " + config.idle().word() + ", control " + config.control() + ", config " +
            configFile;
        DaemonLog.info(summary);
        SystemdNotify.notify("READY=1\nSTATUS=" + summary);
    }

    /**
     * The programs steer frames to jvs by a mark statement's source or destination (a host through the hash maps, a
     * wider prefix through the LPM tries); a statement naming neither (only an interface, a protocol or a port)
     * gives them nothing to steer by, so its frames reach jvs only if a VIP, a real server or another statement's
     * address brings them.
     */
    private void warnOfUnsteerableMarks()
    {
        for (final io.jvs.core.pipeline.MarkRule mark : config.markRules())
        {
            if (mark.source() == null && mark.destination() == null)
            {
                DaemonLog.warning("mark " + Integer.toUnsignedString(mark.mark()) + " names no src or dst: the " +
                    "programs steer frames to jvs by address (VIPs, real servers, mark statements' sources and " +
                    "destinations), so its frames reach jvs only if one of those brings them");
            }
        }
    }

    private void refreshOwner(final DataPlaneMaps maps)
    {
        owner.set(frameOwner(new ClientDispatch(workers, maps.vips(), maps.destinationPrefixes())));
    }

    /** One lambda class for the live workers' owner and the warm-up's: the worker's call on it is compiled for one. */
    private static FrameOwner frameOwner(final ClientDispatch dispatch)
    {
        return dispatch::workerOf;
    }

    /** As {@link #frameOwner}: one class of supplier for the live workers and the warm-up's. */
    private static Supplier<FrameOwner> owners(final AtomicReference<FrameOwner> owner)
    {
        return owner::get;
    }

    private String describeInterfaces()
    {
        final StringBuilder text = new StringBuilder();
        for (final InterfaceConfig face : config.interfaces())
        {
            text.append(text.isEmpty() ? "" : ", ").append(face.name()).append(" (").append(face.port().word());
            if (face.port() == PortKind.AFXDP)
            {
                text.append(" xdp ").append(face.xdpMode().name().toLowerCase(java.util.Locale.ROOT))
                    .append(workers == 1 ? " queue 0" : " queues 0-" + (workers - 1));
            }
            text.append(")");
        }
        return text.toString();
    }

    private static int[] pollFds(final Port[] ports, final Wakeup wakeup)
    {
        final int[] fds = new int[ports.length + 1];
        for (int p = 0; p < ports.length; p++)
        {
            fds[p] = Worker.receiveFd(ports[p]);
        }
        fds[ports.length] = wakeup.fd();
        return fds;
    }

    /** @return by worker, its ports in interface order. */
    /**
     * Unless {@code offload off}, makes the flow table the AF_XDP ports' program forwards established connections by
     * (XdpFlowTable), before the ports load it: room for {@link #OFFLOADED_PER_WORKER} connections a worker (at most
     * its table's), and the ports whose devices take redirected frames as its egresses ({@link OffloadEgress}). Every
     * interface must be an AF_XDP one: the program runs on those only, and an AF_PACKET port's frames would reach
     * the kernel as well.
     */
    private void offloadPrepared(final XdpVipFilter filter)
    {
        final OffloadMode mode = config.offload();
        if (mode == OffloadMode.OFF)
        {
            return;
        }
        if (config.interfaces().stream().anyMatch(face -> face.port() != PortKind.AFXDP))
        {
            offloadNote(mode, "offload: off, as it needs every interface on port afxdp");
            return;
        }
        final OffloadEgress egress;
        try
        {
            egress = new OffloadEgress(control, config.interfaces().stream().map(InterfaceConfig::name).toList(),
                mode == OffloadMode.ON);
        }
        catch (final NativeCallException ex)
        {
            offloadNote(mode, "offload: off, as the kernel does not say which devices take redirected frames " +
                "(its netdev netlink family, Linux 6.3 or later): " + ex.getMessage());
            return;
        }
        own(egress);
        final int perWorker = Math.min(OFFLOADED_PER_WORKER, config.connections());
        flowTable = own(XdpFlowTable.create(control, 2 * perWorker * workers));
        egress.table(flowTable);
        egress.check(System.nanoTime());
        offloadEgress = egress;
        flowStats = own(flowTable.mapStats(control));
        filter.forwardFlows(flowTable);
        DaemonLog.info("offload: established IPv4 NAT and DR connections forwarded in XDP, up to " + perWorker +
            " a worker");
    }

    /**
     * Counts what the kernel drops after the AF_XDP interfaces' programs (XdpKernelDrops), for the status: without
     * it a frame the kernel refused to redirect, or a redirected one the egress device could not take, would be
     * seen only in that device's own statistics.
     *
     * @return null without AF_XDP interfaces, or when the kernel cannot count them (said once, in passing).
     */
    private XdpKernelDrops watchKernelDrops(final int[] boundIndexes)
    {
        if (config.interfaces().stream().noneMatch(face -> face.port() == PortKind.AFXDP))
        {
            return null;
        }
        final XdpKernelDrops drops;
        try
        {
            drops = own(XdpKernelDrops.open(control, boundIndexes.length));
        }
        catch (final java.io.IOException | NativeCallException ex)
        {
            DaemonLog.info("the kernel's drops after XDP (xdp-aborted, xdp-*-refused, xdp-transmit-dropped) are " +
                "not counted: " + ex.getMessage());
            return null;
        }
        kernelDropsWatched = new int[boundIndexes.length];
        kernelDropsBefore = new long[boundIndexes.length][XdpKernelDrops.COUNTS];
        for (int p = 0; p < boundIndexes.length; p++)
        {
            if (config.interfaces().get(p).port() == PortKind.AFXDP)
            {
                drops.watch(boundIndexes[p]);
                kernelDropsWatched[p] = boundIndexes[p];
            }
        }
        return drops;
    }

    /**
     * On the conductor, every {@link #REFUSALS_SAMPLE_NS}: when the kernel refused or failed to send redirected frames
     * since the last look, asks it at once which ports take them ({@link OffloadEgress#checkNow}), so that a port
     * whose device stopped taking them (a veth whose peer stopped running NAPI) leaves the flow table's egresses at
     * its first refused frames rather than at the next second's check, and its flows go through the workers.
     */
    private void egressCheckedOnRefusals(final long nowNs)
    {
        if (nowNs - lastRefusalsSampleNs < REFUSALS_SAMPLE_NS)
        {
            return;
        }
        lastRefusalsSampleNs = nowNs;
        // Without a connection in the flow table no frame is redirected to a port: an idle daemon makes no call.
        long offloadedNow = 0;
        for (int w = 0; w < workers; w++)
        {
            offloadedNow += counters.get(w, DaemonCounters.OFFLOADED) -
                counters.get(w, DaemonCounters.OFFLOAD_WITHDRAWN);
        }
        if (offloadedNow == 0)
        {
            return;
        }
        long refusals = 0;
        for (int p = 0; p < kernelDropsWatched.length; p++)
        {
            if (kernelDropsWatched[p] != 0)
            {
                final long[] counted = kernelDrops.counts(kernelDropsWatched[p]);
                refusals += counted[XdpKernelDrops.DEVICE_REFUSED] + counted[XdpKernelDrops.TRANSMIT_DROPPED];
            }
        }
        if (refusals != refusalsSeen)
        {
            refusalsSeen = refusals;
            offloadEgress.checkNow(nowNs);
        }
    }

    /** On the conductor: port {@code port}'s device was made again as {@code ifindex}; its counts carry over. */
    private void kernelDropsMoved(final int port, final int ifindex)
    {
        if (kernelDrops == null || kernelDropsWatched[port] == 0)
        {
            return;
        }
        synchronized (kernelDrops)
        {
            final long[] counted = kernelDrops.counts(kernelDropsWatched[port]);
            for (int c = 0; c < counted.length; c++)
            {
                kernelDropsBefore[port][c] += counted[c];
            }
            kernelDrops.unwatch(kernelDropsWatched[port]);
            kernelDrops.watch(ifindex);
            kernelDropsWatched[port] = ifindex;
        }
    }

    /**
     * @return by AF_XDP interface (in interface order, null for others), the kernel's drops after its program
     *         ({@link XdpKernelDrops#counts}); all null without AF_XDP interfaces; null when the kernel cannot count
     *         them or the daemon is stopping.
     */
    long[][] kernelDrops()
    {
        if (kernelDrops == null)
        {
            // Without AF_XDP interfaces there is nothing to count: zeros, not "not counted".
            return kernelDropsWatched == null && xdpDeviceOf != null && java.util.Arrays.stream(xdpDeviceOf)
                .allMatch(device -> device < 0) ? new long[xdpDeviceOf.length][] : null;
        }
        // Read here, not on the conductor: a status still shows them while a reload holds the conductor. The lock
        // keeps a port's device made again (kernelDropsMoved, on the conductor) from being read half moved.
        synchronized (kernelDrops)
        {
            final long[][] counts = new long[kernelDropsWatched.length][];
            try
            {
                for (int p = 0; p < counts.length; p++)
                {
                    if (kernelDropsWatched[p] != 0)
                    {
                        counts[p] = kernelDrops.counts(kernelDropsWatched[p]);
                        for (int k = 0; k < counts[p].length; k++)
                        {
                            counts[p][k] += kernelDropsBefore[p][k];
                        }
                    }
                }
            }
            catch (final RuntimeException ex)
            {
                // The map closed as the daemon stops.
                return null;
            }
            return counts;
        }
    }

    /** What keeps {@code offload} from working: a warning when the file asked for it, else said in passing. */
    private static void offloadNote(final OffloadMode mode, final String message)
    {
        if (mode == OffloadMode.ON)
        {
            DaemonLog.warning(message);
        }
        else
        {
            DaemonLog.info(message);
        }
    }

    private Port[][] openPorts(final Syscalls[] workerSyscalls, final XdpVipFilter filter)
    {
        final List<InterfaceConfig> faces = config.interfaces();
        final Port[][] ports = new Port[workers][faces.size()];
        xdpDeviceOf = new int[faces.size()];
        java.util.Arrays.fill(xdpDeviceOf, -1);
        fanoutPrograms = new BpfProgram[faces.size()];
        stealLinks = new TcxLink[faces.size()];
        final List<String> xdpDevices = new ArrayList<>();
        final List<AfXdpSettings> xdpSettings = new ArrayList<>();
        final List<Integer> xdpIndexes = new ArrayList<>();
        for (int p = 0; p < faces.size(); p++)
        {
            final InterfaceConfig face = faces.get(p);
            if (face.port() == PortKind.AFXDP)
            {
                xdpDeviceOf[p] = xdpDevices.size();
                xdpDevices.add(face.name());
                xdpIndexes.add(p);
                xdpSettings.add(xdpSettings(face));
            }
        }
        if (!xdpDevices.isEmpty())
        {
            final AfXdpDevices devices = own(AfXdpDevices.open(control, workerSyscalls,
                xdpDevices.toArray(String[]::new), xdpSettings.toArray(AfXdpSettings[]::new), filter, portIndexes(
                xdpIndexes)));
            this.xdpDevices = devices;
            for (int w = 0; w < workers; w++)
            {
                for (int d = 0; d < xdpDevices.size(); d++)
                {
                    ports[w][xdpIndexes.get(d)] = devices.port(w, d);
                }
            }
        }
        for (int p = 0; p < faces.size(); p++)
        {
            final InterfaceConfig face = faces.get(p);
            if (face.port() != PortKind.AFPACKET)
            {
                continue;
            }
            // One fanout group per interface whose program picks each frame's worker (ClientDispatch's rule over
            // the VIP map); the sockets join in worker order, so worker w is the group's socket w. A single worker
            // needs no group, and spares every frame the program.
            if (workers == 1)
            {
                ports[0][p] = own(AfPacketPort.open(workerSyscalls[0], p, face.name(), AfPacketSettings.DEFAULT,
                    AfPacketPort.Direction.BOTH));
            }
            else
            {
                final int group = (int)((ProcessHandle.current().pid() * 31 + p) & 0xFFFF);
                final BpfProgram fanout = own(FanoutPrograms.load(control, workers, filter));
                fanoutPrograms[p] = fanout;
                final AfPacketSettings settings = AfPacketSettings.DEFAULT.withFanout(group,
                    AfPacket.PACKET_FANOUT_EBPF);
                for (int w = 0; w < workers; w++)
                {
                    ports[w][p] = own(AfPacketPort.open(workerSyscalls[w], p, face.name(), settings,
                        AfPacketPort.Direction.BOTH, AfPacketPrograms.NONE.withFanout(fanout)));
                }
            }
            // Only now, with every worker in the group: the kernel stops processing what jvs forwards.
            try (BpfProgram steal = TcPrograms.loadStealJvsTraffic(control, filter))
            {
                stealLinks[p] = own(TcxLink.attach(control, steal, face.name(), TcxDirection.INGRESS));
            }
        }
        return ports;
    }

    /**
     * Opens interface {@code p}'s ports and programs again, as {@link #openPorts} did, on the device that now has
     * its name (the conductor's thread, {@link PortReopener}). Each new port gets bindings of its own, which its
     * worker alone uses once it takes the port: the worker's are not thread-safe and in use.
     */
    private PortReopener.Reopened reopenPorts(final int p, final XdpVipFilter filter)
    {
        final InterfaceConfig face = config.interfaces().get(p);
        final Syscalls[] portSyscalls = new Syscalls[workers];
        for (int w = 0; w < workers; w++)
        {
            portSyscalls[w] = Syscalls.create();
        }
        if (face.port() == PortKind.AFXDP)
        {
            final int device = xdpDeviceOf[p];
            final Port[] replaced = xdpDevices.reopen(control, device, portSyscalls, xdpSettings(face), filter, p);
            final Port[] opened = new Port[workers];
            for (int w = 0; w < workers; w++)
            {
                opened[w] = xdpDevices.port(w, device);
            }
            // The AF_XDP devices' close closes the new ports and program.
            return new PortReopener.Reopened(opened, () -> { }, () -> closeAll(replaced));
        }
        final Port[] opened = new Port[workers];
        TcxLink steal = null;
        try
        {
            if (workers == 1)
            {
                opened[0] = AfPacketPort.open(portSyscalls[0], p, face.name(), AfPacketSettings.DEFAULT,
                    AfPacketPort.Direction.BOTH);
            }
            else
            {
                // A group of its own: the old group's sockets stay until the workers let go of them, and a socket
                // joins only a group of its device (fanout_add).
                fanoutGroupsMade++;
                final int group = (int)((ProcessHandle.current().pid() * 31 + p + 7919L * fanoutGroupsMade) & 0xFFFF);
                final AfPacketSettings settings = AfPacketSettings.DEFAULT.withFanout(group,
                    AfPacket.PACKET_FANOUT_EBPF);
                for (int w = 0; w < workers; w++)
                {
                    opened[w] = AfPacketPort.open(portSyscalls[w], p, face.name(), settings,
                        AfPacketPort.Direction.BOTH, AfPacketPrograms.NONE.withFanout(fanoutPrograms[p]));
                }
            }
            try (BpfProgram program = TcPrograms.loadStealJvsTraffic(control, filter))
            {
                steal = TcxLink.attach(control, program, face.name(), TcxDirection.INGRESS);
            }
        }
        catch (final RuntimeException ex)
        {
            closeAll(opened);
            throw ex;
        }
        final Port[] replaced = new Port[workers];
        for (int w = 0; w < workers; w++)
        {
            replaced[w] = workerAgents[w].ports()[p];
        }
        final TcxLink replacedSteal = stealLinks[p];
        stealLinks[p] = steal;
        final TcxLink openedSteal = steal;
        // The steal link before the ports, as at the stop: the originals go back to the kernel first.
        return new PortReopener.Reopened(opened, () ->
        {
            openedSteal.close();
            closeAll(opened);
        }, () ->
        {
            if (replacedSteal != null)
            {
                replacedSteal.close();
            }
            closeAll(replaced);
        });
    }

    private static void closeAll(final Port[] ports)
    {
        for (final Port port : ports)
        {
            if (port != null)
            {
                port.close();
            }
        }
    }

    private AfXdpSettings xdpSettings(final InterfaceConfig face)
    {
        return AfXdpSettings.defaults(face.xdpMode()).withBindMode(face.zeroCopy())
            .withSteering(XdpSteering.VIP_FILTER).withQueues(0, workers);
    }

    private static int[] portIndexes(final List<Integer> indexes)
    {
        return indexes.stream().mapToInt(Integer::intValue).toArray();
    }

    private List<VipAnnouncer.Interface> announcerInterfaces(final Topology topology)
    {
        final List<VipAnnouncer.Interface> interfaces = new ArrayList<>();
        for (int p = 0; p < config.interfaces().size(); p++)
        {
            final Topology.Port port = topology.ports().get(p);
            interfaces.add(new VipAnnouncer.Interface(config.interfaces().get(p).name(),
                control.ifNameToIndex(config.interfaces().get(p).name()), port.mac(), port.ipv4(), port.ipv6()));
        }
        return interfaces;
    }

    private HostTap[] openTaps(final Syscalls[] workerSyscalls, final Topology topology)
    {
        final HostTap[] opened = new HostTap[config.interfaces().size()];
        for (int p = 0; p < opened.length; p++)
        {
            opened[p] = own(HostTap.open(control, workerSyscalls, "jvs" + p,
                HostTap.macBytes(topology.ports().get(p).mac())));
        }
        return opened;
    }

    /**
     * Runs a scratch worker over simulated rings with frames for the configured services, so C2 has compiled the
     * burst loop and the pipeline before the first real frame. Its services, pipeline and tables are copies.
     */
    private void warmUp(final Topology topology)
    {
        final long started = System.nanoTime();
        // The ports are of the classes the real ones will be, over rings whose kernel side is simulated: the worker's
        // calls into its ports are then compiled for those classes, and the ports' own code is compiled too. With more
        // than one live worker, two scratch workers hand each other the frames of the other's clients, as live ones
        // do, each on its own simulated rings (its own UMEM, as a live worker's); one thread runs both.
        final int scratchWorkers = workers > 1 ? 2 : 1;
        final ServiceTable scratch;
        try
        {
            scratch = config.serviceTable(config.schedulerSettings(scratchWorkers));
        }
        catch (final RuleException ex)
        {
            throw new StartFailure(ex.getMessage(), EXIT_REFUSED);
        }
        final long portMac = topology.ports().get(0).mac();
        final WarmUp frames = new WarmUp(scratch, config.markRules(), portMac);
        frames.unwarmed().forEach(reason -> DaemonLog.warning("the warm-up sends nothing for " + reason));
        if (!frames.hasTraffic())
        {
            return;
        }
        final DataPlaneBuilder builder = new DataPlaneBuilder(MAX_SERVICES, MAX_SERVERS);
        final Topology.Builder warmTopology = new Topology.Builder();
        for (final Topology.Port port : topology.ports())
        {
            warmTopology.port(port.index(), port.mac(), port.mtu(), port.ipv4(), port.ipv6());
        }
        warmTopology.gatewayV4(0, 0x02_00_00_00_77_01L);
        warmTopology.gatewayV6(0, 0x02_00_00_00_77_01L);
        // The warm-up's clients (100.64.0.0/20, fd00:6440::/116) reached half by a route and half by the gateway, as
        // live next hops come from the kernel's routes, its neighbours and its default route.
        warmTopology.route(IpPrefix.parse("100.64.0.0/21"), 0, 0x02_00_00_00_77_01L);
        warmTopology.route(IpPrefix.parse("fd00:6440::/117"), 0, 0x02_00_00_00_77_01L);
        scratch.allServers().forEach(server -> warmTopology.neighbour(server.address(), 0, 0x02_00_00_00_77_02L));
        final DataPlane plane = builder.build(scratch, warmTopology.build(), config.connectionTimeouts(),
            config.settings(), config.markRules());
        final DataPlanePublisher publisher = new DataPlanePublisher(plane);
        final List<InterfaceConfig> faces = config.interfaces();
        final List<Integer> xdpIndexes = new ArrayList<>();
        final List<Integer> packetIndexes = new ArrayList<>();
        for (int p = 0; p < faces.size(); p++)
        {
            (faces.get(p).port() == PortKind.AFXDP ? xdpIndexes : packetIndexes).add(p);
        }
        final SimulatedXdpKernel[] xdp = new SimulatedXdpKernel[scratchWorkers];
        final SimulatedPacketKernel[] packet = new SimulatedPacketKernel[scratchWorkers];
        final HandoffRing[][] rings = new HandoffRing[scratchWorkers][scratchWorkers];
        final Wakeup[] wakeups = new Wakeup[scratchWorkers];
        final List<AutoCloseable> scratchResources = new ArrayList<>();
        try
        {
            final Worker[] scratchAgents = new Worker[scratchWorkers];
            final ConnectionPage[] pages = new ConnectionPage[scratchWorkers];
            final Pipeline[] pipelines = new Pipeline[scratchWorkers];
            final WorkerEpochs epochs = new WorkerEpochs(scratchWorkers);
            final TemplateTable templates = new TemplateTable(1024);
            // Frames owned as the live workers' are: by client for a VIP and a mark statement's destination.
            final AtomicReference<FrameOwner> scratchOwner = new AtomicReference<>(frameOwner(new ClientDispatch(
                scratchWorkers, Conductor.virtualAddresses(scratch, config.markRules()),
                Conductor.destinationPrefixes(config.markRules()))));
            final DaemonCounters scratchCounters = new DaemonCounters(scratchWorkers);
            for (int w = 0; w < scratchWorkers; w++)
            {
                // Smaller rings than the live ones (the same code, a quarter of the memory or less): the live ports
                // are about to map theirs.
                if (!xdpIndexes.isEmpty())
                {
                    xdp[w] = SimulatedXdpKernel.open(control, xdpSettings(faces.get(xdpIndexes.get(0)))
                        .withRings(WarmUp.RING, WarmUp.RING, WarmUp.RING, WarmUp.RING).withChunks(4 * WarmUp.RING),
                        portIndexes(xdpIndexes));
                    scratchResources.add(xdp[w]);
                }
                if (!packetIndexes.isEmpty())
                {
                    packet[w] = SimulatedPacketKernel.open(control, AfPacketSettings.DEFAULT.withRxRing(
                        AfPacketSettings.DEFAULT.rxBlockSize(), 8, AfPacketSettings.DEFAULT.retireTimeoutMs())
                        .withTxRing(AfPacketSettings.DEFAULT.txVersion(), AfPacketSettings.DEFAULT.txBlockSize(),
                            WarmUp.RING), portIndexes(packetIndexes));
                    scratchResources.add(packet[w]);
                }
                if (scratchWorkers > 1)
                {
                    wakeups[w] = new Wakeup(control);
                    scratchResources.add(wakeups[w]);
                    for (int to = 0; to < scratchWorkers; to++)
                    {
                        if (to != w)
                        {
                            rings[w][to] = new HandoffRing(HANDOFF_SLOTS);
                            scratchResources.add(rings[w][to]);
                        }
                    }
                }
            }
            // A ring to a conductor, as a live worker has (nobody reads it: a full ring loses a report, as it may).
            final RingBuffer toConductor = new ManyToOneRingBuffer(new UnsafeBuffer(
                ByteBuffer.allocateDirect((1 << 12) + RingBufferDescriptor.TRAILER_LENGTH)));
            for (int w = 0; w < scratchWorkers; w++)
            {
                final Port[] ports = new Port[topology.ports().size()];
                final boolean[] handsOff = new boolean[ports.length];
                for (int p = 0; p < ports.length; p++)
                {
                    ports[p] = xdpIndexes.contains(p) ? xdp[w].port(xdpIndexes.indexOf(p)) :
                        packet[w].port(packetIndexes.indexOf(p));
                    handsOff[p] = scratchWorkers > 1 && xdpIndexes.contains(p);
                }
                // As a real worker's: its own prefetch (with another class there, the JIT would compile
                // Pipeline.process for that one, and the first real burst would deoptimize it) and epochs (a pipeline
                // without them takes another branch at its start).
                // As many IPv6 connections as IPv4 ones: the IPv6 services' connections are warmed as the IPv4 ones, and
                // a table they fill would warm its drop instead.
                pipelines[w] = new Pipeline(publisher, w, 1 << 16, 1 << 16, MAX_SERVICES, MAX_SERVERS,
                    config.settings().icmpRepliesPerSecond(), OffHeapAllocator.DIRECT, templates, epochs,
                    NativeCachePrefetch.best());
                pipelines[w].limitBurstSweep(Worker.BURST_SWEEP_SLOTS);
                if (config.offload() != OffloadMode.OFF)
                {
                    // The fast loop's offers taken, as a live worker's are, so that the first real one meets compiled
                    // code rather than a branch the JIT left out; declined, so that every frame offers again.
                    pipelines[w].offloadTo(WARM_UP_OFFLOAD);
                }
                final HostPassPolicy[] policies = new HostPassPolicy[ports.length];
                java.util.Arrays.fill(policies, HostPassPolicy.NEVER);
                final HandoffRing[] inbound = new HandoffRing[scratchWorkers];
                for (int from = 0; from < scratchWorkers; from++)
                {
                    inbound[from] = rings[from][w];
                }
                scratchAgents[w] = new Worker(w, ports, handsOff, pipelines[w], new HostTap[ports.length], policies,
                    rings[w], inbound, wakeups, control, owners(scratchOwner), scratchCounters, BATCH, toConductor);
                pages[w] = new ConnectionPage();
            }
            // What a live worker meets, so that no branch it takes was never taken here (the JIT compiles a branch
            // never taken as a trap, and the first live frame to take it sends the method back to the interpreter):
            // bursts of every size, rounds with nothing, a TX ring the kernel now and then leaves to fill, AF_PACKET
            // blocks retired full and by the timer, a latency histogram that starts empty again, and what a status
            // and a connection listing ask of a worker between its bursts.
            final boolean xdpReceives = xdpIndexes.contains(0);
            long round = 0;
            while (frames.delivered() < WarmUp.FRAMES && System.nanoTime() - started < 3_000_000_000L)
            {
                round++;
                for (int w = 0; w < scratchWorkers; w++)
                {
                    if (round % WarmUp.IDLE_EVERY != 0)
                    {
                        final int burst = 1 + (int)(round * 37 % WarmUp.BURST);
                        if (xdpReceives)
                        {
                            xdp[w].deliver(0, burst, frames);
                        }
                        else
                        {
                            packet[w].deliver(0, burst, frames);
                        }
                    }
                    if (packet[w] != null && round % WarmUp.blockTimerPeriod(round) == 0)
                    {
                        packet[w].expire(0);
                    }
                    scratchAgents[w].doWork();
                    if (round % WarmUp.STALL_EVERY >= WarmUp.STALL_ROUNDS)
                    {
                        if (xdp[w] != null)
                        {
                            xdp[w].complete();
                        }
                        if (packet[w] != null)
                        {
                            packet[w].complete();
                        }
                    }
                    if (round % WarmUp.RESET_EVERY == 0)
                    {
                        pipelines[w].latency().reset();
                    }
                    // Answered in the worker's next round, as a live worker answers between two bursts.
                    if (round % WarmUp.QUERY_EVERY == 0)
                    {
                        scratchAgents[w].requestLatencyCopy();
                        // The same ports in another array: the worker takes the branch that adopts new ports (a
                        // device made again), which the first live adoption would otherwise spring as a trap.
                        scratchAgents[w].offerPorts(scratchAgents[w].ports().clone());
                    }
                    else if (round % WarmUp.QUERY_EVERY == WarmUp.QUERY_EVERY / 2)
                    {
                        pages[w].v6 = !pages[w].v6;
                        pages[w].from = 0;
                        scratchAgents[w].requestConnections(pages[w]);
                    }
                }
            }
        }
        finally
        {
            for (int i = scratchResources.size() - 1; i >= 0; i--)
            {
                try
                {
                    scratchResources.get(i).close();
                }
                catch (final Exception ex)
                {
                    DaemonLog.warning("the warm-up could not close " + scratchResources.get(i) + ": " +
                        ex.getMessage());
                }
            }
        }
        DaemonLog.info("warmed the data path: " + frames.delivered() + " frames in " +
            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
    }

    private <T extends AutoCloseable> T own(final T resource)
    {
        resources.add(resource);
        return resource;
    }

    private void installSignals()
    {
        final sun.misc.SignalHandler stop = signal ->
        {
            DaemonLog.info("SIG" + signal.getName() + ": stopping");
            stopped.countDown();
        };
        handleEvenIfIgnored(new Signal("TERM"), io.jvs.nativebindings.SignalDisposition.SIGTERM, stop);
        // SIGINT stays as inherited: a shell starts a background job with it ignored, so that Ctrl-C spares it.
        Signal.handle(new Signal("INT"), stop);
        handleEvenIfIgnored(new Signal("HUP"), io.jvs.nativebindings.SignalDisposition.SIGHUP,
            signal -> reload("SIGHUP"));
    }

    /**
     * Catches a signal the daemon must act on even when it was started with the signal ignored (SIGHUP under
     * {@code nohup}), where the JVM would catch nothing and a reload or stop by signal would silently do nothing.
     */
    private static void handleEvenIfIgnored(final Signal signal, final int number, final sun.misc.SignalHandler handler)
    {
        if (Signal.handle(signal, handler) == sun.misc.SignalHandler.SIG_IGN)
        {
            if (io.jvs.nativebindings.SignalDisposition.restoreDefault(number) &&
                Signal.handle(signal, handler) != sun.misc.SignalHandler.SIG_IGN)
            {
                DaemonLog.info("SIG" + signal.getName() + " was ignored when the daemon started (nohup?): it is " +
                    "caught all the same");
            }
            else
            {
                DaemonLog.warning("SIG" + signal.getName() + " is ignored and cannot be caught: the daemon will not " +
                    "act on it");
            }
        }
    }

    /** Re-reads the file and applies it (the conductor's thread does the work); logs the outcome. */
    String reload(final String why)
    {
        try
        {
            final String control = controlServer == null ? null : controlServer.rebindIfRemoved();
            if (control != null)
            {
                DaemonLog.warning("reload (" + why + "): " + control);
            }
        }
        catch (final IOException ex)
        {
            DaemonLog.error("reload (" + why + "): control socket " + ex.getMessage());
        }
        try
        {
            final String result = conductor.call(c -> Reload.apply(c, configFile)).get(30, TimeUnit.SECONDS);
            DaemonLog.info("reload (" + why + "): " + result);
            return "ok " + result;
        }
        catch (final java.util.concurrent.ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            DaemonLog.error("reload (" + why + ") refused, nothing changed: " + cause.getMessage());
            return "error " + cause.getMessage();
        }
        catch (final java.util.concurrent.TimeoutException | InterruptedException ex)
        {
            DaemonLog.error("reload (" + why + "): the conductor did not answer within 30 s");
            return "error the conductor did not answer";
        }
    }

    /**
     * @return every worker's per-packet latency histogram less what it held when {@code ipvsadm -Z} last zeroed every
     *         counter, summed (a worker that does not answer within 0.5 s is left out).
     */
    org.HdrHistogram.Histogram latencySinceZero()
    {
        final org.HdrHistogram.Histogram latency = new org.HdrHistogram.Histogram(Pipeline.MAX_LATENCY_NS, 2);
        synchronized (latencyBaselineLock)
        {
            for (int w = 0; w < workers; w++)
            {
                final org.HdrHistogram.Histogram copy = worker(w).latency(wakeWorker(w), LATENCY_COPY_WAIT_NS);
                if (copy != null)
                {
                    if (latencyBaselines[w] != null)
                    {
                        copy.subtract(latencyBaselines[w]);
                    }
                    latency.add(copy);
                }
            }
        }
        return latency;
    }

    /**
     * {@code ipvsadm -Z}, all services: the latency histogram starts again too. The workers' own are never reset (a
     * worker records on its own); each one's is kept as it is now, and subtracted from what it holds later.
     */
    void zeroLatency()
    {
        synchronized (latencyBaselineLock)
        {
            for (int w = 0; w < workers; w++)
            {
                final org.HdrHistogram.Histogram copy = worker(w).latency(wakeWorker(w), LATENCY_COPY_WAIT_NS);
                if (copy != null)
                {
                    latencyBaselines[w] = copy;
                }
            }
        }
    }

    private ControlResponse answer(final ControlRequest request)
    {
        return switch (request)
        {
            case ControlRequest.Status status -> ControlResponse.Result.of(0, Status.text(this), "");
            case ControlRequest.Reload reload ->
            {
                final String result = reload("control socket");
                yield ControlResponse.Result.of(result.startsWith("error") ? 1 : 0, result + "\n", "");
            }
            case ControlRequest.Ipvsadm ipvsadm -> ipvsadm(ipvsadm);
        };
    }

    /**
     * Runs an ipvsadm command line against the running state, as ipvsadm 1.31 runs one against the kernel's, on
     * the control client's thread (changes go to the conductor).
     */
    private ControlResponse ipvsadm(final ControlRequest.Ipvsadm request)
    {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        final java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        int status;
        try (java.io.PrintStream output = new java.io.PrintStream(out, false, java.nio.charset.StandardCharsets.UTF_8);
             java.io.PrintStream error = new java.io.PrintStream(err, false, java.nio.charset.StandardCharsets.UTF_8))
        {
            try
            {
                status = io.jvs.core.control.Ipvsadm.run("ipvsadm", request.arguments().toArray(String[]::new),
                    new java.io.StringReader(new String(request.input(), java.nio.charset.StandardCharsets.UTF_8)),
                    output, error, ipvsBackend, names());
            }
            catch (final RuntimeException ex)
            {
                error.println("jvs: " + ex.getMessage());
                status = 1;
            }
        }
        return new ControlResponse.Result(status, out.toByteArray(), err.toByteArray());
    }

    /**
     * Host and service names for listings without -n: /etc/services (read once) and the resolver, or numbers when
     * the file cannot be read.
     */
    private io.jvs.core.control.Names names()
    {
        io.jvs.core.control.Names known = names;
        if (known == null)
        {
            try
            {
                known = new io.jvs.core.control.SystemNames(java.nio.file.Path.of("/etc/services"));
            }
            catch (final IOException ex)
            {
                known = io.jvs.core.control.Names.NUMERIC;
            }
            names = known;
        }
        return known;
    }

    /** @return the control socket's server, once open. */
    ControlServer controlServer()
    {
        return controlServer;
    }

    int workers()
    {
        return workers;
    }

    /** @return the name of interface {@code port}, as the configuration gives it. */
    String interfaceName(final int port)
    {
        return config.interfaces().get(port).name();
    }

    /**
     * @return frames the XDP programs could not give a socket (a queue without one) and passed to the kernel,
     *         read by the conductor (which owns the maps' descriptors); -1 when it does not answer in time.
     */
    long unplacedFrames()
    {
        try
        {
            return conductor.call(c -> maps.filter() == null ? 0L : maps.filter().unplacedFrames())
                .get(2, TimeUnit.SECONDS);
        }
        catch (final java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex)
        {
            return -1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** @return what wakes worker {@code index} from its poll(2), for a thread that asks it for an answer. */
    private Runnable wakeWorker(final int index)
    {
        final Wakeup wakeup = workerWakeups[index];
        return () ->
        {
            synchronized (otherThreads)
            {
                wakeup.wake(otherThreads);
            }
        };
    }

    Worker worker(final int index)
    {
        return workerAgents[index];
    }

    /**
     * Lists every worker's connection entries as the iteration reaches them ({@link ConnectionListing}): a page at a
     * time, asked of the worker between its bursts (no worker stops), so a listing of millions of entries holds one
     * page, not the table's worth of objects.
     *
     * @return the entries, worker by worker, IPv4 before IPv6.
     */
    java.util.Iterator<ListedConnection> connections()
    {
        return new ConnectionListing(workerAgents, this::wakeWorker, () -> conductor.current(), listing);
    }

    /**
     * Lists the persistence templates the workers share, as IPVS lists its templates among its connection entries:
     * read from the shared table on the caller's thread without stopping a worker ({@link TemplateTable#list} says
     * how the reads are ordered against the workers' writes), each named by the current snapshot.
     *
     * @return the templates in the table's order (bucket after bucket), with the time IPVS would show left.
     */
    java.util.List<io.jvs.core.control.ConnectionView> templates()
    {
        final java.util.List<io.jvs.core.control.ConnectionView> entries = new java.util.ArrayList<>();
        final io.jvs.core.pipeline.DataPlane plane = conductor.current();
        final long now = System.nanoTime();
        templates.list(plane, now, (service, networkHigh, networkLow, serverSlot, deadlineNs, controlled, assured) ->
        {
            // The template's own key, as ip_vs_sched_persist made it: an FTP service's has port 0.
            final io.jvs.core.service.ServiceKey key = plane.serviceKey(service).persistenceKey();
            final io.jvs.core.service.RealServer server = plane.server(serverSlot);
            entries.add(io.jvs.core.control.ConnectionView.template(key, address(key.v6(), networkHigh, networkLow),
                server.address(), server.port(), TemplateTable.remainingNs(deadlineNs, now) / 1_000_000L, assured));
        });
        return entries;
    }

    private static IpAddress address(final boolean v6, final long high, final long low)
    {
        return v6 ? IpAddress.ofV6(high, low) : IpAddress.ofV4((int)low);
    }

    DaemonCounters counters()
    {
        return counters;
    }

    Conductor conductor()
    {
        return conductor;
    }

    HostTap[] taps()
    {
        return taps;
    }

    private void awaitStop()
    {
        try
        {
            stopped.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops the workers (each finishes its burst and flushes its transmit rings), the conductor and the control
     * socket, then closes the ports, which detaches the programs, and the TAPs.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (workerAgents != null)
        {
            for (final Worker worker : workerAgents)
            {
                if (worker != null)
                {
                    worker.stop();
                }
            }
        }
        if (workerRunners != null)
        {
            for (final AgentRunner runner : workerRunners)
            {
                if (runner != null)
                {
                    runner.close();
                }
            }
        }
        if (conductorRunner != null && !closeWithin(conductorRunner, CONDUCTOR_STOP_WAIT_MS))
        {
            // Blocked in a call that does not return (a hung file system under a reload, say): the packet path is
            // stopped already, so the stop goes on without it rather than retrying for ever, which would leave the
            // XDP programs attached and systemd to kill the daemon.
            DaemonLog.error("the conductor did not stop within " + CONDUCTOR_STOP_WAIT_MS / 1000 + " s: stopping " +
                "without it");
        }
        if (controlServer != null)
        {
            controlServer.close();
        }
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            try
            {
                resources.get(i).close();
            }
            catch (final Exception ex)
            {
                DaemonLog.warning("closing " + resources.get(i) + ": " + ex.getMessage());
            }
        }
        DaemonLog.info("stopped");
    }

    /**
     * Closes {@code resource} on a thread of its own and waits for it at most {@code waitMs}.
     *
     * @return whether it closed in time (if not, it goes on closing on that daemon thread).
     */
    static boolean closeWithin(final AutoCloseable resource, final long waitMs)
    {
        final Thread closing = Thread.ofPlatform().daemon().name("jvs-close").start(() ->
        {
            try
            {
                resource.close();
            }
            catch (final Exception ex)
            {
                DaemonLog.warning("closing " + resource + ": " + ex.getMessage());
            }
        });
        try
        {
            closing.join(waitMs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return !closing.isAlive();
    }

    /** A start-up step failed; the status says whether it was the configuration or the system. */
    static final class StartFailure extends RuntimeException
    {
        private static final long serialVersionUID = 1L;
        final int status;

        StartFailure(final String message, final int status)
        {
            super(message);
            this.status = status;
        }
    }
}
