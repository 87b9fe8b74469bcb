package io.jvs.core.pipeline;

/**
 * Where the later fragments of a datagram go: the first fragment's decision, remembered under
 * (source, destination, protocol, identification) so every fragment reaches the same real server
 * without reassembly. Four ways per set, the oldest way replaced when a set is full, entries valid for
 * {@link #LIFETIME_TICKS}; a worker owns its table.
 */
final class FragmentTable
{
    /** How the later fragments are rewritten. */
    static final int TOWARDS_SERVER = 1;
    static final int TOWARDS_CLIENT = 2;

    /** Fragments of one datagram arrive within milliseconds; 5 s is generous (ticks are 10 ms). */
    static final int LIFETIME_TICKS = 500;

    private static final int WAYS = 4;

    private final int setMask;
    private final long[] sourceHigh;
    private final long[] sourceLow;
    private final long[] destinationHigh;
    private final long[] destinationLow;
    /** protocol << 32 | identification, or -1 for an empty way. */
    private final long[] key;
    private final int[] serverSlot;
    private final int[] method;
    private final int[] direction;
    private final long[] virtualHigh;
    private final long[] virtualLow;
    private final int[] expires;

    /** Set by {@link #find}: the matching way. */
    private int found;

    FragmentTable(final int sets)
    {
        if (Integer.bitCount(sets) != 1)
        {
            throw new IllegalArgumentException("fragment table sets must be a power of two: " + sets);
        }
        final int entries = sets * WAYS;
        setMask = sets - 1;
        sourceHigh = new long[entries];
        sourceLow = new long[entries];
        destinationHigh = new long[entries];
        destinationLow = new long[entries];
        key = new long[entries];
        java.util.Arrays.fill(key, -1L);
        serverSlot = new int[entries];
        method = new int[entries];
        direction = new int[entries];
        virtualHigh = new long[entries];
        virtualLow = new long[entries];
        expires = new int[entries];
    }

    private int set(final long srcHigh, final long srcLow, final long dstHigh, final long dstLow, final long fragmentKey)
    {
        long h = (srcLow * 0x9E37_79B9_7F4A_7C15L) ^ (dstLow * 0xC2B2_AE3D_27D4_EB4FL) ^
            (srcHigh + dstHigh) * 0x1656_67B1_9E37_79F9L ^ fragmentKey;
        h ^= h >>> 31;
        h *= 0xBF58_476D_1CE4_E5B9L;
        h ^= h >>> 29;
        return (int)h & setMask;
    }

    /**
     * Remembers a first fragment's decision.
     */
    void put(final long srcHigh, final long srcLow, final long dstHigh, final long dstLow, final int protocol,
        final int identification, final int server, final int forwardMethod, final int way, final long vHigh,
        final long vLow, final int nowTick)
    {
        final long fragmentKey = (long)protocol << 32 | (identification & 0xFFFF_FFFFL);
        final int first = set(srcHigh, srcLow, dstHigh, dstLow, fragmentKey) * WAYS;
        int victim = first;
        for (int w = first; w < first + WAYS; w++)
        {
            if (key[w] == -1L || expires[w] - nowTick <= 0 ||
                key[w] == fragmentKey && sourceLow[w] == srcLow && destinationLow[w] == dstLow &&
                    sourceHigh[w] == srcHigh && destinationHigh[w] == dstHigh)
            {
                victim = w;
                break;
            }
            if (expires[w] - expires[victim] < 0)
            {
                victim = w;
            }
        }
        sourceHigh[victim] = srcHigh;
        sourceLow[victim] = srcLow;
        destinationHigh[victim] = dstHigh;
        destinationLow[victim] = dstLow;
        key[victim] = fragmentKey;
        serverSlot[victim] = server;
        method[victim] = forwardMethod;
        direction[victim] = way;
        virtualHigh[victim] = vHigh;
        virtualLow[victim] = vLow;
        expires[victim] = nowTick + LIFETIME_TICKS;
    }

    /**
     * @return true when a decision is remembered for the datagram; read it with the accessors.
     */
    boolean find(final long srcHigh, final long srcLow, final long dstHigh, final long dstLow, final int protocol,
        final int identification, final int nowTick)
    {
        final long fragmentKey = (long)protocol << 32 | (identification & 0xFFFF_FFFFL);
        final int first = set(srcHigh, srcLow, dstHigh, dstLow, fragmentKey) * WAYS;
        for (int w = first; w < first + WAYS; w++)
        {
            if (key[w] == fragmentKey && sourceLow[w] == srcLow && destinationLow[w] == dstLow &&
                sourceHigh[w] == srcHigh && destinationHigh[w] == dstHigh && expires[w] - nowTick > 0)
            {
                found = w;
                return true;
            }
        }
        return false;
    }

    int foundServer()
    {
        return serverSlot[found];
    }

    /** @return the forwarding method of the connection the first fragment belonged to (towards the server). */
    int foundMethod()
    {
        return method[found];
    }

    int foundDirection()
    {
        return direction[found];
    }

    long foundVirtualHigh()
    {
        return virtualHigh[found];
    }

    long foundVirtualLow()
    {
        return virtualLow[found];
    }
}
