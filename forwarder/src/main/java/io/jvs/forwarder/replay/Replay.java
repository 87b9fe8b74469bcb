package io.jvs.forwarder.replay;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pcap.PcapReader;
import io.jvs.core.pipeline.ClientDispatch;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlanePublisher;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.core.pipeline.TemplateTable;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import io.jvs.forwarder.config.JvsConfig;
import io.jvs.forwarder.memory.HugePageAllocator;
import io.jvs.forwarder.memory.NativeCachePrefetch;
import org.agrona.BufferUtil;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * Runs a capture through the data path offline: the daemon's parser, connection tables, schedulers and
 * rewriters ({@link Pipeline}), on a virtual clock taken from the capture, so timeouts, expiry and the
 * lblc/lblcr collectors act as they would have at capture time.
 * <p>
 * Records are taken in file order into a window of up to {@link #BURST} frames that spans at most
 * {@link #WINDOW_NS} of capture time; each window is handed to the workers' pipelines (one pipeline per
 * worker, fed by {@link ClientDispatch}, run one after another) at the window's clock, and its verdicts
 * are then written out in record order. Nothing depends on the machine or the wall clock but the
 * pipeline-time measurements, so the same capture and rules give the same output bytes.
 * <p>
 * On a machine of two cores or more the work is split in two stages that overlap, as a daemon's port and
 * worker do: the calling thread reads, frames and dispatches records into a ring of {@link #RING} windows
 * and writes out the windows the pipelines are done with, while a second thread runs the pipelines over
 * the windows in file order, takes the connection samples and logs the decisions. The pipelines see the
 * same windows at the same clocks as on one thread, so the output is the same bytes. A window changes
 * hands through two counters: {@code prepared}, stored with release by the reading thread after it filled
 * the window and loaded with acquire by the pipeline thread, and {@code processed}, the same the other way
 * round after the pipelines wrote their verdicts and rewrote the frames. A window is filled again only after
 * it was written out. With one core, or in a test that asks, the calling thread does both stages in turn.
 * <p>
 * The clock never runs backwards: a record stamped earlier than one before it is counted as out of order
 * and processed at the latest time seen. A record cut short by the snapshot length is processed as
 * captured (the parser drops what it cannot read, as truncated) and counted.
 */
public final class Replay
{
    /** Frames per window, the daemon's burst. */
    public static final int BURST = 32;
    /** The most capture time one window spans: a finer clock than any timeout needs. */
    public static final long WINDOW_NS = 1_000_000L;
    /** Connections sampled for the report's time series this often, in capture time. */
    public static final long SAMPLE_PERIOD_NS = 1_000_000_000L;
    /**
     * Windows in flight between the two stages: enough that neither waits out the other's jitter (a write
     * into the page cache, a sweep), few enough that their frames stay in the cache.
     */
    static final int RING = 16;

    private static final int HEADROOM = 256;
    /** Room behind a frame for a tunnel header or an ICMP answer's quote. */
    private static final int TAILROOM = 256;
    private static final int SMALL_CAPACITY = 2048;
    private static final int LARGE_CAPACITY = PcapReader.DEFAULT_MAX_CAPTURED_LENGTH + 14 + TAILROOM;
    /**
     * Every frame starts a cache line, as a port's frames do: from where malloc put a plain direct buffer, 16 bytes
     * into a line, a minimum frame spanned two lines, each moved from the reading core to the pipeline's.
     */
    static final int FRAME_ALIGNMENT = 64;
    private static final int SMALL_STRIDE = HEADROOM + SMALL_CAPACITY;
    private static final int LARGE_STRIDE = (HEADROOM + LARGE_CAPACITY + FRAME_ALIGNMENT - 1) & -FRAME_ALIGNMENT;
    /** A window entry's worker when its record's link type has no Ethernet form: counted, given to no pipeline. */
    private static final int UNSUPPORTED_RECORD = -1;
    /** A window entry's worker when its record's header names nothing an Ethernet frame carries. */
    private static final int NO_ETHERNET_FORM_RECORD = -2;

    private final ReplayOptions options;
    private final ReplayConfig config;
    private final DataPlane plane;
    private final Pipeline[] pipelines;
    private final ClientDispatch dispatch;
    private final CaptureFraming framing;
    private final ReplayOutput output;
    private final ReplayReport report;
    /** Whether a second thread runs the pipelines while the calling thread reads and writes. */
    private final boolean overlapped;
    private final Window[] windows;

    /** Windows the reading thread has filled and handed over. */
    private long filled;
    /** Windows the reading thread has written out, and so may fill again. */
    private long writtenOut;
    /** Windows handed to the pipelines: stored with release by the reading thread. */
    private final AtomicLong prepared = new AtomicLong();
    /** Windows the pipelines are done with: stored with release by the pipeline stage. */
    private final AtomicLong processed = new AtomicLong();
    /** Set by the reading thread when it has handed over its last window or gives up. */
    private volatile boolean readerDone;
    /** What stopped the pipeline thread, for the reading thread to throw. */
    private volatile Throwable pipelineFailure;

    /** The reading thread's clock: the latest record time seen. */
    private long clockNs = Long.MIN_VALUE;
    /**
     * The next connection sample's time: set by the reading thread at the first record, before it hands over
     * a window, then kept by the pipeline stage, and read by the reading thread after that stage has ended.
     */
    private long nextSampleNs = Long.MIN_VALUE;
    /** How the reading thread waits for the pipelines when the ring is full. */
    private final IdleStrategy readerIdle = idleStrategy();

    /**
     * Sets up the pipelines; nothing is read or written yet. A second thread runs the pipelines when the
     * machine has two cores or more.
     *
     * @throws RuleException naming the file and line of a refused rule or configuration statement.
     */
    public Replay(final ReplayOptions options) throws IOException, RuleException
    {
        this(options, Runtime.getRuntime().availableProcessors() >= 2);
    }

    /**
     * @param overlapped whether a second thread runs the pipelines (the output is the same either way).
     * @see #Replay(ReplayOptions)
     */
    Replay(final ReplayOptions options, final boolean overlapped) throws IOException, RuleException
    {
        this.options = options;
        this.overlapped = overlapped;
        this.config = options.config() == null ? ReplayConfig.defaults() : ReplayConfig.load(options.config());
        final JvsConfig file = config.config();
        final ServiceTable table = new ServiceTable(file.schedulerSettings(options.workers()));
        if (options.rules() != null && file.definesServices())
        {
            throw new IllegalArgumentException("the services are given twice, by --rules " + options.rules() +
                " and at " + file.servicesAt() + ": give them in one place");
        }
        final ConnectionTimeouts timeouts = config.connectionTimeouts();
        if (options.rules() != null)
        {
            final String source = options.rules().toString();
            final List<RulesFile.Rule> rules =
                RulesFile.parse(source, Files.readAllLines(options.rules(), StandardCharsets.UTF_8));
            RulesFile.apply(source, rules, table);
            // Its --set lines give the timeouts, as they would in the config: where the config gives one too, once.
            JvsConfig.Timeouts merged = file.timeouts();
            for (final RulesFile.Rule rule : rules)
            {
                if (rule.command() instanceof final RuleCommand.SetTimeouts set)
                {
                    try
                    {
                        merged = merged.with(set);
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new RuleException(source, rule.line(), ex.getMessage());
                    }
                }
            }
            timeouts.set(merged.tcpSeconds(), merged.tcpFinSeconds(), merged.udpSeconds());
        }
        else if (file.definesServices())
        {
            file.applyRules(table);
        }
        else
        {
            throw new IllegalArgumentException("no services: give --rules FILE, or ipvsadm lines or a rules " +
                "statement in " + file.source());
        }
        final Topology topology = withServerNeighbours(config.topology(), table);
        final DataPlaneBuilder builder = new DataPlaneBuilder(table.services().size() + 1,
            table.allServers().size() + 2);
        this.plane = builder.build(table, topology, timeouts, config.settings(),
            config.markRules());
        final DataPlanePublisher publisher = new DataPlanePublisher(plane);
        // A replay's services are fixed for the run: without a persistent one, no template is ever made, and
        // the daemon's size (a sixteenth of the connections) would be tens of megabytes swept for nothing.
        final boolean persistence = table.services().stream().anyMatch(service -> service.settings().persistent());
        final TemplateTable templates = new TemplateTable(persistence ? Math.max(1024, options.connections() / 16) :
            1024, HugePageAllocator.INSTANCE);
        this.pipelines = new Pipeline[options.workers()];
        for (int w = 0; w < pipelines.length; w++)
        {
            pipelines[w] = new Pipeline(publisher, w, options.connections(), Math.max(1024, options.connections() / 4),
                builder.maxServices(), builder.maxServers(), config.settings().icmpRepliesPerSecond(),
                HugePageAllocator.INSTANCE, templates, null, NativeCachePrefetch.best());
            // This thread's records are copied into the bursts by the reading thread, on the other core.
            pipelines[w].framesArriveCold(true);
            // The capture's clock runs far faster than a wire's: sweeps would otherwise dominate.
            pipelines[w].connectionsV4().skipIdleBlocks();
            pipelines[w].connectionsV6().skipIdleBlocks();
        }
        final Set<IpAddress> virtualAddresses = new LinkedHashSet<>();
        for (final VirtualService service : table.services())
        {
            if (!service.key().isFirewallMark())
            {
                virtualAddresses.add(service.key().address());
            }
        }
        this.dispatch = new ClientDispatch(options.workers(), virtualAddresses);
        final Topology.Port port = topology.ports().get(0);
        final Topology.Neighbour gateway = topology.gatewayV4() != null ? topology.gatewayV4() :
            new Topology.Neighbour(0, ReplayConfig.DEFAULT_GATEWAY_MAC);
        this.framing = new CaptureFraming(port.mac(), gateway.mac());
        this.windows = new Window[overlapped ? RING : 1];
        for (int i = 0; i < windows.length; i++)
        {
            windows[i] = new Window(options.workers());
        }
        this.report = new ReplayReport(options, config, plane, pipelines);
        this.output = new ReplayOutput(options, plane);
    }

    /** Every real server the configuration does not place gets a neighbour entry on port 0 at a derived MAC. */
    private static Topology withServerNeighbours(final Topology topology, final ServiceTable table)
    {
        final Topology.Builder builder = topology.toBuilder();
        for (final RealServer server : table.allServers())
        {
            if (!topology.neighbours().containsKey(server.address()))
            {
                builder.neighbour(server.address(), 0, ReplayConfig.derivedMac(server.address()));
            }
        }
        return builder.build();
    }

    /**
     * Replays the whole capture.
     *
     * @return the report.
     * @throws IOException when the capture cannot be opened or the output cannot be written.
     */
    public ReplayReport run() throws IOException
    {
        return run(UnaryOperator.identity());
    }

    /**
     * Replays the whole capture, writing the frames and decisions where {@code writeTo} says (a command
     * writes temporary files, renamed into place only when the whole run succeeded).
     *
     * @param writeTo maps {@link ReplayOptions#output()} and {@link ReplayOptions#decisions()} to the files
     *                written.
     * @return the report.
     * @throws CaptureChangedException when the capture shrank under the reader.
     * @throws IOException             when the capture cannot be opened or the output cannot be written (a
     *                                 {@link java.nio.file.FileSystemException} naming the file written).
     */
    public ReplayReport run(final UnaryOperator<Path> writeTo) throws IOException
    {
        final long wallStart = System.nanoTime();
        long mappedSize = -1;
        Thread pipelineThread = null;
        try (PcapReader reader = PcapReader.open(options.input(), PcapReader.DEFAULT_MAX_CAPTURED_LENGTH, true);
            ReplayFilter filter = options.filter() == null ? null : new ReplayFilter(options.filter()))
        {
            mappedSize = reader.size();
            report.input(reader);
            output.open(reader.format(), writeTo);
            if (overlapped)
            {
                pipelineThread = new Thread(this::runPipelines, "jvs-replay-pipelines");
                pipelineThread.setDaemon(true);
                pipelineThread.start();
            }
            Window window = windows[0];
            while (reader.next())
            {
                window = record(reader, filter, window);
            }
            if (window.count > 0)
            {
                handOver(window);
            }
            readerDone = true;
            while (writtenOut < filled)
            {
                awaitProcessed();
                writeOutProcessed();
            }
            pipelineThread = join(pipelineThread);
            if (clockNs != Long.MIN_VALUE && clockNs > nextSampleNs - SAMPLE_PERIOD_NS)
            {
                // The connections at the last frame: a trace shorter than the sampling period still gets a
                // curve from its first sample to its end.
                report.sample(clockNs);
            }
            report.end(reader);
        }
        catch (final InternalError ex)
        {
            // HotSpot's signal handler turns the SIGBUS of a read past the end of a mapped file that shrank
            // into this error, raised in the reading thread (here, or in PcapReader.open reading the header);
            // any other InternalError is a bug. The loop is inside the try, so the frame path has no new work.
            if (ex.getMessage() == null || !ex.getMessage().contains("unsafe memory access"))
            {
                throw ex;
            }
            throw new CaptureChangedException(options.input(), mappedSize, sizeNow(options.input()));
        }
        finally
        {
            readerDone = true;
            join(pipelineThread);
            output.close();
        }
        report.finish(System.nanoTime() - wallStart, output);
        return report;
    }

    /** Waits for the pipeline thread to end; it ends once the reader is done and the ring is empty. */
    private static Thread join(final Thread thread)
    {
        if (thread != null)
        {
            boolean interrupted = false;
            while (true)
            {
                try
                {
                    thread.join();
                    break;
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
        return null;
    }

    private static long sizeNow(final Path file)
    {
        try
        {
            return Files.size(file);
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /**
     * Adds one record to the window being filled, handing that window over first when the record does not
     * belong in it.
     *
     * @return the window being filled after the record.
     */
    private Window record(final PcapReader reader, final ReplayFilter filter, final Window current) throws IOException
    {
        final long address = reader.address();
        final int captured = reader.capturedLength();
        final long timestamp = reader.timestampNs();
        final int linkType = reader.linkType();
        report.record(linkType, captured, reader.originalLength());
        if (filter != null && !filter.matches(address, captured, reader.originalLength(), linkType))
        {
            report.filteredOut++;
            return current;
        }
        if (clockNs == Long.MIN_VALUE)
        {
            clockNs = timestamp;
            // Written once, before the first window is handed over (whose release store publishes it); the
            // pipeline stage owns it from then on.
            nextSampleNs = timestamp;
            report.firstTimestamp(timestamp);
        }
        else if (timestamp < clockNs)
        {
            report.outOfOrder++;
        }
        final long now = Math.max(clockNs, timestamp);
        Window window = current;
        if (window.count == BURST || (window.count > 0 && now - window.startNs > WINDOW_NS))
        {
            window = handOver(window);
        }
        clockNs = now;
        window.clockNs = now;
        report.lastTimestamp(now);
        if (window.count == 0)
        {
            window.startNs = now;
        }
        final int entry = window.count;
        final boolean fits = captured + EthernetHeader.LENGTH + TAILROOM <= SMALL_CAPACITY;
        final long frame = fits ? window.smallSlot(entry) : window.largeSlot(entry);
        final int capacity = fits ? SMALL_CAPACITY : LARGE_CAPACITY;
        final int length = framing.frame(address, captured, linkType, frame);
        if (length == CaptureFraming.OUTGOING)
        {
            report.outgoingSkipped++;
            return window;
        }
        window.timestamp[entry] = timestamp;
        window.original[entry] = reader.originalLength() + (length - captured);
        window.length[entry] = length;
        window.count++;
        if (length == CaptureFraming.UNSUPPORTED || length == CaptureFraming.NO_ETHERNET_FORM)
        {
            window.worker[entry] = length == CaptureFraming.UNSUPPORTED ? UNSUPPORTED_RECORD : NO_ETHERNET_FORM_RECORD;
            return window;
        }
        final int worker = dispatch.workerOf(frame, length);
        final FrameBurst burst = window.bursts[worker];
        window.worker[entry] = worker;
        final int index = burst.add(frame, length, capacity, HEADROOM, now);
        burst.firewallMark(index, options.firewallMark());
        window.index[entry] = index;
        return window;
    }

    /**
     * Hands a filled window to the pipelines and writes out what they are done with.
     *
     * @return the next window to fill, empty, once it has been written out.
     */
    private Window handOver(final Window window) throws IOException
    {
        filled++;
        prepared.lazySet(filled);
        if (!overlapped)
        {
            processWindow(window);
            processed.lazySet(filled);
        }
        writeOutProcessed();
        while (filled - writtenOut == windows.length)
        {
            awaitProcessed();
            writeOutProcessed();
        }
        return windows[(int)(filled % windows.length)];
    }

    /** Waits until the pipelines have finished a window not yet written out, or throws what stopped them. */
    private void awaitProcessed() throws IOException
    {
        readerIdle.reset();
        while (processed.get() == writtenOut)
        {
            checkPipelines();
            readerIdle.idle();
        }
        checkPipelines();
    }

    private void checkPipelines() throws IOException
    {
        final Throwable failure = pipelineFailure;
        if (failure != null)
        {
            switch (failure)
            {
                case final IOException ex -> throw ex;
                case final RuntimeException ex -> throw ex;
                case final Error ex -> throw ex;
                default -> throw new IllegalStateException(failure);
            }
        }
    }

    private static IdleStrategy idleStrategy()
    {
        // A window takes the pipelines some microseconds: spin through that, then give the core away.
        return new BackoffIdleStrategy(200, 20, 1_000, 100_000);
    }

    /** Writes out, in file order, every window the pipelines are done with, and empties it for reuse. */
    private void writeOutProcessed() throws IOException
    {
        final long done = processed.get();
        while (writtenOut < done)
        {
            writeOut(windows[(int)(writtenOut % windows.length)]);
            writtenOut++;
        }
    }

    private void writeOut(final Window window) throws IOException
    {
        for (int entry = 0; entry < window.count; entry++)
        {
            final int worker = window.worker[entry];
            if (worker == UNSUPPORTED_RECORD)
            {
                report.unsupported++;
                continue;
            }
            if (worker == NO_ETHERNET_FORM_RECORD)
            {
                report.noEthernetForm++;
                continue;
            }
            final FrameBurst burst = window.bursts[worker];
            final int i = window.index[entry];
            final int verdict = burst.verdict(i);
            final long original = Math.max(burst.length(i),
                window.original[entry] + burst.length(i) - window.length[entry]);
            output.frame(window.timestamp[entry], burst.address(i), burst.length(i), original, verdict);
            if (Verdict.kind(verdict) == Verdict.TRANSMIT)
            {
                report.transmittedBytes += burst.length(i);
            }
        }
        window.clear();
    }

    /** The pipeline thread: every window handed over, in order, until the reader is done and none is left. */
    private void runPipelines()
    {
        final IdleStrategy idle = idleStrategy();
        try
        {
            long next = 0;
            while (true)
            {
                if (next < prepared.get())
                {
                    processWindow(windows[(int)(next % windows.length)]);
                    next++;
                    processed.lazySet(next);
                    idle.reset();
                }
                else if (readerDone)
                {
                    if (next >= prepared.get())
                    {
                        return;
                    }
                }
                else
                {
                    idle.idle();
                }
            }
        }
        catch (final Throwable ex)
        {
            pipelineFailure = ex;
        }
    }

    /** The pipeline stage of one window: each worker's burst at the window's clock, decisions, samples. */
    private void processWindow(final Window window) throws IOException
    {
        final long nowNs = window.clockNs;
        final long start = System.nanoTime();
        int processedFrames = 0;
        for (int w = 0; w < pipelines.length; w++)
        {
            final FrameBurst burst = window.bursts[w];
            if (burst.count > 0)
            {
                pipelines[w].process(burst, nowNs);
                processedFrames += burst.count;
            }
        }
        final long elapsed = System.nanoTime() - start;
        if (processedFrames > 0)
        {
            report.pipelineTime(elapsed, processedFrames);
        }
        if (output.logsDecisions())
        {
            for (int entry = 0; entry < window.count; entry++)
            {
                final int worker = window.worker[entry];
                if (worker >= 0)
                {
                    output.decision(window.timestamp[entry], pipelines[worker], window.index[entry]);
                }
            }
        }
        while (nowNs >= nextSampleNs)
        {
            report.sample(nextSampleNs);
            nextSampleNs += SAMPLE_PERIOD_NS;
            if (nowNs - nextSampleNs > 1_000 * SAMPLE_PERIOD_NS)
            {
                // A long quiet gap (or a fuzzed timestamp): one sample at its end is enough.
                nextSampleNs = nowNs - nowNs % SAMPLE_PERIOD_NS;
            }
        }
    }

    /**
     * @return the pipelines' shared view of the configuration (for tests).
     */
    DataPlane plane()
    {
        return plane;
    }

    /** Up to {@link #BURST} records of one stretch of capture time: their frames, bursts and what output needs. */
    static final class Window
    {
        final ByteBuffer small = BufferUtil.allocateDirectAligned(BURST * SMALL_STRIDE, FRAME_ALIGNMENT);
        final long smallBase = Frames.addressOf(small);
        /** Room for records too large for a small slot, made when the first one comes. */
        ByteBuffer large;
        final FrameBurst[] bursts;
        final int[] worker = new int[BURST];
        final int[] index = new int[BURST];
        final long[] timestamp = new long[BURST];
        final long[] original = new long[BURST];
        final int[] length = new int[BURST];
        int count;
        long startNs;
        /** The reading thread's clock when it handed the window over: the pipelines' clock for it. */
        long clockNs;

        Window(final int workers)
        {
            bursts = new FrameBurst[workers];
            for (int w = 0; w < workers; w++)
            {
                bursts[w] = new FrameBurst();
            }
        }

        /** @return the address of entry's frame in the small slots (after its headroom). */
        long smallSlot(final int entry)
        {
            return smallBase + (long)entry * SMALL_STRIDE + HEADROOM;
        }

        /** @return the address of entry's frame in the large slots (after its headroom), made at the first call. */
        long largeSlot(final int entry)
        {
            if (large == null)
            {
                large = BufferUtil.allocateDirectAligned(BURST * LARGE_STRIDE, FRAME_ALIGNMENT);
            }
            return Frames.addressOf(large) + (long)entry * LARGE_STRIDE + HEADROOM;
        }

        void clear()
        {
            for (final FrameBurst burst : bursts)
            {
                burst.clear();
            }
            count = 0;
        }
    }

}
