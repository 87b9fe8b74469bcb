package io.jvs.forwarder.l2;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.Port;

/**
 * The simplest forwarding loop: every frame received on one port leaves by another with its Ethernet
 * addresses rewritten, as a router's last hop would do. It is what the wire benchmark measures (the cost of
 * the ports alone, no pipeline) and what the port tests use to prove a port moves frames intact.
 * <p>
 * One {@link #poll} is one burst: one receive, one transmit, one release, one flush of each port. Frames
 * shorter than an Ethernet header are dropped and counted. Allocates nothing after construction; one
 * thread only.
 */
public final class MacRewriteLoop
{
    private static final int ETHERNET_HEADER = 14;
    private static final int MAC_LENGTH = 6;

    private final Port receivePort;
    private final Port transmitPort;
    private final FrameBurst burst = new FrameBurst();
    private final int[] toSend = new int[FrameBurst.MAX_FRAMES];
    private final int destinationHigh;
    private final int destinationLow;
    private final int sourceHigh;
    private final int sourceLow;
    private long received;
    private long forwarded;
    private long dropped;
    private long runtFrames;

    /**
     * @param receivePort      where frames come from.
     * @param transmitPort     where they go (may be the same port).
     * @param destinationMac   6 bytes written as each frame's destination.
     * @param sourceMac        6 bytes written as each frame's source.
     */
    public MacRewriteLoop(final Port receivePort, final Port transmitPort, final byte[] destinationMac,
        final byte[] sourceMac)
    {
        if (destinationMac.length != MAC_LENGTH || sourceMac.length != MAC_LENGTH)
        {
            throw new IllegalArgumentException("a MAC address has 6 bytes");
        }
        this.receivePort = receivePort;
        this.transmitPort = transmitPort;
        // A frame's 12 address bytes are written as two 4-byte and two 2-byte big-endian stores.
        this.destinationHigh = (int)be32(destinationMac, 0);
        this.destinationLow = be16(destinationMac, 4);
        this.sourceHigh = (int)be32(sourceMac, 0);
        this.sourceLow = be16(sourceMac, 4);
    }

    /**
     * Forwards one burst.
     *
     * @param nowNs the receive time given to the frames.
     * @return frames received in this burst (0: the caller may idle).
     */
    public int poll(final long nowNs)
    {
        final FrameBurst burst = this.burst;
        burst.clear();
        final int count = receivePort.receive(burst, nowNs);
        int sendCount = 0;
        for (int i = 0; i < count; i++)
        {
            if (burst.length(i) < ETHERNET_HEADER)
            {
                runtFrames++;
                continue;
            }
            final long address = burst.address(i);
            Frames.putI32(address, destinationHigh);
            Frames.putU16(address + 4, destinationLow);
            Frames.putI32(address + 6, sourceHigh);
            Frames.putU16(address + 10, sourceLow);
            toSend[sendCount++] = i;
        }
        final int sent = sendCount == 0 ? 0 : transmitPort.transmit(burst, toSend, sendCount);
        receivePort.release(burst);
        transmitPort.flush();
        if (transmitPort != receivePort)
        {
            receivePort.flush();
        }
        received += count;
        forwarded += sent;
        dropped += count - sent;
        return count;
    }

    /** @return frames received. */
    public long received()
    {
        return received;
    }

    /** @return frames queued for transmission on the other port. */
    public long forwarded()
    {
        return forwarded;
    }

    /** @return frames received and not forwarded: runts and transmit-ring-full drops. */
    public long dropped()
    {
        return dropped;
    }

    /** @return frames shorter than an Ethernet header. */
    public long runtFrames()
    {
        return runtFrames;
    }

    private static long be32(final byte[] bytes, final int offset)
    {
        return ((bytes[offset] & 0xFFL) << 24) | ((bytes[offset + 1] & 0xFFL) << 16) |
            ((bytes[offset + 2] & 0xFFL) << 8) | (bytes[offset + 3] & 0xFFL);
    }

    private static int be16(final byte[] bytes, final int offset)
    {
        return ((bytes[offset] & 0xFF) << 8) | (bytes[offset + 1] & 0xFF);
    }
}
