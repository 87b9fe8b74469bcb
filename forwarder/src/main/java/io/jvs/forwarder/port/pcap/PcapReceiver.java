package io.jvs.forwarder.port.pcap;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.pcap.EthernetForm;
import io.jvs.core.pcap.LinkType;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.FramePool;
import io.jvs.forwarder.port.PortCountersDescriptor;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.RawPacketListener;

import java.nio.ByteBuffer;
import java.sql.Timestamp;

/**
 * Receives from a pcap4j handle into the buffers of a pool, for the file and live ports: one pcap_dispatch per
 * burst, asking for no more packets than the burst and the pool have room for.
 * <p>
 * pcap4j hands each packet over as a new byte array, with a new timestamp object, through a JNA callback that
 * is itself created anew for each dispatch: about 200 bytes of garbage per packet plus 3 KB per call
 * (measured on 60-byte frames; pcap_next and pcap_next_ex cost more). jvs copies the bytes into its own buffer
 * at once, so the garbage dies young; avoiding it would need a libpcap binding of jvs's own.
 */
final class PcapReceiver implements RawPacketListener
{
    private static final long BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final PcapHandle handle;
    private final FramePool pool;
    private final int linkType;
    /** The same link type as a capture file numbers it, which {@link EthernetForm} takes. */
    private final int fileLinkType;
    /** Scratch for a packet's link-layer header, in native memory where {@link EthernetForm} reads (held here). */
    private final ByteBuffer linkHeaderBuffer = BufferUtil.allocateDirectAligned(64, 64);
    private final long linkHeader = BufferUtil.address(linkHeaderBuffer);
    private final EthernetFraming framing;
    private final boolean skipCutShort;
    private final boolean endsWhenEmpty;
    private final PcapCounters counters;
    private final long[] timestampNs;
    private FrameBurst burst;
    private long nowNs;
    private int appended;
    private boolean ended;
    private String failure = "";

    /**
     * @param handle        an open handle.
     * @param pool          the buffers frames are copied into.
     * @param linkType      the handle's link type (DLT_).
     * @param framing       how packets that are not Ethernet become Ethernet frames.
     * @param skipCutShort  skip frames the snapshot length cut short (live capture) instead of passing them on.
     * @param endsWhenEmpty a dispatch that finds nothing means the end (a file).
     * @param counters      where to count.
     */
    PcapReceiver(final PcapHandle handle, final FramePool pool, final int linkType, final EthernetFraming framing,
        final boolean skipCutShort, final boolean endsWhenEmpty, final PcapCounters counters)
    {
        this.handle = handle;
        this.pool = pool;
        this.linkType = linkType;
        this.fileLinkType = LinkType.ofDlt(linkType);
        this.framing = framing;
        this.skipCutShort = skipCutShort;
        this.endsWhenEmpty = endsWhenEmpty;
        this.counters = counters;
        this.timestampNs = new long[pool.bufferCount()];
    }

    int receive(final FrameBurst burst, final long nowNs, final int limit)
    {
        // pcap_dispatch reads without limit when asked for 0 packets: never ask for 0.
        final int room = Math.min(Math.min(limit, FrameBurst.MAX_FRAMES - burst.count), pool.freeCount());
        if (ended || room <= 0)
        {
            return 0;
        }
        this.burst = burst;
        this.nowNs = nowNs;
        appended = 0;
        try
        {
            // Savefiles: 0 only at the end of the file (packets a filter rejects are read past, not returned).
            if (handle.dispatch(room, this) == 0 && endsWhenEmpty)
            {
                ended = true;
            }
        }
        catch (final PcapNativeException | InterruptedException | NotOpenException ex)
        {
            // libpcap failed (a truncated file, an interface gone): pcap4j has already allocated the exception.
            ended = true;
            failure = String.valueOf(ex.getMessage());
        }
        finally
        {
            this.burst = null;
        }
        counters.add(PortCountersDescriptor.RX_FRAMES, appended);
        return appended;
    }

    @Override
    public void gotPacket(final byte[] packet)
    {
        final int captured = packet.length;
        if (skipCutShort && handle.getOriginalLength() > captured)
        {
            counters.add(PortCountersDescriptor.RX_TOO_LONG, 1);
            return;
        }
        int start = 0;
        int etherType = 0;
        int length = captured;
        if (linkType != EthernetFraming.DLT_EN10MB)
        {
            // The decoder reads native memory: the link-layer header, no more, goes through a scratch line.
            UnsafeApi.copyMemory(packet, BYTE_ARRAY_BASE, null, linkHeader,
                Math.min(captured, EthernetForm.MAX_LINK_HEADER));
            final long decoded = EthernetForm.decode(fileLinkType, linkHeader, captured);
            if (decoded == EthernetForm.OUTGOING)
            {
                counters.add(PortCountersDescriptor.RX_OUTGOING, 1);
                return;
            }
            if (decoded == EthernetForm.NONE)
            {
                counters.add(PortCountersDescriptor.RX_NOT_ETHERNET, 1);
                return;
            }
            start = EthernetForm.linkHeaderLength(decoded);
            etherType = EthernetForm.etherType(decoded);
            length = EthernetHeader.LENGTH + captured - start;
        }
        if (length > pool.frameCapacity())
        {
            counters.add(PortCountersDescriptor.RX_TOO_LONG, 1);
            return;
        }
        // Never NO_BUFFER: receive asked libpcap for no more packets than there are free buffers.
        final int buffer = pool.allocate();
        final long frame = pool.frameAddress(buffer);
        if (linkType != EthernetFraming.DLT_EN10MB)
        {
            framing.writeHeader(frame, etherType);
            UnsafeApi.copyMemory(packet, BYTE_ARRAY_BASE + start, null, frame + EthernetHeader.LENGTH,
                captured - start);
        }
        else
        {
            UnsafeApi.copyMemory(packet, BYTE_ARRAY_BASE, null, frame, captured);
        }
        timestampNs[buffer] = nanosOf(handle.getTimestamp());
        burst.add(frame, length, pool.frameCapacity(), pool.headroom(), nowNs, buffer);
        counters.add(PortCountersDescriptor.RX_BYTES, length);
        appended++;
    }

    private static long nanosOf(final Timestamp timestamp)
    {
        return Math.floorDiv(timestamp.getTime(), 1000L) * NANOS_PER_SECOND + timestamp.getNanos();
    }

    /**
     * Gives back the buffers of the burst's frames that are in this pool and were not taken.
     */
    void release(final FrameBurst burst)
    {
        for (int i = 0; i < burst.count; i++)
        {
            if (!burst.taken(i) && pool.contains(burst.address(i)))
            {
                pool.free((int)burst.handle(i));
            }
        }
    }

    /**
     * @return the capture time of a frame received here and not yet released, in nanoseconds since the epoch;
     * -1 for a frame from elsewhere.
     */
    long timestampNs(final FrameBurst burst, final int index)
    {
        return pool.contains(burst.address(index)) ? timestampNs[(int)burst.handle(index)] : -1;
    }

    boolean ended()
    {
        return ended;
    }

    /**
     * @return libpcap's error that stopped receiving, or "" if none did.
     */
    String failure()
    {
        return failure;
    }
}
