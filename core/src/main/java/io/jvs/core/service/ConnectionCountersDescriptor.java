package io.jvs.core.service;

/**
 * Layout of one real server's connection counters in an atomic buffer.
 * <p>
 * Every worker updates these with atomic adds and reads them without locks; the slot takes a whole
 * cache line so two servers' counters never share one.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                    active connections                         |
 *  +---------------------------------------------------------------+
 *  |                   inactive connections                        |
 *  +---------------------------------------------------------------+
 *  |            persistent connections (templates)                 |
 *  +---------------------------------------------------------------+
 *  |                 flags (AVAILABLE, OVERLOAD)                   |
 *  +---------------------------------------------------------------+
 *  |                 padding to 64 bytes                          ...
 * </pre>
 */
public final class ConnectionCountersDescriptor
{
    /** Offset of the active connection count. */
    public static final int ACTIVE_OFFSET = 0;
    /** Offset of the inactive connection count. */
    public static final int INACTIVE_OFFSET = 4;
    /** Offset of the persistence template count. */
    public static final int PERSISTENT_OFFSET = 8;
    /** Offset of the flags word. */
    public static final int FLAGS_OFFSET = 12;
    /** Bytes per server. */
    public static final int SLOT_LENGTH = 64;

    /** Set while the server belongs to its service (the kernel's IP_VS_DEST_F_AVAILABLE). */
    public static final int FLAG_AVAILABLE = 1;
    /** Set by the connection thresholds (the kernel's IP_VS_DEST_F_OVERLOAD, spec 0.4). */
    public static final int FLAG_OVERLOAD = 2;

    private ConnectionCountersDescriptor()
    {
    }
}
