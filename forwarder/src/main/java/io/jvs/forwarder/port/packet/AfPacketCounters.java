package io.jvs.forwarder.port.packet;

import io.jvs.forwarder.port.PortCounters;
import io.jvs.forwarder.port.PortCountersDescriptor;

/**
 * An AF_PACKET port's counters: the common ones, plus what is particular to its rings. Every transmitted frame
 * is copied into the TX ring, so {@link #txCopied()} equals {@link #txFrames()}. {@link #refresh} reads
 * PACKET_STATISTICS of the receive socket (one system call; the kernel resets its counters on each read, so
 * they are added up here): call it from the polling thread or while the port is idle, as the port's
 * {@link io.jvs.nativebindings.Syscalls} is not thread-safe.
 */
public final class AfPacketCounters extends PortCounters
{
    /** @return CSUMNOTREADY frames whose TCP or UDP checksum was completed in software. */
    public long checksumsCompleted()
    {
        return get(PortCountersDescriptor.CHECKSUMS_COMPLETED);
    }

    /** @return CSUMNOTREADY frames that were not TCP or UDP over IPv4/IPv6 and were passed on unchanged. */
    public long checksumsNotCompleted()
    {
        return get(PortCountersDescriptor.CHECKSUMS_NOT_COMPLETED);
    }

    /** @return frames whose VLAN tag the device had stripped (TP_STATUS_VLAN_VALID) and the port put back. */
    public long vlanTagsRestored()
    {
        return get(PortCountersDescriptor.VLAN_TAGS_RESTORED);
    }

    /** @return frames the ring held only in part (snaplen below the frame's length): dropped. */
    public long truncatedFrames()
    {
        return get(PortCountersDescriptor.TRUNCATED);
    }

    /** @return frames longer than a transmit slot holds: dropped. */
    public long txTooLong()
    {
        return get(PortCountersDescriptor.TX_TOO_LONG);
    }

    /** @return transmit kicks the kernel refused with something other than "try again". */
    public long txKickErrors()
    {
        return get(PortCountersDescriptor.TX_KICK_ERRORS);
    }

    /** @return receive blocks handed over by the retire timeout before they were full (low rates). */
    public long blocksRetiredByTimeout()
    {
        return get(PortCountersDescriptor.BLOCKS_RETIRED_BY_TIMEOUT);
    }

    /** @return receive blocks handed back to the kernel. */
    public long blocksReturned()
    {
        return get(PortCountersDescriptor.BLOCKS_RETURNED);
    }

    /**
     * @return kernel: times the receive ring was full and the queue froze until a block came back (tp_freeze_q_cnt).
     */
    public long kernelRxFreezes()
    {
        return get(PortCountersDescriptor.KERNEL_RX_FREEZES);
    }

    /** @return kernel: frames offered to the receive ring, those it dropped included (tp_packets). */
    public long kernelRxPackets()
    {
        return get(PortCountersDescriptor.KERNEL_RX_PACKETS);
    }


    private final AfPacketPort port;

    AfPacketCounters(final AfPacketPort port)
    {
        this.port = port;
    }

    @Override
    public void refresh()
    {
        port.readKernelStatistics(this);
    }

    @Override
    protected int[] shownIds()
    {
        return SHOWN;
    }

    private static final int[] SHOWN = shownWith(PortCountersDescriptor.CHECKSUMS_COMPLETED,
        PortCountersDescriptor.CHECKSUMS_NOT_COMPLETED, PortCountersDescriptor.VLAN_TAGS_RESTORED,
        PortCountersDescriptor.TRUNCATED, PortCountersDescriptor.TX_TOO_LONG, PortCountersDescriptor.TX_KICK_ERRORS,
        PortCountersDescriptor.BLOCKS_RETURNED, PortCountersDescriptor.BLOCKS_RETIRED_BY_TIMEOUT,
        PortCountersDescriptor.KERNEL_RX_PACKETS, PortCountersDescriptor.KERNEL_RX_FREEZES);
}
