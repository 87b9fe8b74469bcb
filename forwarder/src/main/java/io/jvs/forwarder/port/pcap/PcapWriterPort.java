package io.jvs.forwarder.port.pcap;

import io.jvs.core.pcap.PcapWriter;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.Port;
import io.jvs.forwarder.port.PortCountersDescriptor;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A port that writes the frames it transmits to a pcap file (Ethernet, nanosecond timestamps), as tcpdump -w
 * would: a dumper for tests, replays and debugging.
 * <p>
 * It writes through jvs's own {@link PcapWriter}, not pcap4j's dumper: pcap4j's pcap_dump takes each packet as
 * a byte array of exactly its length plus a new header structure, so it would allocate per frame, where
 * {@link PcapWriter} copies the frame from its buffer into a 1 MiB write buffer. The file is the same format
 * libpcap writes and reads.
 * <p>
 * Each record's timestamp is the frame's {@link FrameBurst#receiveTimeNs} plus an offset to the epoch. Every
 * frame is copied (counted in {@link PcapCounters#txCopied}): the receiving port keeps its buffer. The write
 * buffer goes to the file when full, at {@link #flush()} and at {@link #close()}; a failed write is counted in
 * {@link PcapCounters#txErrors} and kept in {@link #failure()}. The port receives nothing.
 */
public final class PcapWriterPort implements Port
{
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long LATEST_NS = 0xFFFF_FFFFL * NANOS_PER_SECOND;

    private final int index;
    private final PcapWriter writer;
    private final long epochOffsetNs;
    private final PcapCounters counters = new PcapCounters(null);
    private String failure = "";
    private boolean closed;

    private PcapWriterPort(final int index, final PcapWriter writer, final long epochOffsetNs)
    {
        this.index = index;
        this.writer = writer;
        this.epochOffsetNs = epochOffsetNs;
    }

    /**
     * Creates a file for frames whose receive times come from {@link System#nanoTime()}: they are written as
     * wall-clock times.
     *
     * @see #open(int, Path, long)
     */
    public static PcapWriterPort open(final int index, final Path file)
    {
        final Instant now = Instant.now();
        final long nanoTime = System.nanoTime();
        return open(index, file, now.getEpochSecond() * NANOS_PER_SECOND + now.getNano() - nanoTime);
    }

    /**
     * @param index         the port's number.
     * @param file          the file, created or truncated.
     * @param epochOffsetNs added to each frame's receive time to make its timestamp (nanoseconds since the
     *                      epoch): 0 when receive times already are, e.g. a file port's record timestamps.
     * @return the port.
     * @throws PcapPortException naming the file if it cannot be created.
     */
    public static PcapWriterPort open(final int index, final Path file, final long epochOffsetNs)
    {
        try
        {
            return new PcapWriterPort(index, PcapWriter.open(file), epochOffsetNs);
        }
        catch (final IOException ex)
        {
            throw new PcapPortException("pcap file " + file + " cannot be created: " + ex, ex);
        }
    }

    @Override
    public int index()
    {
        return index;
    }

    @Override
    public String name()
    {
        return "pcap-writer:" + writer.path();
    }

    @Override
    public int receive(final FrameBurst burst, final long nowNs)
    {
        return 0;
    }

    @Override
    public int transmit(final FrameBurst burst, final int[] indices, final int count)
    {
        int written = 0;
        for (int i = 0; i < count; i++)
        {
            final int frame = indices[i];
            if (closed)
            {
                counters.add(PortCountersDescriptor.TX_ERRORS, 1);
                continue;
            }
            // pcap seconds are unsigned 32-bit: keep the timestamp inside 1970..2106 rather than refuse the frame.
            final long timestampNs = Math.clamp(burst.receiveTimeNs(frame) + epochOffsetNs, 0, LATEST_NS);
            try
            {
                writer.write(timestampNs, burst.address(frame), burst.length(frame));
            }
            catch (final IOException ex)
            {
                counters.add(PortCountersDescriptor.TX_ERRORS, 1);
                failure = ex.toString();
                continue;
            }
            counters.add(PortCountersDescriptor.TX_FRAMES, 1);
            counters.add(PortCountersDescriptor.TX_BYTES, burst.length(frame));
            counters.add(PortCountersDescriptor.TX_COPIED, 1);
            written++;
        }
        return written;
    }

    @Override
    public void release(final FrameBurst burst)
    {
    }

    @Override
    public void flush()
    {
        try
        {
            writer.flush();
        }
        catch (final IOException ex)
        {
            failure = ex.toString();
        }
    }

    @Override
    public PcapCounters counters()
    {
        return counters;
    }

    /**
     * @return the last write error, or "" if none.
     */
    public String failure()
    {
        return failure;
    }

    /**
     * Writes what is buffered and closes the file.
     *
     * @throws PcapPortException if the last write fails (the file is closed anyway).
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            writer.close();
        }
        catch (final IOException ex)
        {
            throw new PcapPortException("pcap file " + writer.path() + ": the last write failed: " + ex, ex);
        }
    }
}
