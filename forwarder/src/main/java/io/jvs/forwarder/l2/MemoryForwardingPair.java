package io.jvs.forwarder.l2;

import io.jvs.forwarder.port.FramePool;
import io.jvs.forwarder.port.Port;
import io.jvs.forwarder.port.memory.FrameTemplates;
import io.jvs.forwarder.port.memory.MemoryPort;
import io.jvs.forwarder.port.memory.TransmitObserver;

/**
 * Two memory ports on one pool: a receive port that makes 60-byte UDP frames (the classic "64-byte" packet
 * without its FCS) and a transmit port that takes the buffers back. No system call: what the forwarding loop
 * costs by itself.
 */
public final class MemoryForwardingPair implements ForwardingPair
{
    private static final int BUFFERS = 4096;
    private static final int BURST = 64;

    private final FramePool pool = new FramePool(BUFFERS, FramePool.DEFAULT_BUFFER_SIZE, FramePool.DEFAULT_HEADROOM);
    private final MemoryPort receive = new MemoryPort(0, FrameTemplates.repeating(udpFrame()), pool, BURST, BURST,
        TransmitObserver.NONE);
    private final MemoryPort transmit = new MemoryPort(1, null, pool, BURST, BURST, TransmitObserver.NONE);

    @Override
    public Port receivePort()
    {
        return receive;
    }

    @Override
    public Port transmitPort()
    {
        return transmit;
    }

    @Override
    public String describe()
    {
        return "memory ports, one pool of " + BUFFERS + " buffers, bursts of " + BURST + " 60-byte UDP frames";
    }

    @Override
    public void close()
    {
        receive.close();
        transmit.close();
        pool.close();
    }

    private static byte[] udpFrame()
    {
        final byte[] frame = new byte[60];
        final int[] header = {
            0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
            0x45, 0, 0, 46, 0, 0, 0x40, 0, 64, 17, 0, 0, 172, 16, 0, 1, 10, 0, 0, 100,
            0x40, 0x00, 0, 80, 0, 26, 0, 0};
        for (int i = 0; i < header.length; i++)
        {
            frame[i] = (byte)header[i];
        }
        return frame;
    }
}
