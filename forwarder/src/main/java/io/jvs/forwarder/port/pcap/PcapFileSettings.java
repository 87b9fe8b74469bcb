package io.jvs.forwarder.port.pcap;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.FramePool;

/**
 * How a {@link PcapFilePort} reads its file.
 *
 * @param filter       a BPF filter expression in tcpdump's language, compiled by libpcap for the file's link
 *                     type; "" for none.
 * @param framing      what happens to a capture whose link layer is not Ethernet.
 * @param buffers      frame buffers in the port's pool: frames held by the pipeline at once.
 * @param bufferSize   bytes per buffer (a multiple of 64); records longer than a buffer less its headroom are
 *                     skipped and counted.
 * @param headroom     bytes free before each frame.
 * @param receiveBurst the most frames one receive appends.
 */
public record PcapFileSettings(String filter, EthernetFraming framing, int buffers, int bufferSize, int headroom,
    int receiveBurst)
{
    /** No filter, Ethernet only, 1024 buffers of 2048 bytes (256 of headroom), bursts of 32. */
    public static final PcapFileSettings DEFAULT = new PcapFileSettings("", EthernetFraming.refuse(), 1024,
        FramePool.DEFAULT_BUFFER_SIZE, FramePool.DEFAULT_HEADROOM, 32);

    public PcapFileSettings
    {
        if (filter == null || framing == null)
        {
            throw new IllegalArgumentException("filter and framing must be given (\"\" for no filter)");
        }
        if (receiveBurst < 1 || receiveBurst > FrameBurst.MAX_FRAMES)
        {
            throw new IllegalArgumentException("receive burst " + receiveBurst + " not in 1.." + FrameBurst.MAX_FRAMES);
        }
    }

    public PcapFileSettings withFilter(final String expression)
    {
        return new PcapFileSettings(expression, framing, buffers, bufferSize, headroom, receiveBurst);
    }

    public PcapFileSettings withFraming(final EthernetFraming ethernetFraming)
    {
        return new PcapFileSettings(filter, ethernetFraming, buffers, bufferSize, headroom, receiveBurst);
    }

    public PcapFileSettings withBuffers(final int count, final int size, final int room)
    {
        return new PcapFileSettings(filter, framing, count, size, room, receiveBurst);
    }

    public PcapFileSettings withReceiveBurst(final int frames)
    {
        return new PcapFileSettings(filter, framing, buffers, bufferSize, headroom, frames);
    }
}
