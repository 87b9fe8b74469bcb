package io.jvs.forwarder.port.pcap;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.FramePool;

/**
 * How a {@link PcapLivePort} captures.
 *
 * @param filter            a BPF filter expression in tcpdump's language; "" for none.
 * @param promiscuous       receive frames for every MAC address, not only the interface's own.
 * @param inboundOnly       capture only frames arriving on the interface, not those it sends (this port's
 *                          own transmissions included, which a forwarding loop must not see again).
 * @param kernelBufferBytes the kernel's capture buffer (libpcap's ring): frames wait there between polls.
 * @param buffers           frame buffers in the port's pool.
 * @param bufferSize        bytes per buffer (a multiple of 64): the snapshot length is the buffer less its
 *                          headroom, and longer frames are skipped and counted.
 * @param headroom          bytes free before each frame.
 * @param receiveBurst      the most frames one receive appends.
 */
public record PcapLiveSettings(String filter, boolean promiscuous, boolean inboundOnly, int kernelBufferBytes,
    int buffers, int bufferSize, int headroom, int receiveBurst)
{
    /** No filter, promiscuous, inbound only, a 4 MiB kernel buffer, 1024 buffers of 2048 bytes, bursts of 32. */
    public static final PcapLiveSettings DEFAULT = new PcapLiveSettings("", true, true, 4 << 20, 1024,
        FramePool.DEFAULT_BUFFER_SIZE, FramePool.DEFAULT_HEADROOM, 32);

    public PcapLiveSettings
    {
        if (filter == null)
        {
            throw new IllegalArgumentException("filter must be given (\"\" for none)");
        }
        if (receiveBurst < 1 || receiveBurst > FrameBurst.MAX_FRAMES)
        {
            throw new IllegalArgumentException("receive burst " + receiveBurst + " not in 1.." + FrameBurst.MAX_FRAMES);
        }
        if (kernelBufferBytes < 1)
        {
            throw new IllegalArgumentException("kernel buffer of " + kernelBufferBytes + " bytes");
        }
    }

    public PcapLiveSettings withFilter(final String expression)
    {
        return new PcapLiveSettings(expression, promiscuous, inboundOnly, kernelBufferBytes, buffers, bufferSize,
            headroom, receiveBurst);
    }

    public PcapLiveSettings withInboundOnly(final boolean inbound)
    {
        return new PcapLiveSettings(filter, promiscuous, inbound, kernelBufferBytes, buffers, bufferSize, headroom,
            receiveBurst);
    }

    public PcapLiveSettings withBuffers(final int count, final int size, final int room)
    {
        return new PcapLiveSettings(filter, promiscuous, inboundOnly, kernelBufferBytes, count, size, room,
            receiveBurst);
    }

    public PcapLiveSettings withReceiveBurst(final int frames)
    {
        return new PcapLiveSettings(filter, promiscuous, inboundOnly, kernelBufferBytes, buffers, bufferSize,
            headroom, frames);
    }
}
