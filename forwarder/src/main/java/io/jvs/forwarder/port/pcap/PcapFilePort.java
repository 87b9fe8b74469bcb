package io.jvs.forwarder.port.pcap;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.FramePool;
import io.jvs.forwarder.port.Port;
import io.jvs.forwarder.port.PortCountersDescriptor;

import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.Pcaps;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a pcap or pcapng file through libpcap (pcap4j), optionally through a BPF filter, as a port: each
 * record becomes a frame copied into a buffer of the port's own pool.
 * <p>
 * Frames are Ethernet. A capture of another link type is refused at open unless its {@link EthernetFraming}
 * synthesizes Ethernet headers; a filter is compiled for the file's own link type, and applies before any
 * header is synthesized. A record is delivered with the bytes captured, even if the capture cut it short;
 * records longer than a buffer are skipped and counted in {@link PcapCounters#rxTooLong}.
 * <p>
 * When the file has been read, {@link #receive} returns 0 and {@link #atEnd()} is true; if libpcap stopped
 * on an error (a truncated file), {@link #failure()} says what it was. Each frame's capture time is
 * {@link #recordTimestampNs} until it is released. A capture file is read-only: {@link #transmit} sends
 * nothing and counts each frame in {@link PcapCounters#txErrors}.
 */
public final class PcapFilePort implements Port
{
    private final int index;
    private final Path file;
    private final PcapHandle handle;
    private final int linkType;
    private final FramePool pool;
    private final PcapCounters counters = new PcapCounters(null);
    private final PcapReceiver receiver;
    private final int receiveBurst;
    private boolean closed;

    private PcapFilePort(final int index, final Path file, final PcapHandle handle, final int linkType,
        final PcapFileSettings settings)
    {
        this.index = index;
        this.file = file;
        this.handle = handle;
        this.linkType = linkType;
        this.pool = new FramePool(settings.buffers(), settings.bufferSize(), settings.headroom());
        this.receiver = new PcapReceiver(handle, pool, linkType, settings.framing(), false, true, counters);
        this.receiveBurst = settings.receiveBurst();
    }

    /**
     * Opens an Ethernet capture without a filter.
     *
     * @see #open(int, Path, PcapFileSettings)
     */
    public static PcapFilePort open(final int index, final Path file)
    {
        return open(index, file, PcapFileSettings.DEFAULT);
    }

    /**
     * @param index    the port's number.
     * @param file     a pcap or pcapng file.
     * @param settings the filter, the framing of other link types, the pool.
     * @return the port, before the first record.
     * @throws PcapPortException naming the file (and the filter) if the file is missing or unreadable, is not a
     *                           capture libpcap reads, is not Ethernet and may not be framed as Ethernet, or
     *                           the filter does not compile.
     */
    public static PcapFilePort open(final int index, final Path file, final PcapFileSettings settings)
    {
        Libpcap.version();
        if (!Files.exists(file))
        {
            throw new PcapPortException("pcap file " + file + " does not exist");
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file))
        {
            throw new PcapPortException("pcap file " + file + " is not a readable file");
        }
        final PcapHandle handle;
        try
        {
            handle = Pcaps.openOffline(file.toString(), PcapHandle.TimestampPrecision.NANO);
        }
        catch (final PcapNativeException ex)
        {
            throw new PcapPortException("pcap file " + file + ": libpcap cannot read it: " + ex.getMessage(), ex);
        }
        try
        {
            final int linkType = handle.getDlt().value();
            checkLinkType(file, linkType, settings.framing());
            if (!settings.filter().isEmpty())
            {
                PcapFilters.apply(handle, settings.filter(), "pcap file " + file);
            }
            return new PcapFilePort(index, file, handle, linkType, settings);
        }
        catch (final RuntimeException ex)
        {
            handle.close();
            throw ex;
        }
    }

    private static void checkLinkType(final Path file, final int linkType, final EthernetFraming framing)
    {
        if (linkType == EthernetFraming.DLT_EN10MB)
        {
            return;
        }
        final String described = "pcap file " + file + " has link type " + PcapFilters.linkTypeName(linkType);
        if (!EthernetFraming.hasEthernetForm(linkType))
        {
            throw new PcapPortException(described + ", which has no Ethernet form jvs can build (it can for " +
                "EN10MB, NULL, LOOP, RAW, IPV4, IPV6, LINUX_SLL and LINUX_SLL2)");
        }
        if (!framing.synthesizes())
        {
            throw new PcapPortException(described + ", not Ethernet: open it with EthernetFraming.synthesized(" +
                "destinationMac, sourceMac) to give each packet an Ethernet header in place of its own");
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
        return "pcap-file:" + file;
    }

    @Override
    public int receive(final FrameBurst burst, final long nowNs)
    {
        return closed ? 0 : receiver.receive(burst, nowNs, receiveBurst);
    }

    @Override
    public int transmit(final FrameBurst burst, final int[] indices, final int count)
    {
        counters.add(PortCountersDescriptor.TX_ERRORS, count);
        return 0;
    }

    @Override
    public void release(final FrameBurst burst)
    {
        receiver.release(burst);
    }

    @Override
    public void flush()
    {
    }

    @Override
    public PcapCounters counters()
    {
        return counters;
    }

    /**
     * @return true once the whole file has been read, or libpcap stopped on an error ({@link #failure()}).
     */
    public boolean atEnd()
    {
        return receiver.ended();
    }

    /**
     * @return libpcap's error if reading stopped before the end of the file (e.g. "truncated dump file"),
     * else "".
     */
    public String failure()
    {
        return receiver.failure();
    }

    /**
     * @param burst a burst this port filled.
     * @param frame the index of a frame of it this port received, not yet released.
     * @return the record's capture time, nanoseconds since the epoch (microsecond files read as whole µs).
     */
    public long recordTimestampNs(final FrameBurst burst, final int frame)
    {
        return receiver.timestampNs(burst, frame);
    }

    /**
     * @return the file's link type as libpcap numbers it (DLT_), e.g. 1 for Ethernet.
     */
    public int linkType()
    {
        return linkType;
    }

    /**
     * @return the buffers frames are received into.
     */
    public FramePool pool()
    {
        return pool;
    }

    /**
     * Closes the file and frees the buffers: frames not yet released become invalid.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            handle.close();
            pool.close();
        }
    }
}
