package io.jvs.core.service;

/**
 * Layout of one real server's connection counters in an atomic buffer: a line per worker, the first shared.
 * <p>
 * A connection is counted by the worker whose table holds it, and only that worker binds, activates, deactivates
 * and unbinds it, so each worker keeps its own active and inactive counts in a line of its own and changes them
 * with plain stores: no locked instruction on a new connection or an ended one (a lock drains the store buffer
 * behind the connection entry just written), and no line written by two workers for them. Readers (the
 * least-connection schedulers, the thresholds, the listing) add the workers' counts up, as the kernel's per-CPU
 * counters are summed. Worker 0's line also holds what any thread changes: the persistence template count
 * (templates are shared by the workers, counted with atomic adds), the flags (compare-and-set) and the weight (the
 * control plane's), so with one worker a least-connection pass reads one line per server and nothing else of it.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+  line 0: worker 0's, and shared
 *  |                 worker 0's active connections                 |
 *  +---------------------------------------------------------------+
 *  |                worker 0's inactive connections                |
 *  +---------------------------------------------------------------+
 *  |            persistent connections (templates)                 |
 *  +---------------------------------------------------------------+
 *  |                 flags (AVAILABLE, OVERLOAD)                   |
 *  +---------------------------------------------------------------+
 *  |                 weight                                        |
 *  +---------------------------------------------------------------+
 *  |                 padding to 64 bytes                          ...
 *  +---------------------------------------------------------------+  line w (w >= 1): worker w's
 *  |                 worker w's active connections                 |
 *  +---------------------------------------------------------------+
 *  |                worker w's inactive connections                |
 *  +---------------------------------------------------------------+
 *  |                 padding to 64 bytes                          ...
 * </pre>
 */
public final class ConnectionCountersDescriptor
{
    /** Offset of a worker's active connection count within its line. */
    public static final int ACTIVE_OFFSET = 0;
    /** Offset of a worker's inactive count within its line: the pair is one aligned 8-byte word. */
    public static final int INACTIVE_OFFSET = 4;
    /** Offset of the persistence template count, in line 0. */
    public static final int PERSISTENT_OFFSET = 8;
    /** Offset of the flags word, in line 0. */
    public static final int FLAGS_OFFSET = 12;
    /** Offset of the weight, in line 0: written by the control plane only. */
    public static final int WEIGHT_OFFSET = 16;
    /** Bytes per worker's line. */
    public static final int LINE_LENGTH = 64;

    /** Set while the server belongs to its service (the kernel's IP_VS_DEST_F_AVAILABLE). */
    public static final int FLAG_AVAILABLE = 1;
    /** Set by the connection thresholds (the kernel's IP_VS_DEST_F_OVERLOAD). */
    public static final int FLAG_OVERLOAD = 2;

    private ConnectionCountersDescriptor()
    {
    }

    /**
     * @param workers how many workers count connections.
     * @return the bytes of one server's slot.
     */
    public static int slotLength(final int workers)
    {
        return LINE_LENGTH * workers;
    }

    /**
     * @param worker a worker's index.
     * @return the offset of its line in a slot.
     */
    public static int workerLineOffset(final int worker)
    {
        return LINE_LENGTH * worker;
    }
}
