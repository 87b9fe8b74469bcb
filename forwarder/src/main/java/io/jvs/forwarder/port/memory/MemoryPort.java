package io.jvs.forwarder.port.memory;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.FramePool;
import io.jvs.forwarder.port.Port;
import io.jvs.forwarder.port.PortCounters;
import io.jvs.forwarder.port.PortCountersDescriptor;

/**
 * A port in memory, for benchmarks and tests: no system calls. Received frames are written by a
 * {@link FrameSource} into buffers of a {@link FramePool}; transmitted frames are counted, shown to a
 * {@link TransmitObserver}, and dropped at {@link #flush()}.
 * <p>
 * Buffers: a frame received here lives in a pool buffer until {@link #release} gives it back. A frame to
 * transmit that lives in this port's pool (its own, or one shared with the receiving port, as a shared UMEM
 * is) is kept without a copy: transmit sets {@link FrameBurst#taken} and the buffer returns to the pool at
 * {@link #flush()}. A frame from other memory is copied into a buffer of this pool, as a real port copies it
 * into its ring, and counted in {@link PortCounters#txCopied}. Frames queued and not yet flushed are limited
 * to the transmit queue's size; beyond it, or with no free buffer to copy into, frames are dropped and
 * counted in {@link PortCounters#txRingFull}.
 */
public final class MemoryPort implements Port
{
    /** Buffers in a pool the port makes itself. */
    public static final int DEFAULT_BUFFERS = 4096;
    /** Frames transmitted and held until {@link #flush()}. */
    public static final int DEFAULT_TRANSMIT_QUEUE = 1024;

    private final int index;
    private final FrameSource source;
    private final FramePool pool;
    private final boolean ownsPool;
    private final int receiveBurst;
    private final TransmitObserver observer;
    private final int[] transmitQueue;
    private final PortCounters counters = new PortCounters();
    private int queued;
    private boolean closed;

    /**
     * A port with a pool of its own ({@link #DEFAULT_BUFFERS} buffers of 2048 bytes, 256 of headroom),
     * receiving up to a full burst per call.
     *
     * @param index  the port's number.
     * @param source where received frames come from; null for a port that only transmits.
     */
    public MemoryPort(final int index, final FrameSource source)
    {
        this(index, source, new FramePool(DEFAULT_BUFFERS, FramePool.DEFAULT_BUFFER_SIZE, FramePool.DEFAULT_HEADROOM),
            true, FrameBurst.MAX_FRAMES, DEFAULT_TRANSMIT_QUEUE, TransmitObserver.NONE);
    }

    /**
     * A port on a pool the caller owns (and closes after the port), perhaps shared with other ports.
     *
     * @param index         the port's number.
     * @param source        where received frames come from; null for a port that only transmits.
     * @param pool          the buffers.
     * @param receiveBurst  the most frames one {@link #receive} call appends, 1..{@link FrameBurst#MAX_FRAMES}.
     * @param transmitQueue the most frames held between flushes.
     * @param observer      sees each frame transmitted.
     */
    public MemoryPort(final int index, final FrameSource source, final FramePool pool, final int receiveBurst,
        final int transmitQueue, final TransmitObserver observer)
    {
        this(index, source, pool, false, receiveBurst, transmitQueue, observer);
    }

    private MemoryPort(final int index, final FrameSource source, final FramePool pool, final boolean ownsPool,
        final int receiveBurst, final int transmitQueue, final TransmitObserver observer)
    {
        if (receiveBurst < 1 || receiveBurst > FrameBurst.MAX_FRAMES)
        {
            throw new IllegalArgumentException("receive burst " + receiveBurst + " not in 1.." + FrameBurst.MAX_FRAMES);
        }
        if (transmitQueue < 1)
        {
            throw new IllegalArgumentException("transmit queue " + transmitQueue + " not positive");
        }
        if (source instanceof FrameTemplates templates && templates.maxLength() > pool.frameCapacity())
        {
            throw new IllegalArgumentException("a template frame of " + templates.maxLength() +
                " bytes does not fit a buffer's " + pool.frameCapacity());
        }
        this.index = index;
        this.source = source;
        this.pool = pool;
        this.ownsPool = ownsPool;
        this.receiveBurst = receiveBurst;
        this.transmitQueue = new int[transmitQueue];
        this.observer = observer;
    }

    @Override
    public int index()
    {
        return index;
    }

    @Override
    public String name()
    {
        return "memory:" + index;
    }

    @Override
    public int receive(final FrameBurst burst, final long nowNs)
    {
        if (source == null || closed)
        {
            return 0;
        }
        final int wanted = Math.min(receiveBurst, FrameBurst.MAX_FRAMES - burst.count);
        final int capacity = pool.frameCapacity();
        int received = 0;
        while (received < wanted)
        {
            final int buffer = pool.allocate();
            if (buffer == FramePool.NO_BUFFER)
            {
                break;
            }
            final long address = pool.frameAddress(buffer);
            final int length = source.next(address, capacity);
            if (length <= 0 || length > capacity)
            {
                pool.free(buffer);
                break;
            }
            burst.add(address, length, capacity, pool.headroom(), nowNs, buffer);
            counters.add(PortCountersDescriptor.RX_BYTES, length);
            received++;
        }
        counters.add(PortCountersDescriptor.RX_FRAMES, received);
        return received;
    }

    @Override
    public int transmit(final FrameBurst burst, final int[] indices, final int count)
    {
        int sent = 0;
        for (int i = 0; i < count; i++)
        {
            final int frame = indices[i];
            if (closed || queued == transmitQueue.length)
            {
                counters.add(PortCountersDescriptor.TX_RING_FULL, 1);
                continue;
            }
            final long address = burst.address(frame);
            final int length = burst.length(frame);
            final int buffer;
            if (pool.contains(address) && !burst.taken(frame))
            {
                buffer = pool.bufferOf(address);
                burst.taken(frame, true);
            }
            else
            {
                buffer = length <= pool.frameCapacity() ? pool.allocate() : FramePool.NO_BUFFER;
                if (buffer == FramePool.NO_BUFFER)
                {
                    counters.add(PortCountersDescriptor.TX_RING_FULL, 1);
                    continue;
                }
                Frames.copy(address, pool.frameAddress(buffer), length);
                counters.add(PortCountersDescriptor.TX_COPIED, 1);
            }
            observer.transmitted(address, length);
            transmitQueue[queued++] = buffer;
            counters.add(PortCountersDescriptor.TX_FRAMES, 1);
            counters.add(PortCountersDescriptor.TX_BYTES, length);
            sent++;
        }
        return sent;
    }

    @Override
    public void release(final FrameBurst burst)
    {
        for (int i = 0; i < burst.count; i++)
        {
            if (!burst.taken(i) && pool.contains(burst.address(i)))
            {
                pool.free((int)burst.handle(i));
            }
        }
    }

    @Override
    public void flush()
    {
        for (int i = 0; i < queued; i++)
        {
            pool.free(transmitQueue[i]);
        }
        queued = 0;
    }

    @Override
    public PortCounters counters()
    {
        return counters;
    }

    /**
     * @return the buffers this port receives into and transmits from.
     */
    public FramePool pool()
    {
        return pool;
    }

    /**
     * @return frames transmitted and not yet flushed.
     */
    public int queued()
    {
        return queued;
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        flush();
        closed = true;
        if (ownsPool)
        {
            pool.close();
        }
    }
}
