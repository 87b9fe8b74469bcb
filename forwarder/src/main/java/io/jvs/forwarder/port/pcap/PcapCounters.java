package io.jvs.forwarder.port.pcap;

import io.jvs.forwarder.port.PortCounters;
import io.jvs.forwarder.port.PortCountersDescriptor;

import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.PcapStat;

/**
 * A pcap port's counters: those of every port, plus what only pcap ports skip. For a live port,
 * {@link #refresh()} reads libpcap's statistics (pcap_stats: on Linux, the packet socket's drop count).
 */
public final class PcapCounters extends PortCounters
{

    private final PcapHandle statistics;

    /**
     * @param statistics the live handle whose statistics {@link #refresh()} reads, or null.
     */
    PcapCounters(final PcapHandle statistics)
    {
        this.statistics = statistics;
    }

    /** @return frames skipped on receive: longer than a buffer, or cut short by the snapshot length (live). */
    public long rxTooLong()
    {
        return get(PortCountersDescriptor.RX_TOO_LONG);
    }

    /** @return frames skipped on receive: a link layer other than Ethernet with no Ethernet form. */
    public long rxNotEthernet()
    {
        return get(PortCountersDescriptor.RX_NOT_ETHERNET);
    }

    /** @return frames skipped on receive: a cooked capture says the capturing host sent them, as replay skips them. */
    public long rxOutgoing()
    {
        return get(PortCountersDescriptor.RX_OUTGOING);
    }

    /** @return frames not sent or written: a send or write failed (the port keeps the last error). */
    public long txErrors()
    {
        return get(PortCountersDescriptor.TX_ERRORS);
    }

    /**
     * Reads libpcap's statistics of a live port into {@link #kernelRxDropped}: frames the kernel dropped because
     * the capture buffer was full. Control path: this allocates and makes a system call.
     */
    @Override
    public void refresh()
    {
        if (statistics == null || !statistics.isOpen())
        {
            return;
        }
        try
        {
            final PcapStat stat = statistics.getStats();
            setKernel(PortCountersDescriptor.KERNEL_RX_DROPPED, stat.getNumPacketsDropped());
        }
        catch (final PcapNativeException | NotOpenException ex)
        {
            throw new PcapPortException("pcap_stats failed: " + ex.getMessage(), ex);
        }
    }

    @Override
    protected int[] shownIds()
    {
        return SHOWN;
    }

    private static final int[] SHOWN = shownWith(PortCountersDescriptor.RX_TOO_LONG,
        PortCountersDescriptor.RX_NOT_ETHERNET, PortCountersDescriptor.RX_OUTGOING, PortCountersDescriptor.TX_ERRORS);
}
