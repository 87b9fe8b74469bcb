package io.jvs.core.pipeline;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which snapshot each worker is using, so the conductor knows when no worker can still act on an old
 * one: a removed server's slot (and a removed service's) is given to a new one only after every worker
 * has moved past the last snapshot that named the old one (epoch-based reclamation).
 * <p>
 * Each worker has a slot of its own, on a cache line of its own so that workers recording do not slow
 * each other down, holding the {@link DataPlane#generation()} it last took from the publisher. Only that
 * worker writes it, with a release store, before it reads the snapshot; the conductor reads it with an
 * acquire load. A worker records the generation after loading the snapshot, so what it records never
 * exceeds what it uses: when every recorded generation is later than {@code g}, no worker is on {@code g}
 * or earlier. A worker that stops must {@link #leave} or it holds every slot it might still name.
 */
public final class WorkerEpochs
{
    /** What a worker that holds no snapshot records. */
    public static final long NONE = Long.MAX_VALUE;

    /** Longs between two workers' slots: 128 bytes, two cache lines, as adjacent-line prefetch pairs them. */
    private static final int STRIDE = 16;

    private final int workers;
    private final AtomicLongArray slots;

    /**
     * @param workers how many workers; each starts at generation 0 (before any snapshot), which holds
     *                every slot until it records one.
     */
    public WorkerEpochs(final int workers)
    {
        if (workers < 1)
        {
            throw new IllegalArgumentException("need at least one worker, not " + workers);
        }
        this.workers = workers;
        this.slots = new AtomicLongArray((workers + 1) * STRIDE);
    }

    public int workers()
    {
        return workers;
    }

    /**
     * Records the generation a worker is about to use (the worker's own thread only).
     *
     * @param worker     the worker's index.
     * @param generation the snapshot's {@link DataPlane#generation()}.
     */
    public void enter(final int worker, final long generation)
    {
        slots.setRelease(index(worker), generation);
    }

    /**
     * Records that a worker uses no snapshot any more (it has stopped), so it holds nothing back.
     *
     * @param worker the worker's index.
     */
    public void leave(final int worker)
    {
        slots.setRelease(index(worker), NONE);
    }

    /**
     * @param worker the worker's index.
     * @return the generation it last recorded, 0 before its first, {@link #NONE} after {@link #leave}.
     */
    public long generation(final int worker)
    {
        return slots.getAcquire(index(worker));
    }

    /**
     * @return the earliest generation any worker may still be using (the conductor's question).
     */
    public long oldest()
    {
        long oldest = NONE;
        for (int worker = 0; worker < workers; worker++)
        {
            oldest = Math.min(oldest, slots.getAcquire(index(worker)));
        }
        return oldest;
    }

    private int index(final int worker)
    {
        if (worker < 0 || worker >= workers)
        {
            throw new IndexOutOfBoundsException("worker " + worker + " of " + workers);
        }
        // Slot 0's line is padding, so the first worker's slot shares no line with the array's header.
        return (worker + 1) * STRIDE;
    }
}
