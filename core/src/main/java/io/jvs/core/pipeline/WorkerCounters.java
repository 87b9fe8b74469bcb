package io.jvs.core.pipeline;

import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Objects;

import static io.jvs.core.pipeline.WorkerCountersDescriptor.CONNECTIONS;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.CONNECTIONS_ENDED;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.DROPPED;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.FAST_PATH;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.FIRST_DROP_REASON;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.FRAGMENTS_FOLLOWED;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.FRAMES;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.ICMP_RATE_LIMITED;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.ICMP_SENT;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.PASSED;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.TRANSMITTED;
import static io.jvs.core.pipeline.WorkerCountersDescriptor.offset;

/**
 * One worker's own counters (frames, verdicts, drops by reason, connections, ICMP answers), in a buffer laid out by
 * {@link WorkerCountersDescriptor}. The counts per service and per real server are the worker's
 * {@link io.jvs.core.stats.TrafficStats}.
 * <p>
 * Ordering, as {@code TrafficStats}'s: one writer, the worker, adds with plain reads and stores; the pipeline's
 * release fence after each burst ({@code TrafficStats.publish}) orders the burst's counts before whatever the worker
 * writes next. Any other thread reads with a volatile load and may see a count a burst old; an aligned 8-byte
 * access does not tear. Nothing is reset: a reader that wants zeroed counts keeps a baseline.
 */
public final class WorkerCounters
{
    private final AtomicBuffer buffer;
    /** The buffer's first byte: the writer adds at addresses within it, checked where an index comes from a verdict. */
    private final long address;

    /** Counters in a buffer of their own. */
    public WorkerCounters()
    {
        this(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            WorkerCountersDescriptor.length(), WorkerCountersDescriptor.LINE_LENGTH)));
    }

    /**
     * Counters in a given buffer, such as a worker's part of a memory-mapped counters file.
     *
     * @param buffer at least {@link WorkerCountersDescriptor#length()} bytes, aligned to a line; the counts in it
     *               are taken as they are.
     */
    public WorkerCounters(final AtomicBuffer buffer)
    {
        if (buffer.capacity() < WorkerCountersDescriptor.length())
        {
            throw new IllegalArgumentException("a worker's counters need " + WorkerCountersDescriptor.length() +
                " bytes, not " + buffer.capacity());
        }
        if ((buffer.addressOffset() & (WorkerCountersDescriptor.LINE_LENGTH - 1)) != 0)
        {
            throw new IllegalArgumentException("a worker's counters must start on a cache line");
        }
        this.buffer = buffer;
        this.address = buffer.addressOffset();
    }

    /** @return the buffer the counts are in, for a reader that maps ids itself. */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * @param id a {@link WorkerCountersDescriptor} id.
     * @return its count (any thread).
     */
    public long get(final int id)
    {
        return buffer.getLongVolatile(offset(id));
    }

    public long frames()
    {
        return get(FRAMES);
    }

    public long transmitted()
    {
        return get(TRANSMITTED);
    }

    public long passed()
    {
        return get(PASSED);
    }

    public long dropped()
    {
        return get(DROPPED);
    }

    public long dropped(final DropReason reason)
    {
        return get(WorkerCountersDescriptor.dropReason(reason));
    }

    /** @return frames the call-free loop for established connections handled ({@code Pipeline.followEstablished}). */
    public long fastPath()
    {
        return get(FAST_PATH);
    }

    public long connections()
    {
        return get(CONNECTIONS);
    }

    public long connectionsEnded()
    {
        return get(CONNECTIONS_ENDED);
    }

    public long fragmentsFollowed()
    {
        return get(FRAGMENTS_FOLLOWED);
    }

    public long icmpSent()
    {
        return get(ICMP_SENT);
    }

    public long icmpRateLimited()
    {
        return get(ICMP_RATE_LIMITED);
    }

    /**
     * Takes back the count of one frame and its verdict: the worker held the frame instead (it waits for its next
     * hop's MAC) and will give it to the pipeline again, which then counts it with its final verdict. Called by
     * this counter's worker only.
     *
     * @param verdict the verdict the frame was counted with.
     */
    public void retract(final int verdict)
    {
        add(FRAMES, -1);
        countVerdict(verdict, -1);
    }

    /**
     * The writer: a frame's verdict counted already changed to another (a drop answered after all, a transmit in
     * fragments the worker could not split). Called by this counter's worker only.
     */
    public void reverdict(final int from, final int to)
    {
        countVerdict(from, -1);
        countVerdict(to, 1);
    }

    /** The writer: a verdict given to a frame. */
    void verdict(final int verdict)
    {
        countVerdict(verdict, 1);
    }

    private void countVerdict(final int verdict, final long delta)
    {
        // A kind is 1 to 3 for every verdict the pipeline makes; masked, no verdict can reach outside line 0.
        final int kind = Verdict.kind(verdict) & 3;
        if (kind == Verdict.DROP)
        {
            add(FIRST_DROP_REASON + Objects.checkIndex(Verdict.reason(verdict), DropReason.count()), delta);
        }
        add(kind, delta);
    }

    /** The writer: {@code frames} verdicts to transmit, counted at once. */
    void transmitted(final int frames)
    {
        add(TRANSMITTED, frames);
    }

    /** The writer: frames handed to the pipeline. */
    void framesReceived(final int frames)
    {
        add(FRAMES, frames);
    }

    /** The writer: frames the fast loop took. */
    void fastPathTook(final int frames)
    {
        add(FAST_PATH, frames);
    }

    /** The writer: a connection created. */
    void connectionOpened()
    {
        add(CONNECTIONS, 1);
    }

    /** The writer: a connection that left the table. */
    void connectionEnded()
    {
        add(CONNECTIONS_ENDED, 1);
    }

    /** The writer: a later fragment sent after its first. */
    void fragmentFollowed()
    {
        add(FRAGMENTS_FOLLOWED, 1);
    }

    /** The writer: an ICMP error sent in answer to a packet dropped for {@code reason}. */
    void icmpSent(final DropReason reason)
    {
        add(ICMP_SENT, 1);
        add(WorkerCountersDescriptor.dropReason(reason), 1);
    }

    /** The writer: an echo request to a virtual address answered. */
    void echoAnswered()
    {
        add(WorkerCountersDescriptor.ICMP_ECHO_ANSWERED, 1);
    }

    /** The writer: an ICMP answer skipped by the rate limit. */
    void icmpAnswerSkipped()
    {
        add(ICMP_RATE_LIMITED, 1);
    }

    private void add(final int id, final long delta)
    {
        final long at = address + offset(id);
        UnsafeApi.putLong(at, UnsafeApi.getLong(at) + delta);
    }
}
