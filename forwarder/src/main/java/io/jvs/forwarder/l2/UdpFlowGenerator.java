package io.jvs.forwarder.l2;

import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.Port;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A traffic generator for the wire benchmark, faster than trafgen on one core: bursts of 60-byte UDP/IPv4 frames
 * (64 on the wire) sent through a port, over the same 16064 flows as {@code ../shared/bench/mkpkt.sh}: source
 * 172.16.[0-63].[1-251], source port 0x4000-0x400f, each counter stepping every frame. The IPv4 checksum is
 * right (a router would drop the frame otherwise); the UDP checksum is 0, "none", as IPv4 allows.
 */
public final class UdpFlowGenerator implements AutoCloseable
{
    public static final int FRAME_LENGTH = 60;
    private static final int IP = 14;
    private static final int UDP = IP + 20;

    private final Port port;
    private final Arena arena = Arena.ofConfined();
    private final FrameBurst burst = new FrameBurst();
    private final int[] indices;
    private final int burstSize;
    private long sequence;

    /**
     * @param destinationIp  IPv4 destination, 4 bytes.
     * @param destinationPort UDP destination port.
     */
    public UdpFlowGenerator(final Port port, final int burstSize, final byte[] destinationMac, final byte[] sourceMac,
        final byte[] destinationIp, final int destinationPort)
    {
        if (burstSize < 1 || burstSize > FrameBurst.MAX_FRAMES)
        {
            throw new IllegalArgumentException("burst " + burstSize + " not in 1.." + FrameBurst.MAX_FRAMES);
        }
        this.port = port;
        this.burstSize = burstSize;
        this.indices = new int[burstSize];
        for (int i = 0; i < burstSize; i++)
        {
            final MemorySegment frame = arena.allocate(FRAME_LENGTH, 64);
            final long address = frame.address();
            Frames.write(destinationMac, address);
            Frames.write(sourceMac, address + 6);
            Frames.putU16(address + 12, 0x0800);
            Frames.putU16(address + IP, 0x4500);
            Frames.putU16(address + IP + 2, FRAME_LENGTH - IP);
            Frames.putU16(address + IP + 8, 64 << 8 | 17);
            Frames.putU8(address + IP + 12, 172);
            Frames.putU8(address + IP + 13, 16);
            Frames.write(destinationIp, address + IP + 16);
            Frames.putU8(address + UDP, 0x40);
            Frames.putU16(address + UDP + 2, destinationPort);
            Frames.putU16(address + UDP + 4, FRAME_LENGTH - UDP);
            indices[i] = burst.add(address, FRAME_LENGTH, FRAME_LENGTH, 0, 0);
        }
    }

    /**
     * Writes the next burst's flows into the frames and hands them to the port.
     *
     * @return frames the port queued.
     */
    public int sendBurst()
    {
        for (int i = 0; i < burstSize; i++)
        {
            final long address = burst.address(i);
            final long n = sequence++;
            Frames.putU8(address + IP + 14, (int)(n % 64));
            Frames.putU8(address + IP + 15, 1 + (int)(n % 251));
            Frames.putU8(address + UDP + 1, (int)(n % 16));
            Frames.putU16(address + IP + 10, Checksums.ipv4HeaderChecksum(address + IP));
        }
        final int queued = port.transmit(burst, indices, burstSize);
        port.flush();
        return queued;
    }

    @Override
    public void close()
    {
        arena.close();
    }
}
