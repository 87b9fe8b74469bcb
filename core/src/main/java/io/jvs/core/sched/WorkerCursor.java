package io.jvs.core.sched;

import io.jvs.core.service.RealServer;

/**
 * One worker's position in a service's server list, for rr and wrr: a cursor per worker, so that no lock is
 * shared between workers.
 * <p>
 * The position is an index into the list the worker last saw. When the control plane publishes a new
 * list, the worker carries its position over itself: to the same server if it is still there, else to
 * the nearest earlier server that is, else to the head. For a removed server that is exactly the
 * kernel's rr del_dest rule (continue after the removed server's predecessor). Padded so that two
 * workers' cursors never share a cache line.
 */
final class WorkerCursor
{
    /** The position before the first server (the kernel's list head). */
    static final int HEAD = -1;

    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07;

    private RealServer[] seen;
    private int index = HEAD;
    /** wrr's current weight threshold; unused by rr. */
    int currentWeight;
    /** The wrr plan this cursor last followed; unused by rr. */
    Object plan;

    @SuppressWarnings("unused")
    private long p11, p12, p13, p14, p15, p16, p17;

    /**
     * @return true when the list is not the one this cursor last saw (the caller then calls {@link #follow}).
     */
    boolean isStale(final RealServer[] list)
    {
        return seen != list;
    }

    /**
     * Carries the position over to a new list.
     *
     * @param list the list now published.
     */
    void follow(final RealServer[] list)
    {
        final RealServer[] previous = seen;
        int position = HEAD;
        if (previous != null)
        {
            for (int i = index; i >= 0 && position == HEAD; i--)
            {
                position = indexOf(list, previous[i]);
            }
        }
        seen = list;
        index = position;
    }

    /**
     * Moves to the head of the list.
     */
    void rewind()
    {
        index = HEAD;
    }

    int index()
    {
        return index;
    }

    void index(final int index)
    {
        this.index = index;
    }

    private static int indexOf(final RealServer[] list, final RealServer server)
    {
        for (int i = 0; i < list.length; i++)
        {
            if (list[i] == server)
            {
                return i;
            }
        }
        return HEAD;
    }

    static WorkerCursor[] forWorkers(final int workers)
    {
        final WorkerCursor[] cursors = new WorkerCursor[workers];
        for (int i = 0; i < workers; i++)
        {
            cursors[i] = new WorkerCursor();
        }
        return cursors;
    }
}
