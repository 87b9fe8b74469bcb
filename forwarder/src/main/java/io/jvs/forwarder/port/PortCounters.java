package io.jvs.forwarder.port;

/**
 * What a port counts: its own traffic (plain fields, written by the polling thread only) and the
 * kernel's drop statistics for it, read on demand (a control-path system call, not per burst).
 */
public class PortCounters
{
    public long rxFrames;
    public long rxBytes;
    public long txFrames;
    public long txBytes;
    /** Frames that could not be queued for transmission: the TX ring was full. */
    public long txRingFull;
    /** Frames copied between memories on transmit (zero when every transmit is zero-copy). */
    public long txCopied;
    /** Wake-up system calls made (TX kicks, fill-ring wake-ups, polls). */
    public long wakeups;
    /** Kernel: frames dropped before this port saw them (XDP rx_dropped + rx_ring_full, PACKET drops). */
    public long kernelRxDropped;
    /** Kernel: receive attempts that found no free buffer (XDP fill ring empty). */
    public long kernelFillEmpty;
    /** Kernel: descriptors it rejected as invalid (XDP rx/tx_invalid_descs). */
    public long kernelInvalid;

    /**
     * Reads the kernel's statistics into the kernel fields. Ports without kernel statistics do nothing.
     */
    public void refresh()
    {
    }

    @Override
    public String toString()
    {
        return "rx=" + rxFrames + " tx=" + txFrames + " tx-ring-full=" + txRingFull + " tx-copied=" + txCopied +
            " wakeups=" + wakeups + " kernel-rx-dropped=" + kernelRxDropped + " kernel-fill-empty=" + kernelFillEmpty +
            " kernel-invalid=" + kernelInvalid;
    }
}
