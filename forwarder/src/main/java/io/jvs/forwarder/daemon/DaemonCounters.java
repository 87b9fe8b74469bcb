package io.jvs.forwarder.daemon;

import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What a worker counts beyond its pipeline's verdicts: the hand-off between workers, the host path, sleeps.
 * Each worker owns a block of {@link #BLOCK} bytes in one buffer, laid out by the stable ids below, written
 * by that worker with plain stores and read by the conductor (status, the coming counters file) with volatile
 * loads, so a reader may lag a burst but never sees a torn value.
 */
final class DaemonCounters
{
    /** Frames this worker received for another worker's client and handed over. */
    static final int HANDED_OFF = 0;
    /** Frames it could not hand over: the owner's ring was full, or the frame longer than a slot. */
    static final int HANDOFF_DROPPED = 1;
    /** Frames other workers handed to this one. */
    static final int HANDOFF_RECEIVED = 2;
    /** Frames given to the host through its TAP (the pipeline's pass verdict on a frame the host never saw). */
    static final int HOST_PASSED = 3;
    /** Frames the TAP refused. */
    static final int HOST_REFUSED = 4;
    /** Transmit verdicts naming a port this worker does not have. */
    static final int NO_SUCH_PORT = 5;
    /** Bursts processed. */
    static final int BURSTS = 6;
    /** Times the worker slept in poll(2). */
    static final int SLEEPS = 7;
    /** Next hops without a MAC reported to the conductor. */
    static final int NEIGHBOUR_MISSES = 8;
    /** Frames held back because their next hop had no MAC yet (each is processed again when it may have one). */
    static final int HELD = 9;
    /** Held frames whose next hop stayed unresolved for {@link Worker#HOLD_NS}: dropped for good. */
    static final int HELD_EXPIRED = 10;
    /**
     * Errors a receive socket reported while the worker slept, read and cleared (ENETDOWN on a packet socket whose
     * device went down or away; see {@link PollSet}).
     */
    static final int SOCKET_ERRORS = 11;
    /**
     * Packets the pipeline sent in fragments ({@link io.jvs.core.packet.Verdict#inFragments}): IPv4 without DF, and
     * the IPv6 outer packets of IPv4 ones without DF.
     */
    static final int FRAGMENTED = 12;
    /** The fragments they were split into. */
    static final int FRAGMENTS = 13;
    /**
     * Packets that could not be split (more fragments than a burst holds, malformed IPv4 options): dropped, and
     * counted among the pipeline's mtu-exceeded drops.
     */
    static final int FRAGMENTATION_FAILED = 14;
    /**
     * UMEM chunks taken back from the rings of AF_XDP ports replaced after their device was made again
     * ({@link io.jvs.forwarder.port.xdp.AfXdpPort#reclaimChunks}).
     */
    static final int CHUNKS_RECLAIMED = 15;
    /** Connections the pipeline offered that the XDP program forwards from then on ({@link XdpFlowOffload}). */
    static final int OFFLOADED = 16;
    /** Offloaded connections taken back into the pipeline (a FIN or RST, expiry, a server gone). */
    static final int OFFLOAD_WITHDRAWN = 17;
    /** Offers not taken: the flow table was full, or the kernel refused the flow. */
    static final int OFFLOAD_REFUSED = 18;
    /** Frames the XDP program forwarded for this worker's connections, as last taken in. */
    static final int OFFLOADED_FRAMES = 19;
    static final int COUNT = 20;

    /** Bytes per worker: 32 longs, four cache lines, so workers never share a line. */
    static final int BLOCK = 256;

    private static final String[] LABELS = {
        "handed-off", "handoff-dropped", "handoff-received", "host-passed", "host-refused", "no-such-port",
        "bursts", "sleeps", "neighbour-misses", "held", "held-expired", "socket-errors", "fragmented", "fragments",
        "fragmentation-failed", "chunks-reclaimed", "offloaded", "offload-withdrawn", "offload-refused",
        "offloaded-frames"};

    private final AtomicBuffer buffer;

    DaemonCounters(final int workers)
    {
        this.buffer = new UnsafeBuffer(new byte[workers * BLOCK]);
    }

    /** The worker's own increment: a plain load and store. */
    void add(final int worker, final int id, final long delta)
    {
        final int index = worker * BLOCK + id * Long.BYTES;
        buffer.putLong(index, buffer.getLong(index) + delta);
    }

    long get(final int worker, final int id)
    {
        return buffer.getLongVolatile(worker * BLOCK + id * Long.BYTES);
    }

    static String label(final int id)
    {
        return LABELS[id];
    }
}
