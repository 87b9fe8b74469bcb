package io.jvs.forwarder.port.pcap;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.FramePool;
import io.jvs.forwarder.port.Port;
import io.jvs.forwarder.port.PortCountersDescriptor;

import org.agrona.UnsafeApi;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.PcapNetworkInterface;

/**
 * Captures from and injects into a network interface through libpcap (pcap4j): the most portable port, and
 * the slowest. The handle is non-blocking, so a worker polls it, and in immediate mode, so a frame is handed
 * over as soon as it arrives rather than when a ring block fills.
 * <p>
 * Receive: one pcap_dispatch per burst, each frame copied into the port's own pool (see {@link PcapReceiver}
 * for what pcap4j allocates per packet). By default only inbound frames are captured, so the port never
 * receives what it sent. The snapshot length is a buffer's capacity; a longer frame arrives cut short and is
 * skipped and counted in {@link PcapCounters#rxTooLong}.
 * <p>
 * Transmit: each frame is copied into one reused array and sent by pcap_sendpacket (pcap_inject), a system
 * call per frame: libpcap has no batched send. The send is synchronous, so {@link #flush()} has nothing to do
 * and the frame's buffer stays the receiving port's. A failed send is counted, in
 * {@link PcapCounters#txRingFull} when the socket's buffer was full (ENOBUFS, EAGAIN), else in
 * {@link PcapCounters#txErrors}, and its reason is kept in {@link #failure()}. pcap4j takes a read lock per
 * call and, on a failed call, builds an exception: the port catches it.
 * <p>
 * Only Ethernet interfaces are accepted. On Linux the capture is a packet socket: the kernel still processes
 * every frame it delivers, and sees every frame injected as if it had come from the interface's driver.
 */
public final class PcapLivePort implements Port
{
    private static final int PCAP_ERROR_NO_SUCH_DEVICE = -5;
    private static final int PCAP_ERROR_PERM_DENIED = -8;
    private static final int PCAP_ERROR_IFACE_NOT_UP = -9;
    private static final int PCAP_ERROR_PROMISC_PERM_DENIED = -11;
    private static final long BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);
    /** The largest frame one send takes: libpcap's largest snapshot length. */
    private static final int MAX_SEND = 256 * 1024;

    private final int index;
    private final String interfaceName;
    private final PcapHandle handle;
    private final FramePool pool;
    private final PcapCounters counters;
    private final PcapReceiver receiver;
    private final int receiveBurst;
    private final byte[] sendBuffer = new byte[MAX_SEND];
    private String failure = "";
    private boolean closed;

    private PcapLivePort(final int index, final String interfaceName, final PcapHandle handle,
        final PcapLiveSettings settings, final FramePool pool)
    {
        this.index = index;
        this.interfaceName = interfaceName;
        this.handle = handle;
        this.pool = pool;
        this.counters = new PcapCounters(handle);
        this.receiver = new PcapReceiver(handle, pool, EthernetFraming.DLT_EN10MB, EthernetFraming.refuse(), true,
            false, counters);
        this.receiveBurst = settings.receiveBurst();
    }

    /**
     * Opens an interface with the default settings.
     *
     * @see #open(int, String, PcapLiveSettings)
     */
    public static PcapLivePort open(final int index, final String interfaceName)
    {
        return open(index, interfaceName, PcapLiveSettings.DEFAULT);
    }

    /**
     * Opens an interface of the calling thread's network namespace.
     *
     * @param index         the port's number.
     * @param interfaceName e.g. "eth0".
     * @param settings      filter, promiscuity, direction, buffers.
     * @return the port, capturing.
     * @throws PcapPortException naming the interface (and filter) if it does not exist, is down, is not
     *                           Ethernet, may not be captured on (no CAP_NET_RAW), or the filter does not compile.
     */
    public static PcapLivePort open(final int index, final String interfaceName, final PcapLiveSettings settings)
    {
        Libpcap.version();
        final FramePool pool = new FramePool(settings.buffers(), settings.bufferSize(), settings.headroom());
        final PcapHandle handle;
        try
        {
            handle = new PcapHandle.Builder(interfaceName)
                .snaplen(pool.frameCapacity())
                .promiscuousMode(settings.promiscuous()
                    ? PcapNetworkInterface.PromiscuousMode.PROMISCUOUS
                    : PcapNetworkInterface.PromiscuousMode.NONPROMISCUOUS)
                .timeoutMillis(1)
                .bufferSize(settings.kernelBufferBytes())
                .timestampPrecision(PcapHandle.TimestampPrecision.NANO)
                .immediateMode(true)
                .direction(settings.inboundOnly() ? PcapHandle.PcapDirection.IN : PcapHandle.PcapDirection.INOUT)
                .build();
        }
        catch (final PcapNativeException ex)
        {
            pool.close();
            throw activationFailure(interfaceName, ex);
        }
        try
        {
            final int linkType = handle.getDlt().value();
            if (linkType != EthernetFraming.DLT_EN10MB)
            {
                throw new PcapPortException("interface " + interfaceName + " has link type " +
                    PcapFilters.linkTypeName(linkType) + ": the live port needs an Ethernet interface");
            }
            handle.setBlockingMode(PcapHandle.BlockingMode.NONBLOCKING);
            if (!settings.filter().isEmpty())
            {
                PcapFilters.apply(handle, settings.filter(), "interface " + interfaceName);
            }
            return new PcapLivePort(index, interfaceName, handle, settings, pool);
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            handle.close();
            pool.close();
            throw new PcapPortException("interface " + interfaceName + ": cannot make the capture non-blocking: " +
                ex.getMessage(), ex);
        }
        catch (final RuntimeException ex)
        {
            handle.close();
            pool.close();
            throw ex;
        }
    }

    private static PcapPortException activationFailure(final String interfaceName, final PcapNativeException ex)
    {
        final Integer code = ex.getReturnCode();
        final String why = switch (code == null ? 0 : code)
        {
            case PCAP_ERROR_NO_SUCH_DEVICE -> "no such interface in this network namespace";
            case PCAP_ERROR_IFACE_NOT_UP -> "the interface is down (ip link set " + interfaceName + " up)";
            case PCAP_ERROR_PERM_DENIED -> "permission denied: capturing needs CAP_NET_RAW (run as root or " +
                "grant the capability)";
            case PCAP_ERROR_PROMISC_PERM_DENIED -> "permission denied for promiscuous mode: it needs CAP_NET_ADMIN";
            default -> "libpcap cannot open it";
        };
        return new PcapPortException("interface " + interfaceName + ": " + why + " (libpcap: " + ex.getMessage() +
            ")", ex);
    }

    @Override
    public int index()
    {
        return index;
    }

    @Override
    public String name()
    {
        return "pcap:" + interfaceName;
    }

    @Override
    public int receive(final FrameBurst burst, final long nowNs)
    {
        return closed ? 0 : receiver.receive(burst, nowNs, receiveBurst);
    }

    @Override
    public int transmit(final FrameBurst burst, final int[] indices, final int count)
    {
        int sent = 0;
        for (int i = 0; i < count; i++)
        {
            final int frame = indices[i];
            final int length = burst.length(frame);
            if (closed || length > MAX_SEND)
            {
                counters.add(PortCountersDescriptor.TX_ERRORS, 1);
                continue;
            }
            UnsafeApi.copyMemory(null, burst.address(frame), sendBuffer, BYTE_ARRAY_BASE, length);
            try
            {
                handle.sendPacket(sendBuffer, length);
            }
            catch (final PcapNativeException | NotOpenException ex)
            {
                countSendFailure(ex);
                continue;
            }
            counters.add(PortCountersDescriptor.TX_FRAMES, 1);
            counters.add(PortCountersDescriptor.TX_BYTES, length);
            counters.add(PortCountersDescriptor.TX_COPIED, 1);
            sent++;
        }
        return sent;
    }

    private void countSendFailure(final Exception ex)
    {
        failure = String.valueOf(ex.getMessage());
        if (failure.contains("No buffer space") || failure.contains("temporarily unavailable"))
        {
            counters.add(PortCountersDescriptor.TX_RING_FULL, 1);
        }
        else
        {
            counters.add(PortCountersDescriptor.TX_ERRORS, 1);
        }
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
     * @return the last send failure, or libpcap's error that stopped the capture (e.g. the interface went away);
     * "" if none.
     */
    public String failure()
    {
        return receiver.failure().isEmpty() ? failure : receiver.failure();
    }

    /**
     * @return true if the capture stopped on an error: reopen the port to capture again.
     */
    public boolean failed()
    {
        return receiver.ended();
    }

    /**
     * @param burst a burst this port filled.
     * @param frame the index of a frame of it this port received, not yet released.
     * @return when the kernel received the frame, nanoseconds since the epoch.
     */
    public long captureTimestampNs(final FrameBurst burst, final int frame)
    {
        return receiver.timestampNs(burst, frame);
    }

    /**
     * @return the buffers frames are received into.
     */
    public FramePool pool()
    {
        return pool;
    }

    /**
     * Closes the capture and frees the buffers: frames not yet released become invalid.
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
