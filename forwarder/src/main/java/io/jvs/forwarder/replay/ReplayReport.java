package io.jvs.forwarder.replay;

import io.jvs.core.packet.DropReason;
import io.jvs.core.pcap.EndReason;
import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapReader;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.core.pipeline.WorkerCounters;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;
import org.HdrHistogram.Histogram;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.jvs.core.stats.TrafficStatsDescriptor.CONNECTIONS;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAMES;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAME_BYTES;

/**
 * What a replay saw and did: the capture (records, link types, truncated and out-of-order records, where
 * reading stopped), the frames (in = forwarded + passed + dropped, drops by reason), each service and real
 * server (connections, packets, bytes, share against weight, connections over capture time), the
 * pipeline's time per frame and the replay's rate. Rendered by {@link ReplayReportFormat}.
 */
public final class ReplayReport
{
    /** The drop reason of records whose link layer has no Ethernet form (not a pipeline reason). */
    public static final String UNSUPPORTED_LINK_TYPE = "unsupported-link-type";
    /**
     * The drop reason of records of a link layer with an Ethernet form whose own header names nothing an Ethernet
     * frame carries (an address family, IP version or cooked protocol that is none), or that are cut short in it.
     */
    public static final String NO_ETHERNET_FORM = "no-ethernet-form";

    final ReplayOptions options;
    final ReplayConfig config;
    final DataPlane plane;
    final Pipeline[] pipelines;
    /** Pipeline time per frame in ns, each burst's time shared out equally among its frames. */
    final Histogram pipelineNs = new Histogram(Pipeline.MAX_LATENCY_NS, 2);
    private final long[] recordsByLinkType = new long[1 << 16];
    /** The link types {@link #recordsByLinkType} has counted, a bit each: the report reads 1 024 words, not 65 536. */
    private final long[] linkTypesSeen = new long[(1 << 16) / Long.SIZE];
    final List<long[]> samples = new ArrayList<>();
    final List<Long> sampleTimes = new ArrayList<>();

    String format;
    long records;
    long snapTruncated;
    long outOfOrder;
    long filteredOut;
    long outgoingSkipped;
    long unsupported;
    long noEthernetForm;
    long transmittedBytes;
    long firstTimestampNs = Long.MIN_VALUE;
    long lastTimestampNs = Long.MIN_VALUE;
    String endReason;
    String endDetail;
    long wallNs;
    long pipelineTotalNs;
    long written;
    /** Forwarded packets too long for their egress port, without DF, written as fragments. */
    long fragmented;
    /** The fragments they were written as. */
    long fragmentRecords;
    long decisionLines;

    ReplayReport(final ReplayOptions options, final ReplayConfig config, final DataPlane plane,
        final Pipeline[] pipelines)
    {
        this.options = options;
        this.config = config;
        this.plane = plane;
        this.pipelines = pipelines;
    }

    /**
     * @return the file the services came from: the rules file, or the configuration that holds them.
     */
    Path rulesSource()
    {
        return options.rules() != null ? options.rules() : Path.of(config.source());
    }

    void input(final PcapReader reader)
    {
        format = reader.format().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    void record(final int linkType, final int captured, final long original)
    {
        records++;
        if (captured < original)
        {
            snapTruncated++;
        }
        final int type = linkType & 0xFFFF;
        recordsByLinkType[type]++;
        linkTypesSeen[type >>> 6] |= 1L << type;
    }

    void firstTimestamp(final long ns)
    {
        firstTimestampNs = ns;
    }

    void lastTimestamp(final long ns)
    {
        lastTimestampNs = ns;
    }

    void pipelineTime(final long elapsedNs, final int frames)
    {
        pipelineTotalNs += elapsedNs;
        pipelineNs.recordValueWithCount(Math.min(Pipeline.MAX_LATENCY_NS, elapsedNs / frames), frames);
    }

    /** Every real server's connections (active + inactive) at a moment of capture time. */
    void sample(final long timeNs)
    {
        final long[] values = new long[plane.serverSlots()];
        for (int slot = 1; slot < values.length; slot++)
        {
            final RealServer server = plane.server(slot);
            values[slot] = server == null ? 0 : server.totalConnections();
        }
        sampleTimes.add(timeNs);
        samples.add(values);
    }

    void end(final PcapReader reader)
    {
        endReason = reader.endReason() == null ? "end-of-file" : reader.endReason().name().toLowerCase(java.util.Locale.ROOT)
            .replace('_', '-');
        endDetail = reader.endReason() == EndReason.END_OF_FILE ? null : reader.endDetail();
    }

    void finish(final long wallNs, final ReplayOutput output)
    {
        this.wallNs = wallNs;
        this.written = output.written();
        this.fragmented = output.fragmented();
        this.fragmentRecords = output.fragmentRecords();
        this.decisionLines = output.decisionLines();
    }

    // ---------------------------------------------------------------------------------------------------
    // Totals over the workers

    /**
     * @return why the capture's reading stopped before its end (a truncated last record, a bad block), or
     * null when it was read to the end.
     */
    public String endDetail()
    {
        return endDetail;
    }

    /**
     * @return the records sent by the capturing host itself, which replay skips.
     */
    public long outgoingSkipped()
    {
        return outgoingSkipped;
    }

    /** @return records by link type name. */
    public Map<String, Long> linkTypes()
    {
        final Map<String, Long> types = new TreeMap<>();
        for (int word = 0; word < linkTypesSeen.length; word++)
        {
            for (long bits = linkTypesSeen[word]; bits != 0; bits &= bits - 1)
            {
                final int type = word << 6 | Long.numberOfTrailingZeros(bits);
                types.put(LinkType.name(type), recordsByLinkType[type]);
            }
        }
        return types;
    }

    /** Frames given to the pipelines, plus records with no Ethernet form. */
    public long framesIn()
    {
        long frames = unsupported + noEthernetForm;
        for (final Pipeline pipeline : pipelines)
        {
            frames += pipeline.counters().frames();
        }
        return frames;
    }

    public long forwarded()
    {
        return sum(WorkerCounters::transmitted);
    }

    public long passed()
    {
        return sum(WorkerCounters::passed);
    }

    /** Frames dropped, with the records that have no Ethernet form. */
    public long dropped()
    {
        return sum(WorkerCounters::dropped) + unsupported + noEthernetForm;
    }

    public long icmpAnswers()
    {
        return sum(c -> c.icmpSent());
    }

    /**
     * @return later fragments sent the way their first went (counted by no service).
     */
    public long fragmentsFollowed()
    {
        return sum(c -> c.fragmentsFollowed());
    }

    /**
     * @return frames the pipelines' call-free loop for established connections took (Pipeline.followEstablished),
     *         the parser's verdicts among them.
     */
    public long fastPathFrames()
    {
        return sum(c -> c.fastPath());
    }

    /**
     * @return frames the pipelines' general path took: every other frame handed to a pipeline.
     */
    public long generalPathFrames()
    {
        return sum(c -> c.frames() - c.fastPath());
    }

    public long connections()
    {
        return sum(c -> c.connections());
    }

    public long records()
    {
        return records;
    }

    public long outOfOrder()
    {
        return outOfOrder;
    }

    public long snapTruncated()
    {
        return snapTruncated;
    }

    public long filteredOut()
    {
        return filteredOut;
    }

    public long written()
    {
        return written;
    }

    /** @return how many forwarded packets were written as fragments (IPv4 without DF, longer than the MTU). */
    public long fragmented()
    {
        return fragmented;
    }

    /** @return how many fragments they were written as. */
    public long fragmentRecords()
    {
        return fragmentRecords;
    }

    public double wallSeconds()
    {
        return wallNs / 1e9;
    }

    /** Frames per second of wall time, reading and writing included. */
    public double framesPerSecond()
    {
        return wallNs == 0 ? 0 : framesIn() * 1e9 / wallNs;
    }

    /** Frames per second of pipeline time alone. */
    public double pipelineFramesPerSecond()
    {
        return pipelineTotalNs == 0 ? 0 : (framesIn() - unsupported - noEthernetForm) * 1e9 / pipelineTotalNs;
    }

    /**
     * @return drops by reason label, in the order of {@link DropReason}, then {@link #UNSUPPORTED_LINK_TYPE} and
     *         {@link #NO_ETHERNET_FORM};
     *         reasons with no drops left out. A drop answered with ICMP counts here, and as forwarded.
     */
    public Map<String, Long> dropsByReason()
    {
        final Map<String, Long> drops = new java.util.LinkedHashMap<>();
        for (final DropReason reason : DropReason.values())
        {
            final long count = sum(c -> c.dropped(reason));
            if (count > 0)
            {
                drops.put(reason.label(), count);
            }
        }
        if (unsupported > 0)
        {
            drops.put(UNSUPPORTED_LINK_TYPE, unsupported);
        }
        if (noEthernetForm > 0)
        {
            drops.put(NO_ETHERNET_FORM, noEthernetForm);
        }
        return drops;
    }

    /** One real server's totals. */
    public record ServerLine(String server, String method, int weight, long connections, long packets, long bytes,
        double share, double weightShare, int slot)
    {
    }

    /** One virtual service's totals and its servers. */
    public record ServiceLine(String service, String scheduler, long connections, long packets, long bytes,
        List<ServerLine> servers)
    {
    }

    /**
     * @return every configured service with its servers, in the rules' order of services and the kernel's
     *         listing order of servers.
     */
    public List<ServiceLine> services()
    {
        final List<ServiceLine> lines = new ArrayList<>();
        for (int slot = 0; slot < plane.serviceCount(); slot++)
        {
            final VirtualService service = plane.service(slot);
            if (service == null)
            {
                continue;
            }
            final int serviceSlot = slot;
            final RealServer[] servers = service.servers();
            long weights = 0;
            long connections = 0;
            for (final RealServer server : servers)
            {
                weights += server.weight();
                connections += serverSum(plane.slotOf(server), CONNECTIONS);
            }
            final List<ServerLine> serverLines = new ArrayList<>();
            for (final RealServer server : servers)
            {
                final int serverSlot = plane.slotOf(server);
                final long serverConnections = serverSum(serverSlot, CONNECTIONS);
                serverLines.add(new ServerLine(endpoint(server), server.forwardMethod().listingName(),
                    server.weight(), serverConnections, serverSum(serverSlot, FRAMES),
                    serverSum(serverSlot, FRAME_BYTES), connections == 0 ? 0 : 100.0 * serverConnections / connections,
                    weights == 0 ? 0 : 100.0 * server.weight() / weights, serverSlot));
            }
            lines.add(new ServiceLine(service.key().toString(), service.settings().scheduler(),
                serviceSum(serviceSlot, CONNECTIONS), serviceSum(serviceSlot, FRAMES),
                serviceSum(serviceSlot, FRAME_BYTES), serverLines));
        }
        return lines;
    }

    /** @return the pipeline's time per frame. */
    public Histogram pipelineNs()
    {
        return pipelineNs;
    }

    long[] sampleTimes()
    {
        return sampleTimes.stream().mapToLong(Long::longValue).toArray();
    }

    long[] samplesOf(final int slot)
    {
        final long[] values = new long[samples.size()];
        for (int i = 0; i < values.length; i++)
        {
            final long[] sample = samples.get(i);
            values[i] = slot < sample.length ? sample[slot] : 0;
        }
        return values;
    }

    String timestamp(final long ns)
    {
        return ns == Long.MIN_VALUE ? "-" : Instant.ofEpochSecond(0, ns).toString();
    }

    private static String endpoint(final RealServer server)
    {
        return (server.address().isV6() ? server.address().toBracketedString() : server.address().toString()) + ":" +
            server.port();
    }

    /** One field of a service slot's traffic counts, summed over the workers. */
    private long serviceSum(final int slot, final int field)
    {
        long total = 0;
        for (final Pipeline pipeline : pipelines)
        {
            total += pipeline.traffic().service(slot, field);
        }
        return total;
    }

    /** One field of a server slot's traffic counts, summed over the workers. */
    private long serverSum(final int slot, final int field)
    {
        long total = 0;
        for (final Pipeline pipeline : pipelines)
        {
            total += pipeline.traffic().server(slot, field);
        }
        return total;
    }

    private long sum(final java.util.function.ToLongFunction<WorkerCounters> counter)
    {
        long total = 0;
        for (final Pipeline pipeline : pipelines)
        {
            total += counter.applyAsLong(pipeline.counters());
        }
        return total;
    }

    @Override
    public String toString()
    {
        return ReplayReportFormat.table(this);
    }

    static String percent(final double value)
    {
        return String.format(ReplayReportFormat.NUMBERS, "%.1f", value);
    }
}
