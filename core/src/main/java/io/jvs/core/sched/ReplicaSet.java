package io.jvs.core.sched;

/**
 * An lblcr replica set packed in one long, so that it changes with a single compare-and-set: up to
 * four 16-bit server identifiers, the newest in the low lane (the kernel inserts at the head of the
 * set's list). A set that is full drops its oldest member to admit a new one; the kernel's sets are
 * unbounded, but they only grow while every member is overloaded.
 */
final class ReplicaSet
{
    static final int CAPACITY = 4;
    private static final int LANE_BITS = 16;
    private static final long LANE_MASK = 0xFFFF;

    private ReplicaSet()
    {
    }

    static long of(final int slot)
    {
        return slot & LANE_MASK;
    }

    /**
     * @param set  a set.
     * @param lane 0 (newest) .. 3.
     * @return the identifier in that lane, or 0 past the end.
     */
    static int member(final long set, final int lane)
    {
        return (int)((set >>> (lane * LANE_BITS)) & LANE_MASK);
    }

    static int size(final long set)
    {
        int size = 0;
        while (size < CAPACITY && member(set, size) != 0)
        {
            size++;
        }
        return size;
    }

    /**
     * @return true when the set has more than one member (the second lane is taken).
     */
    static boolean hasSeveral(final long set)
    {
        return (set >>> LANE_BITS) != 0;
    }

    static boolean contains(final long set, final int slot)
    {
        for (int lane = 0; lane < CAPACITY; lane++)
        {
            final int member = member(set, lane);
            if (member == 0)
            {
                return false;
            }
            if (member == slot)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the set with {@code slot} as its newest member (unchanged if already present).
     */
    static long insert(final long set, final int slot)
    {
        if (contains(set, slot))
        {
            return set;
        }
        return (set << LANE_BITS) | (slot & LANE_MASK);
    }

    /**
     * @return the set without {@code slot}, the later members moving up.
     */
    static long erase(final long set, final int slot)
    {
        long result = 0;
        int out = 0;
        for (int lane = 0; lane < CAPACITY; lane++)
        {
            final int member = member(set, lane);
            if (member == 0)
            {
                break;
            }
            if (member != slot)
            {
                result |= (member & LANE_MASK) << (out++ * LANE_BITS);
            }
        }
        return result;
    }
}
