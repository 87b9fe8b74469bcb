package io.jvs.forwarder.daemon;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What the control socket counts, by stable id in one buffer: each client's thread adds atomically (several run
 * at once), status reads with volatile loads.
 */
final class ControlCounters
{
    /** Requests answered. */
    static final int SERVED = 0;
    /** Connections refused because the peer is neither root nor in the socket's group. */
    static final int REFUSED_PEERS = 1;
    /** Requests refused as malformed, truncated or oversized. */
    static final int MALFORMED = 2;
    /** Clients dropped for not sending a whole request, or not taking the answer, in time. */
    static final int TIMED_OUT = 3;
    /** Clients lost to an I/O error, most often one that left before its answer was written (a broken pipe). */
    static final int CLIENT_ERRORS = 4;
    static final int COUNT = 5;

    private static final String[] LABELS = {"served", "refused-peers", "malformed", "timed-out", "client-errors"};

    private final AtomicBuffer buffer = new UnsafeBuffer(new byte[COUNT * Long.BYTES]);

    void increment(final int id)
    {
        buffer.getAndAddLong(id * Long.BYTES, 1);
    }

    long get(final int id)
    {
        return buffer.getLongVolatile(id * Long.BYTES);
    }

    static String label(final int id)
    {
        return LABELS[id];
    }
}
