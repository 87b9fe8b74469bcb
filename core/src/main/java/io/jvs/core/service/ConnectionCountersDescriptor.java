package io.jvs.core.service;

/**
 * Layout of one real server's connection counters in an atomic buffer: a shared line, then one line per worker.
 * <p>
 * A connection is counted by the worker whose table holds it, and only that worker binds, activates, deactivates
 * and unbinds it, so each worker keeps its own active and inactive counts in a line of its own and changes them
 * with plain stores: no locked instruction on a new connection or an ended one (a lock drains the store buffer
 * behind the connection entry just written), and no line written by two workers. Readers (the least-connection
 * schedulers, the thresholds, the listing) add the workers' lines up, as the kernel's per-CPU counters are summed.
 * The shared line holds what any thread changes: the persistence template count (templates are shared by the
 * workers, counted with atomic adds) and the flags (compare-and-set).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+  line 0, shared
 *  |            persistent connections (templates)                 |
 *  +---------------------------------------------------------------+
 *  |                 flags (AVAILABLE, OVERLOAD)                   |
 *  +---------------------------------------------------------------+
 *  |                 padding to 64 bytes                          ...
 *  +---------------------------------------------------------------+  line 1 + w, worker w's
 *  |                    active connections                         |
 *  +---------------------------------------------------------------+
 *  |                   inactive connections                        |
 *  +---------------------------------------------------------------+
 *  |                 padding to 64 bytes                          ...
 * </pre>
 */
public final class ConnectionCountersDescriptor
{
    /** Offset of the persistence template count, in the shared line. */
    public static final int PERSISTENT_OFFSET = 0;
    /** Offset of the flags word, in the shared line. */
    public static final int FLAGS_OFFSET = 4;
    /** Bytes per line: the shared one and each worker's. */
    public static final int LINE_LENGTH = 64;
    /** Offset of a worker's active connection count within its line. */
    public static final int ACTIVE_OFFSET = 0;
    /** Offset of a worker's inactive count within its line: the pair is one aligned 8-byte word. */
    public static final int INACTIVE_OFFSET = 4;

    /** Set while the server belongs to its service (the kernel's IP_VS_DEST_F_AVAILABLE). */
    public static final int FLAG_AVAILABLE = 1;
    /** Set by the connection thresholds (the kernel's IP_VS_DEST_F_OVERLOAD, spec 0.4). */
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
        return LINE_LENGTH * (1 + workers);
    }

    /**
     * @param worker a worker's index.
     * @return the offset of its line in a slot.
     */
    public static int workerLineOffset(final int worker)
    {
        return LINE_LENGTH * (1 + worker);
    }
}
