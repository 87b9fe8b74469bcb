package io.jvs.forwarder.port.xdp;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.Port;
import io.jvs.forwarder.port.PortCounters;
import io.jvs.forwarder.port.PortCountersDescriptor;
import io.jvs.nativebindings.Syscalls;

/**
 * A {@link Port} on one AF_XDP socket, i.e. one (device, queue), over a {@link Umem} it may share with
 * other ports. A frame received here is a UMEM chunk lent to the burst (its handle is the UMEM offset); a
 * port on the same UMEM transmits it without a copy by putting that offset on its TX ring and taking the
 * chunk, which comes back through the completion ring. Frames from other memory are copied into a free chunk.
 * <p>
 * System calls: receive makes none while frames arrive (copy mode never sets the fill ring's wake-up flag;
 * when a driver does, an empty receive pokes it with recvfrom). Transmit and flush each kick the TX ring
 * with sendto when the kernel asks (always, in copy mode); a copy-mode kick sends at most 32 frames, so in copy
 * mode a receive takes at most 32 (the first frames of a burst leave with the first kick, not after the whole burst
 * is processed). EAGAIN from a kick means "kick again later": not an error.
 * Allocates nothing per burst. One thread polls a port and the ports sharing its UMEM.
 */
public final class AfXdpPort implements Port
{
    /** The most TX kicks one flush makes to work off a backlog (32 frames each in copy mode). */
    static final int MAX_FLUSH_KICKS = 8;
    /** The most frames a copy-mode kick sends: TX_BATCH_SIZE in the kernel's __xsk_generic_xmit. */
    static final int COPY_MODE_KICK_FRAMES = 32;

    private final int index;
    private final Syscalls syscalls;
    private final Umem umem;
    private final XdpSocket socket;
    private final boolean stocksFillRing;
    private final int batchSize;
    private final boolean busyPolls;
    private final int chunkMask;
    private final AfXdpCounters counters;
    private final int fd;
    private final XdpRing rx;
    private final XdpRing tx;
    private final XdpRing fill;
    private final XdpRing completion;
    private boolean closed;

    /**
     * @param stocksFillRing whether frames arrive here (an XDP program redirects the queue to this socket): a
     *                       transmit-only port leaves its fill ring empty rather than park chunks there.
     */
    AfXdpPort(final int index, final Syscalls syscalls, final Umem umem, final XdpSocket socket,
        final boolean stocksFillRing, final int batchSize, final boolean busyPolls)
    {
        this(index, syscalls, umem, socket, stocksFillRing, batchSize, busyPolls, true);
    }

    /**
     * @param stockNow whether to stock the fill ring here; false for a port opened by another thread than the one
     *                 that polls its UMEM (a device made again under a running worker): the UMEM's free list is
     *                 that worker's alone, and its first {@link #receive} stocks the ring.
     */
    AfXdpPort(final int index, final Syscalls syscalls, final Umem umem, final XdpSocket socket,
        final boolean stocksFillRing, final int batchSize, final boolean busyPolls, final boolean stockNow)
    {
        this.busyPolls = busyPolls && stocksFillRing;
        this.index = index;
        this.syscalls = syscalls;
        this.umem = umem;
        this.socket = socket;
        this.stocksFillRing = stocksFillRing;
        // In copy mode a receive takes no more than one kick sends: a burst of 64 would be sent by two kicks anyway,
        // and its first 32 frames would wait for the other 32 to be processed before the first kick.
        this.batchSize = socket.zeroCopy() ? batchSize : Math.min(batchSize, COPY_MODE_KICK_FRAMES);
        this.chunkMask = umem.chunkSize() - 1;
        this.fd = socket.fd();
        this.rx = socket.rx();
        this.tx = socket.tx();
        this.fill = socket.fill();
        this.completion = socket.completion();
        this.counters = new AfXdpCounters(syscalls.name());
        counters.attach(fd);
        if (stockNow)
        {
            stockFillRing();
        }
    }

    @Override
    public int index()
    {
        return index;
    }

    @Override
    public String name()
    {
        return "afxdp:" + socket.name();
    }

    /**
     * @return "copy" or "zero-copy", and why when AUTO fell back.
     */
    public String mode()
    {
        return socket.mode();
    }

    @Override
    public int receive(final FrameBurst burst, final long nowNs)
    {
        if (closed)
        {
            return 0;
        }
        stockFillRing();
        final XdpRing rx = this.rx;
        final int wanted = Math.min(batchSize, FrameBurst.MAX_FRAMES - burst.count);
        int count = rx.peek(wanted);
        if (count == 0 && busyPolls)
        {
            // Preferred busy polling: the kernel waits for us to run the queue's NAPI, here, on our core.
            syscalls.kickReceive(fd);
            counters.add(PortCountersDescriptor.WAKEUPS, 1);
            count = rx.peek(wanted);
        }
        if (count == 0)
        {
            if (!busyPolls && stocksFillRing && fill.needsWakeup())
            {
                syscalls.kickReceive(fd);
                counters.add(PortCountersDescriptor.WAKEUPS, 1);
            }
            return 0;
        }
        final int first = rx.consumerIndex();
        final int chunkSize = chunkMask + 1;
        long bytes = 0;
        for (int i = 0; i < count; i++)
        {
            final long offset = rx.address(first + i);
            final int length = rx.length(first + i);
            final int headroom = (int)(offset & chunkMask);
            burst.add(umem.addressOf(offset), length, chunkSize - headroom, headroom, nowNs, offset);
            bytes += length;
        }
        rx.release(count);
        counters.add(PortCountersDescriptor.RX_FRAMES, count);
        counters.add(PortCountersDescriptor.RX_BYTES, bytes);
        return count;
    }

    @Override
    public int transmit(final FrameBurst burst, final int[] indices, final int count)
    {
        if (closed)
        {
            counters.add(PortCountersDescriptor.TX_RING_FULL, count);
            return 0;
        }
        final XdpRing tx = this.tx;
        final Umem umem = this.umem;
        final int room = tx.reserve(count);
        final int first = tx.producerIndex();
        int queued = 0;
        long bytes = 0;
        for (int i = 0; i < count; i++)
        {
            if (queued == room)
            {
                counters.add(PortCountersDescriptor.TX_RING_FULL, count - i);
                break;
            }
            final int frame = indices[i];
            final long address = burst.address(frame);
            final int length = burst.length(frame);
            final long offset;
            if (umem.contains(address) && !burst.taken(frame))
            {
                offset = umem.offsetOfAddress(address);
                burst.taken(frame, true);
            }
            else
            {
                final int chunk = length <= chunkMask + 1 ? umem.allocate() : Umem.NO_CHUNK;
                if (chunk == Umem.NO_CHUNK)
                {
                    counters.add(PortCountersDescriptor.TX_RING_FULL, 1);
                    continue;
                }
                offset = umem.offsetOf(chunk);
                Frames.copy(address, umem.addressOf(offset), length);
                counters.add(PortCountersDescriptor.TX_COPIED, 1);
            }
            tx.putDescriptor(first + queued, offset, length);
            queued++;
            bytes += length;
        }
        if (queued > 0)
        {
            tx.submit(queued);
            counters.add(PortCountersDescriptor.TX_FRAMES, queued);
            counters.add(PortCountersDescriptor.TX_BYTES, bytes);
            kick();
        }
        return queued;
    }

    @Override
    public void release(final FrameBurst burst)
    {
        final Umem umem = this.umem;
        for (int i = 0, count = burst.count; i < count; i++)
        {
            if (!burst.taken(i))
            {
                umem.free(umem.chunkOf(burst.handle(i)));
            }
        }
    }

    @Override
    public void flush()
    {
        if (closed)
        {
            return;
        }
        // A copy-mode kick sends at most COPY_MODE_KICK_FRAMES, so a backlog that one kick per burst leaves behind (a
        // kick refused, frames from other ports) would stay and overflow the ring, dropping frames already received
        // and rewritten: keep kicking while it shrinks, a few kicks at most per flush.
        int backlog = tx.unconsumed();
        for (int kicks = 0; backlog > 0 && kicks < MAX_FLUSH_KICKS; kicks++)
        {
            kick();
            final int left = tx.unconsumed();
            // A kick that sent nothing ends the loop (the kernel is behind; the next flush kicks again): arithmetic,
            // not a branch, because the daemon's warm-up (SimulatedXdpKernel) never sends inside a kick, and a branch
            // it never took would be compiled as a trap that the first live kick to send something would spring.
            kicks += MAX_FLUSH_KICKS & ((backlog - left - 1) >> 31);
            backlog = left;
        }
        reapCompletions();
    }

    /** The TX ring holds descriptors the kernel has not consumed: in copy mode, only a kick makes it send them. */
    @Override
    public boolean transmitPending()
    {
        return !closed && tx.unconsumed() > 0;
    }

    @Override
    public PortCounters counters()
    {
        return counters;
    }

    /** @return the device's MAC address: the source address of frames this port sends. */
    public byte[] mac()
    {
        return socket.mac();
    }

    /** @return the chunks this port receives into and transmits from. */
    public Umem umem()
    {
        return umem;
    }

    /** @return how many binds of this port's socket met EBUSY (a queue not yet released) and were retried. */
    public int bindBusyRetries()
    {
        return socket.busyRetries();
    }

    int socketFd()
    {
        return fd;
    }

    /** @return the socket, for poll(2): it is readable when the RX ring holds frames. */
    public int receiveFd()
    {
        return fd;
    }

    private void kick()
    {
        if (tx.needsWakeup())
        {
            // EAGAIN (more queued than one kick sends), EBUSY or ENOBUFS: the next kick carries on.
            syscalls.kickTransmit(fd);
            counters.add(PortCountersDescriptor.WAKEUPS, 1);
        }
    }

    private void reapCompletions()
    {
        final XdpRing completion = this.completion;
        final int count = completion.peek(completion.size());
        if (count > 0)
        {
            final int first = completion.consumerIndex();
            for (int i = 0; i < count; i++)
            {
                umem.free(umem.chunkOf(completion.address(first + i)));
            }
            completion.release(count);
        }
    }

    private void stockFillRing()
    {
        if (!stocksFillRing)
        {
            return;
        }
        final Umem umem = this.umem;
        final int count = fill.reserve(umem.freeCount());
        if (count > 0)
        {
            final int first = fill.producerIndex();
            for (int i = 0; i < count; i++)
            {
                fill.putAddress(first + i, umem.offsetOf(umem.allocate()));
            }
            fill.submit(count);
        }
    }

    /**
     * Takes back into the UMEM every chunk this port's rings still hold, once its device is gone and the kernel has
     * let go of the socket (xsk_notifier's NETDEV_UNREGISTER unbinds it: xsk_unbind_dev): the fill ring's entries
     * the kernel has not consumed, the TX ring's it has not sent, the completions and the received frames not yet
     * read. Without this they would be lost to the UMEM, which the worker's other ports share, when the socket
     * closes. The kernel publishes the fill ring's consumer index whenever it publishes a received frame (xsk_flush,
     * xsk_generic_rcv), so a chunk past that index was never handed to this process. Chunks the kernel had taken
     * but neither received into nor completed (its pool's free list, xp_free) are not listed anywhere this process
     * can read: they stay lent. Called by the thread that polls the UMEM, after its last {@link #receive} here.
     *
     * @return how many chunks came back.
     */
    public int reclaimChunks()
    {
        if (closed)
        {
            return 0;
        }
        final Umem umem = this.umem;
        int reclaimed = 0;
        reapCompletions();
        final int received = rx.peek(rx.size());
        for (int i = 0, first = rx.consumerIndex(); i < received; i++)
        {
            reclaimed += umem.free(umem.chunkOf(rx.address(first + i))) ? 1 : 0;
        }
        rx.release(received);
        return reclaimed + reclaimUnconsumed(fill) + reclaimUnconsumed(tx);
    }

    /** @return how many chunks of the entries this process produced on {@code ring} and the kernel never took. */
    private int reclaimUnconsumed(final XdpRing ring)
    {
        int reclaimed = 0;
        final int end = ring.producerIndex();
        for (int i = end - ring.unconsumed(); i != end; i++)
        {
            reclaimed += umem.free(umem.chunkOf(ring.address(i))) ? 1 : 0;
        }
        return reclaimed;
    }

    /**
     * Unmaps the rings and closes the socket. The UMEM and the XDP program belong to whoever opened the port
     * ({@link AfXdpForwardingPair}). Safe to call twice.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            counters.detach();
            socket.close();
        }
    }
}
