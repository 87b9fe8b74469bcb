package io.jvs.forwarder.port.xdp;

import io.jvs.nativebindings.bpf.XdpMode;

/**
 * How to open AF_XDP ports. Ring sizes are powers of two (the kernel refuses others with EINVAL; this record
 * refuses them first, naming the ring). Copy mode on veth moves 32 frames per TX kick, so rings of
 * thousands absorb scheduling gaps: at 0.5 Mpps a 2048-entry RX ring fills in about 4 ms.
 *
 * @param chunkCount     UMEM chunks shared by the ports of a pair: enough for the fill, RX and TX rings.
 * @param chunkSize      bytes per chunk: 2048 or 4096.
 * @param rxRingSize     RX descriptors per socket.
 * @param txRingSize     TX descriptors per socket.
 * @param fillRingSize   fill ring entries per socket (kept stocked from the UMEM).
 * @param completionRingSize completion ring entries per socket.
 * @param batchSize      frames one receive takes at most (1..256).
 * @param bindMode       copy, zero-copy or automatic.
 * @param xdpMode        where the program runs: SKB (generic) or DRV (native).
 * @param steering       which frames the program redirects.
 * @param queue          the first receive queue to bind (a veth made without numrxqueues has only queue 0).
 * @param queues         how many queues from {@code queue} on: one socket and one UMEM each, for one
 *                       worker thread each.
 * @param busyPollBudget 0, or preferred busy polling with this NAPI budget: the kernel then leaves the
 *                       receive queue's NAPI to the worker, which drives it from its own core with a
 *                       non-blocking recvfrom whenever the RX ring is empty (SO_PREFER_BUSY_POLL; pair it
 *                       with the device's napi_defer_hard_irqs and gro_flush_timeout, as DPDK's af_xdp
 *                       driver is used).
 */
public record AfXdpSettings(
    int chunkCount,
    int chunkSize,
    int rxRingSize,
    int txRingSize,
    int fillRingSize,
    int completionRingSize,
    int batchSize,
    XdpBindMode bindMode,
    XdpMode xdpMode,
    XdpSteering steering,
    int queue,
    int queues,
    int busyPollBudget)
{
    public static final int DEFAULT_RING_SIZE = 4096;
    public static final int DEFAULT_CHUNKS = 16384;
    public static final int DEFAULT_CHUNK_SIZE = 2048;
    public static final int DEFAULT_BATCH = 64;
    /** How long a bind retries EBUSY: the kernel frees a queue asynchronously, 15-40 ms after a close. */
    public static final long BIND_RETRY_NS = 1_000_000_000L;

    public AfXdpSettings
    {
        powerOfTwo("RX ring", rxRingSize);
        powerOfTwo("TX ring", txRingSize);
        powerOfTwo("fill ring", fillRingSize);
        powerOfTwo("completion ring", completionRingSize);
        if (chunkSize != 2048 && chunkSize != 4096)
        {
            throw new IllegalArgumentException("chunk size " + chunkSize + " must be 2048 or 4096");
        }
        if (chunkCount < 1)
        {
            throw new IllegalArgumentException("chunk count " + chunkCount + " must be positive");
        }
        if (batchSize < 1 || batchSize > 256)
        {
            throw new IllegalArgumentException("batch size " + batchSize + " must be 1..256");
        }
        if (queue < 0 || queues < 1)
        {
            throw new IllegalArgumentException("queues " + queue + ".." + (queue + queues - 1) + " are not valid");
        }
        if (busyPollBudget < 0 || busyPollBudget > 65535)
        {
            throw new IllegalArgumentException("busy poll budget " + busyPollBudget + " must be 0..65535");
        }
        if (bindMode == null || xdpMode == null || steering == null)
        {
            throw new IllegalArgumentException("bind mode, XDP mode and steering are required");
        }
    }

    /**
     * @return large rings, 16384 chunks, batch 64, automatic bind mode, every frame of queue 0 redirected.
     */
    public static AfXdpSettings defaults(final XdpMode xdpMode)
    {
        return new AfXdpSettings(DEFAULT_CHUNKS, DEFAULT_CHUNK_SIZE, DEFAULT_RING_SIZE, DEFAULT_RING_SIZE,
            DEFAULT_RING_SIZE, DEFAULT_RING_SIZE, DEFAULT_BATCH, XdpBindMode.AUTO, xdpMode, XdpSteering.ALL, 0, 1, 0);
    }

    public AfXdpSettings withRings(final int rx, final int tx, final int fill, final int completion)
    {
        return new AfXdpSettings(chunkCount, chunkSize, rx, tx, fill, completion, batchSize, bindMode, xdpMode,
            steering, queue, queues, busyPollBudget);
    }

    public AfXdpSettings withChunks(final int count)
    {
        return new AfXdpSettings(count, chunkSize, rxRingSize, txRingSize, fillRingSize, completionRingSize,
            batchSize, bindMode, xdpMode, steering, queue, queues, busyPollBudget);
    }

    public AfXdpSettings withBindMode(final XdpBindMode mode)
    {
        return new AfXdpSettings(chunkCount, chunkSize, rxRingSize, txRingSize, fillRingSize, completionRingSize,
            batchSize, mode, xdpMode, steering, queue, queues, busyPollBudget);
    }

    public AfXdpSettings withSteering(final XdpSteering how)
    {
        return new AfXdpSettings(chunkCount, chunkSize, rxRingSize, txRingSize, fillRingSize, completionRingSize,
            batchSize, bindMode, xdpMode, how, queue, queues, busyPollBudget);
    }

    /**
     * @param first the first queue.
     * @param count how many queues from it.
     */
    public AfXdpSettings withQueues(final int first, final int count)
    {
        return new AfXdpSettings(chunkCount, chunkSize, rxRingSize, txRingSize, fillRingSize, completionRingSize,
            batchSize, bindMode, xdpMode, steering, first, count, busyPollBudget);
    }

    /**
     * @param budget frames per busy poll (the batch size is a good choice), or 0 to leave NAPI to the kernel.
     */
    public AfXdpSettings withBusyPoll(final int budget)
    {
        return new AfXdpSettings(chunkCount, chunkSize, rxRingSize, txRingSize, fillRingSize, completionRingSize,
            batchSize, bindMode, xdpMode, steering, queue, queues, budget);
    }

    private static void powerOfTwo(final String ring, final int size)
    {
        if (size < 1 || Integer.bitCount(size) != 1)
        {
            throw new IllegalArgumentException(ring + " size " + size + " is not a power of two");
        }
    }
}
