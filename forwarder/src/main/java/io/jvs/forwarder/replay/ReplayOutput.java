package io.jvs.forwarder.replay;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.IpFragmenter;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.ParsedBurst;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pcap.CaptureFormat;
import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapWriter;
import io.jvs.core.pcap.PcapngWriter;
import io.jvs.core.pcap.TimestampPrecision;
import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.core.service.RealServer;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Where a replay's frames and decisions go: forwarded frames to a pcap in capture order with their
 * capture timestamps (or, with {@code --all}, every frame to a pcapng, each with its verdict as a comment
 * and forwarded ones marked outbound), and one CSV line per new connection.
 */
final class ReplayOutput implements AutoCloseable
{
    /** Bytes for one packet's fragments, as the daemon's worker keeps. */
    private static final int FRAGMENT_MEMORY = 1 << 18;
    /** The decisions file's first line. */
    static final String DECISIONS_HEADER = "time,protocol,client,virtual,server,reason";

    private final ReplayOptions options;
    private final DataPlane plane;
    private final Map<Integer, byte[]> comments = new HashMap<>();
    private PcapWriter pcap;
    private PcapngWriter pcapng;
    private BufferedWriter decisions;
    private Path outputPath;
    private Path decisionsPath;
    private long written;
    private long fragmented;
    private long fragmentRecords;
    private long decisionLines;
    /** Where a packet forwarded in fragments is split before they are written, as the daemon's worker sends them. */
    private final IpFragmenter fragmenter = new IpFragmenter(FrameBurst.MAX_FRAMES);
    private ByteBuffer fragmentMemory;

    ReplayOutput(final ReplayOptions options, final DataPlane plane)
    {
        this.options = options;
        this.plane = plane;
    }

    /**
     * Creates the output files; a classic pcap keeps the capture's timestamp precision.
     *
     * @param writeTo where each of the options' output files is written.
     */
    void open(final CaptureFormat inputFormat, final UnaryOperator<Path> writeTo) throws IOException
    {
        if (options.output() != null)
        {
            outputPath = writeTo.apply(options.output());
            try
            {
                if (options.all())
                {
                    pcapng = PcapngWriter.open(outputPath, LinkType.ETHERNET, PcapWriter.DEFAULT_SNAP_LENGTH);
                }
                else
                {
                    pcap = PcapWriter.open(outputPath, inputFormat == CaptureFormat.PCAP_MICROSECONDS ?
                        TimestampPrecision.MICROSECONDS : TimestampPrecision.NANOSECONDS, LinkType.ETHERNET,
                        PcapWriter.DEFAULT_SNAP_LENGTH);
                }
            }
            catch (final IOException ex)
            {
                throw named(outputPath, ex);
            }
        }
        if (options.decisions() != null)
        {
            decisionsPath = writeTo.apply(options.decisions());
            try
            {
                decisions = Files.newBufferedWriter(decisionsPath, StandardCharsets.UTF_8);
                decisions.write(DECISIONS_HEADER);
                decisions.write('\n');
            }
            catch (final IOException ex)
            {
                throw named(decisionsPath, ex);
            }
        }
    }

    /**
     * @return the failure as a {@link FileSystemException} naming the file, which a bare "No space left on
     * device" from a write does not.
     */
    private static IOException named(final Path file, final IOException ex)
    {
        if (ex instanceof final FileSystemException system && system.getFile() != null)
        {
            return ex;
        }
        final FileSystemException named = new FileSystemException(file.toString(), null,
            ex.getMessage() == null ? ex.getClass().getSimpleName() : ex.getMessage());
        named.initCause(ex);
        return named;
    }

    /**
     * One frame after the pipeline, in record order: written if forwarded (or always with --all); a packet forwarded
     * in fragments ({@link Verdict#inFragments}) is written as its fragments, when the capture holds it whole.
     */
    void frame(final long timestampNs, final long address, final int length, final long originalLength,
        final int verdict) throws IOException
    {
        if (Verdict.inFragments(verdict) && length == originalLength)
        {
            if (fragmentMemory == null)
            {
                fragmentMemory = ByteBuffer.allocateDirect(FRAGMENT_MEMORY);
            }
            final long base = Frames.addressOf(fragmentMemory);
            final int count = fragmenter.fragmentFrame(address, length, Verdict.fragmentMtu(verdict), base,
                FRAGMENT_MEMORY);
            if (count > 0)
            {
                for (int f = 0; f < count; f++)
                {
                    writeFrame(timestampNs, fragmenter.address(f), fragmenter.length(f), fragmenter.length(f),
                        verdict);
                }
                fragmented++;
                fragmentRecords += count;
                return;
            }
        }
        writeFrame(timestampNs, address, length, originalLength, verdict);
    }

    private void writeFrame(final long timestampNs, final long address, final int length, final long originalLength,
        final int verdict) throws IOException
    {
        final boolean transmitted = Verdict.kind(verdict) == Verdict.TRANSMIT;
        try
        {
            if (pcap != null && transmitted)
            {
                pcap.write(timestampNs, address, length, originalLength);
                written++;
            }
            else if (pcapng != null)
            {
                pcapng.write(timestampNs, address, length, originalLength, comment(verdict),
                    transmitted ? PcapngWriter.DIRECTION_OUTBOUND : PcapngWriter.DIRECTION_INBOUND);
                written++;
            }
        }
        catch (final IOException ex)
        {
            throw named(outputPath, ex);
        }
    }

    /**
     * @return whether {@link #decision} writes anything: a decisions file was asked for.
     */
    boolean logsDecisions()
    {
        return decisions != null;
    }

    /**
     * One frame straight after the pipeline's burst, in record order, while the pipeline still holds what it
     * parsed: logged if it opened (or could not open) a connection. Written by the thread that runs the
     * pipelines, so the decisions file has one writer, as the frames file has its own.
     */
    void decision(final long timestampNs, final Pipeline pipeline, final int i) throws IOException
    {
        final int opened = pipeline.openedServer(i);
        if (opened != Pipeline.OPENED_NONE)
        {
            try
            {
                decision(timestampNs, pipeline.parsed(), i, opened, pipeline.refusal(i));
            }
            catch (final IOException ex)
            {
                throw named(decisionsPath, ex);
            }
        }
    }

    private byte[] comment(final int verdict)
    {
        return comments.computeIfAbsent(verdict, v -> ("jvs: " + Verdict.toString(v)).getBytes(StandardCharsets.UTF_8));
    }

    private void decision(final long timestampNs, final ParsedBurst p, final int i, final int opened, final DropReason refusal)
        throws IOException
    {
        final boolean v6 = p.kind(i) == ParsedBurst.KIND_IPV6;
        final IpAddress client = v6 ? IpAddress.ofV6(p.sourceHigh(i), p.sourceLow(i)) : IpAddress.ofV4(p.sourceV4(i));
        final IpAddress virtual = v6 ? IpAddress.ofV6(p.destinationHigh(i), p.destinationLow(i)) :
            IpAddress.ofV4(p.destinationV4(i));
        final StringBuilder line = new StringBuilder(128);
        line.append(Instant.ofEpochSecond(0, timestampNs)).append(',')
            .append(protocolName(p.protocol(i))).append(',')
            .append(endpoint(client, p.sourcePort(i))).append(',')
            .append(endpoint(virtual, p.destinationPort(i))).append(',');
        final RealServer server = opened > 0 ? plane.server(opened) : null;
        if (server != null)
        {
            line.append(endpoint(server.address(), server.port())).append(',');
        }
        else
        {
            line.append("none,").append(refusal == null ? "unknown" : refusal.label());
        }
        decisions.write(line.append('\n').toString());
        decisionLines++;
    }

    private static String endpoint(final IpAddress address, final int port)
    {
        return (address.isV6() ? address.toBracketedString() : address.toString()) + ":" + port;
    }

    private static String protocolName(final int protocol)
    {
        return switch (protocol)
        {
            case Ipv4Header.PROTOCOL_TCP -> "tcp";
            case Ipv4Header.PROTOCOL_UDP -> "udp";
            case 132 -> "sctp";
            default -> Integer.toString(protocol);
        };
    }

    long written()
    {
        return written;
    }

    /** @return how many forwarded packets were written as fragments. */
    long fragmented()
    {
        return fragmented;
    }

    /** @return how many fragments they were written as. */
    long fragmentRecords()
    {
        return fragmentRecords;
    }

    long decisionLines()
    {
        return decisionLines;
    }

    @Override
    public void close() throws IOException
    {
        final PcapWriter a = pcap;
        final PcapngWriter b = pcapng;
        final BufferedWriter c = decisions;
        pcap = null;
        pcapng = null;
        decisions = null;
        IOException failure = null;
        try
        {
            if (a != null)
            {
                a.close();
            }
            if (b != null)
            {
                b.close();
            }
        }
        catch (final IOException ex)
        {
            failure = named(outputPath, ex);
        }
        try
        {
            if (c != null)
            {
                c.close();
            }
        }
        catch (final IOException ex)
        {
            if (failure == null)
            {
                failure = named(decisionsPath, ex);
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }
}
