package io.jvs.forwarder.synth;

/**
 * The (client, port) pairs of the flows open at the moment, so that a client never opens two flows from the
 * same port at once. An open-addressing set of longs with linear probing and backward-shift deletion: no
 * objects, no tombstones, and its content depends only on what was added and removed.
 */
final class ActivePorts
{
    private final long[] keys;
    private final int mask;

    /**
     * @param most the most pairs held at once.
     */
    ActivePorts(final int most)
    {
        final int capacity = Integer.highestOneBit(Math.max(4, most) * 4 - 1) << 1;
        keys = new long[capacity];
        mask = capacity - 1;
    }

    boolean contains(final int client, final int port)
    {
        final long key = key(client, port);
        for (int at = slot(key); keys[at] != 0; at = (at + 1) & mask)
        {
            if (keys[at] == key)
            {
                return true;
            }
        }
        return false;
    }

    void add(final int client, final int port)
    {
        final long key = key(client, port);
        int at = slot(key);
        while (keys[at] != 0)
        {
            at = (at + 1) & mask;
        }
        keys[at] = key;
    }

    void remove(final int client, final int port)
    {
        final long key = key(client, port);
        int hole = slot(key);
        while (keys[hole] != key)
        {
            hole = (hole + 1) & mask;
        }
        // Move back every later key of the run that may sit in the hole, so lookups never stop short.
        for (int at = (hole + 1) & mask; keys[at] != 0; at = (at + 1) & mask)
        {
            final int home = slot(keys[at]);
            if (((at - home) & mask) >= ((at - hole) & mask))
            {
                keys[hole] = keys[at];
                hole = at;
            }
        }
        keys[hole] = 0;
    }

    private int slot(final long key)
    {
        return (int)SplitMix64.mix(key) & mask;
    }

    /** Never 0 (the empty mark): ports are 1 and up. */
    private static long key(final int client, final int port)
    {
        return (long)client << 16 | port;
    }
}
