package io.jvs.core.pipeline;

import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;

/**
 * One worker's counters: verdicts, drops by reason, and packets, bytes and connections per service and
 * per real server slot. Written only by its worker with plain stores; readers (stats, tests) see
 * values that may lag by a burst, which is all a counter promises.
 */
public final class WorkerCounters
{
    /** Frames handed to {@link Pipeline#process}. */
    public long frames;
    /** Connections created. */
    public long connections;
    /** Connections that expired or were reclaimed. */
    public long connectionsEnded;
    /** ICMP errors jvs answered with (port-unreachable, time-exceeded, frag-needed, packet-too-big). */
    public long icmpSent;
    /** ICMP answers skipped by the rate limit. */
    public long icmpRateLimited;
    /** Later fragments sent after their first. */
    public long fragmentsFollowed;
    /**
     * Frames the pipeline's call-free loop for established connections handled ({@code Pipeline.followEstablished}),
     * verdicts of the parser included; the rest went through the general path.
     */
    public long fastPath;

    final long[] verdicts = new long[4];
    final long[] drops = new long[DropReason.count()];
    /** A slot's packets, bytes and connections side by side: a packet's counts are one cache line and one bounds check. */
    static final int STRIDE = 4;
    static final int PACKETS = 0;
    static final int BYTES = 1;
    static final int CONNECTIONS = 2;
    /** Per service slot, {@link #STRIDE} longs each. */
    final long[] service;
    /** Per real-server slot, {@link #STRIDE} longs each. */
    final long[] server;

    /**
     * @param maxServices service slots.
     * @param maxServers  server slots.
     */
    public WorkerCounters(final int maxServices, final int maxServers)
    {
        service = new long[maxServices * STRIDE];
        server = new long[maxServers * STRIDE];
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
        frames--;
        final int kind = Verdict.kind(verdict);
        verdicts[kind]--;
        if (kind == Verdict.DROP)
        {
            drops[Verdict.reason(verdict)]--;
        }
    }

    public long transmitted()
    {
        return verdicts[Verdict.TRANSMIT];
    }

    public long passed()
    {
        return verdicts[Verdict.PASS];
    }

    public long dropped()
    {
        return verdicts[Verdict.DROP];
    }

    public long dropped(final DropReason reason)
    {
        return drops[reason.ordinal()];
    }

    public long servicePackets(final int slot)
    {
        return service[slot * STRIDE + PACKETS];
    }

    public long serviceBytes(final int slot)
    {
        return service[slot * STRIDE + BYTES];
    }

    /** Connections scheduled for the service (one-packet scheduling counts each packet, as IPVS does). */
    public long serviceConnections(final int slot)
    {
        return service[slot * STRIDE + CONNECTIONS];
    }

    public long serverPackets(final int slot)
    {
        return server[slot * STRIDE + PACKETS];
    }

    public long serverBytes(final int slot)
    {
        return server[slot * STRIDE + BYTES];
    }

    public long serverConnections(final int slot)
    {
        return server[slot * STRIDE + CONNECTIONS];
    }
}
