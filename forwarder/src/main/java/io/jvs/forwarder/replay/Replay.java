package io.jvs.forwarder.replay;

import io.jvs.core.memory.OffHeapAllocator;
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
import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import io.jvs.forwarder.config.JvsConfig;
import io.jvs.forwarder.memory.NativeCachePrefetch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Runs a capture through the data path offline: the daemon's parser, connection tables, schedulers and
 * rewriters ({@link Pipeline}), on a virtual clock taken from the capture, so timeouts, expiry and the
 * lblc/lblcr collectors act as they would have at capture time.
 * <p>
 * Records are taken in file order into a window of up to {@link #BURST} frames that spans at most
 * {@link #WINDOW_NS} of capture time; each window is handed to the workers' pipelines (one pipeline per
 * worker, fed by {@link ClientDispatch}, run one after another on this thread) at the window's clock,
 * and its verdicts are then written out in record order. Nothing depends on the machine or the wall
 * clock but the pipeline-time measurements, so the same capture and rules give the same output bytes.
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

    private static final int HEADROOM = 256;
    /** Room behind a frame for a tunnel header or an ICMP answer's quote. */
    private static final int TAILROOM = 256;
    private static final int SMALL_CAPACITY = 2048;
    private static final int LARGE_CAPACITY = PcapReader.DEFAULT_MAX_CAPTURED_LENGTH + 14 + TAILROOM;

    private final ReplayOptions options;
    private final ReplayConfig config;
    private final DataPlane plane;
    private final Pipeline[] pipelines;
    private final FrameBurst[] bursts;
    private final ClientDispatch dispatch;
    private final CaptureFraming framing;
    /** A window entry's worker when its record's link type has no Ethernet form: counted, given to no pipeline. */
    private static final int UNSUPPORTED_RECORD = -1;
    /** A window entry's worker when its record's header names nothing an Ethernet frame carries. */
    private static final int NO_ETHERNET_FORM_RECORD = -2;
    private final ReplayOutput output;
    private final ReplayReport report;
    private final long smallBase;
    private final ByteBuffer small;
    private ByteBuffer large;

    private final int[] windowWorker = new int[BURST];
    private final int[] windowIndex = new int[BURST];
    private final long[] windowTimestamp = new long[BURST];
    private final long[] windowOriginal = new long[BURST];
    private final int[] windowLength = new int[BURST];
    private int windowCount;
    private long windowStartNs;
    private long clockNs = Long.MIN_VALUE;
    private long nextSampleNs = Long.MIN_VALUE;

    /**
     * Sets up the pipelines; nothing is read or written yet.
     *
     * @throws RuleException naming the file and line of a refused rule or configuration statement.
     */
    public Replay(final ReplayOptions options) throws IOException, RuleException
    {
        this.options = options;
        this.config = options.config() == null ? ReplayConfig.defaults() : ReplayConfig.load(options.config());
        final ServiceTable table = new ServiceTable(new SchedulerSettings(SchedulerFlags.NONE, options.workers(),
            SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS));
        final JvsConfig file = config.config();
        if (options.rules() != null && file.definesServices())
        {
            throw new IllegalArgumentException("the services are given twice, by --rules " + options.rules() +
                " and at " + file.servicesAt() + ": give them in one place");
        }
        if (options.rules() != null)
        {
            RulesFile.load(options.rules(), table);
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
        this.plane = builder.build(table, topology, config.connectionTimeouts(), config.settings(),
            config.markRules());
        final DataPlanePublisher publisher = new DataPlanePublisher(plane);
        final TemplateTable templates = new TemplateTable(Math.max(1024, options.connections() / 16));
        this.pipelines = new Pipeline[options.workers()];
        this.bursts = new FrameBurst[options.workers()];
        for (int w = 0; w < pipelines.length; w++)
        {
            pipelines[w] = new Pipeline(publisher, w, options.connections(), Math.max(1024, options.connections() / 4),
                builder.maxServices(), builder.maxServers(), config.settings().icmpRepliesPerSecond(),
                OffHeapAllocator.DIRECT, templates, null, NativeCachePrefetch.best());
            // The capture's clock runs far faster than a wire's: sweeps would otherwise dominate.
            pipelines[w].connectionsV4().skipIdleBlocks();
            pipelines[w].connectionsV6().skipIdleBlocks();
            bursts[w] = new FrameBurst();
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
        this.small = ByteBuffer.allocateDirect(BURST * (HEADROOM + SMALL_CAPACITY));
        this.smallBase = Frames.addressOf(small);
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
        try (PcapReader reader = PcapReader.open(options.input(), PcapReader.DEFAULT_MAX_CAPTURED_LENGTH, true);
            ReplayFilter filter = options.filter() == null ? null : new ReplayFilter(options.filter()))
        {
            mappedSize = reader.size();
            report.input(reader);
            output.open(reader.format(), writeTo);
            while (reader.next())
            {
                record(reader, filter);
            }
            flushWindow();
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
            output.close();
        }
        report.finish(System.nanoTime() - wallStart, output);
        return report;
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

    private void record(final PcapReader reader, final ReplayFilter filter) throws IOException
    {
        final long address = reader.address();
        final int captured = reader.capturedLength();
        final long timestamp = reader.timestampNs();
        final int linkType = reader.linkType();
        report.record(linkType, captured, reader.originalLength());
        if (filter != null && !filter.matches(address, captured, reader.originalLength(), linkType))
        {
            report.filteredOut++;
            return;
        }
        if (clockNs == Long.MIN_VALUE)
        {
            clockNs = timestamp;
            nextSampleNs = timestamp;
            report.firstTimestamp(timestamp);
        }
        else if (timestamp < clockNs)
        {
            report.outOfOrder++;
        }
        final long now = Math.max(clockNs, timestamp);
        if (windowCount == BURST || (windowCount > 0 && now - windowStartNs > WINDOW_NS))
        {
            flushWindow();
        }
        clockNs = now;
        report.lastTimestamp(now);
        if (windowCount == 0)
        {
            windowStartNs = now;
        }
        final int entry = windowCount;
        final boolean fits = captured + EthernetHeader.LENGTH + TAILROOM <= SMALL_CAPACITY;
        final long frame = fits ? smallBase + (long)entry * (HEADROOM + SMALL_CAPACITY) + HEADROOM : largeSlot(entry);
        final int capacity = fits ? SMALL_CAPACITY : LARGE_CAPACITY;
        final int length = framing.frame(address, captured, linkType, frame);
        if (length == CaptureFraming.OUTGOING)
        {
            report.outgoingSkipped++;
            return;
        }
        windowTimestamp[entry] = timestamp;
        windowOriginal[entry] = reader.originalLength() + (length - captured);
        windowLength[entry] = length;
        windowCount++;
        if (length == CaptureFraming.UNSUPPORTED || length == CaptureFraming.NO_ETHERNET_FORM)
        {
            windowWorker[entry] = length == CaptureFraming.UNSUPPORTED ? UNSUPPORTED_RECORD : NO_ETHERNET_FORM_RECORD;
            return;
        }
        final int worker = dispatch.workerOf(frame, length);
        final FrameBurst burst = bursts[worker];
        windowWorker[entry] = worker;
        final int index = burst.add(frame, length, capacity, HEADROOM, now);
        burst.firewallMark[index] = options.firewallMark();
        windowIndex[entry] = index;
    }

    private long largeSlot(final int entry)
    {
        if (large == null)
        {
            large = ByteBuffer.allocateDirect(BURST * (HEADROOM + LARGE_CAPACITY));
        }
        return Frames.addressOf(large) + (long)entry * (HEADROOM + LARGE_CAPACITY) + HEADROOM;
    }

    private void flushWindow() throws IOException
    {
        if (windowCount == 0)
        {
            return;
        }
        final long start = System.nanoTime();
        int processed = 0;
        for (int w = 0; w < pipelines.length; w++)
        {
            if (bursts[w].count > 0)
            {
                pipelines[w].process(bursts[w], clockNs);
                processed += bursts[w].count;
            }
        }
        final long elapsed = System.nanoTime() - start;
        if (processed > 0)
        {
            report.pipelineTime(elapsed, processed);
        }
        for (int entry = 0; entry < windowCount; entry++)
        {
            final int worker = windowWorker[entry];
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
            final FrameBurst burst = bursts[worker];
            final int i = windowIndex[entry];
            final int verdict = burst.verdict[i];
            final long original = Math.max(burst.length[i], windowOriginal[entry] + burst.length[i] - windowLength[entry]);
            output.frame(windowTimestamp[entry], burst.address[i], burst.length[i], original, verdict,
                pipelines[worker], i);
            if (Verdict.kind(verdict) == Verdict.TRANSMIT)
            {
                report.transmittedBytes += burst.length[i];
            }
        }
        for (final FrameBurst burst : bursts)
        {
            burst.clear();
        }
        windowCount = 0;
        while (clockNs >= nextSampleNs)
        {
            report.sample(nextSampleNs);
            nextSampleNs += SAMPLE_PERIOD_NS;
            if (clockNs - nextSampleNs > 1_000 * SAMPLE_PERIOD_NS)
            {
                // A long quiet gap (or a fuzzed timestamp): one sample at its end is enough.
                nextSampleNs = clockNs - clockNs % SAMPLE_PERIOD_NS;
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
}
