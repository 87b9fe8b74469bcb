package io.jvs.tools.bench;

import io.jvs.forwarder.port.packet.AfPacketPort;
import org.agrona.concurrent.IdleStrategy;

/**
 * After a poll that found nothing, sleeps in poll(2) on the AF_PACKET receive socket until the kernel hands over
 * a block (full, or at the ring's retire timeout), instead of spinning or yielding. On a core shared with the
 * kernel's receive work (veth's or a NIC's NAPI thread) the thread then gives that work the whole core while no
 * block is ready, and wakes once per block (hundreds of frames) rather than once per scheduler slice. The price
 * is latency: up to one retire timeout per frame at low rates.
 */
final class AwaitFramesIdleStrategy implements IdleStrategy
{
    /** Bounds a sleep so the caller's once-a-second reporting and stop checks keep their pace. */
    private static final int MAX_SLEEP_MS = 10;

    private final AfPacketPort port;

    AwaitFramesIdleStrategy(final AfPacketPort port)
    {
        this.port = port;
    }

    @Override
    public void idle(final int workCount)
    {
        if (workCount <= 0)
        {
            idle();
        }
    }

    @Override
    public void idle()
    {
        port.awaitFrames(MAX_SLEEP_MS);
    }

    @Override
    public void reset()
    {
    }

    @Override
    public String alias()
    {
        return "await-frames";
    }
}
