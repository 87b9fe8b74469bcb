package io.jvs.core.pipeline;

import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Verdict;

import java.util.List;

/**
 * Layout of one worker's own counters in its {@link WorkerCounters} buffer: 64-bit counts at stable ids, the
 * offset of id {@code n} being {@code 8 * n}. A counters file or a control client names a count by its id, so an
 * id never changes its meaning once released; a new count takes a free id.
 * <pre>
 *  line 0 (every packet)   0 frames             1 transmitted        2 passed             3 dropped
 *                          4 fast path          5 connections        6 connections ended  7 fragments followed
 *  line 1                  8 ICMP errors sent   9 ICMP rate-limited  10 echo requests answered  11-15 free
 *  lines 2 and on          16 + r: drops for the {@link DropReason} whose id is r
 * </pre>
 * The verdict counts sit at the ids of the verdict kinds ({@link Verdict#TRANSMIT}, {@link Verdict#PASS},
 * {@link Verdict#DROP}), so a verdict is counted at {@code 8 * kind} without a table. What every packet changes
 * is in line 0.
 */
public final class WorkerCountersDescriptor
{
    /** Frames handed to {@link Pipeline#process}. */
    public static final int FRAMES = 0;
    /** Frames with a transmit verdict. */
    public static final int TRANSMITTED = Verdict.TRANSMIT;
    /** Frames passed to the host. */
    public static final int PASSED = Verdict.PASS;
    /** Frames dropped, for any reason. */
    public static final int DROPPED = Verdict.DROP;
    /** Frames the call-free loop for established connections handled, parser verdicts included. */
    public static final int FAST_PATH = 4;
    /** Connections created. */
    public static final int CONNECTIONS = 5;
    /** Connections that expired or were reclaimed. */
    public static final int CONNECTIONS_ENDED = 6;
    /** Later fragments sent after their first. */
    public static final int FRAGMENTS_FOLLOWED = 7;
    /** ICMP errors jvs answered with (port-unreachable, time-exceeded, frag-needed, packet-too-big). */
    public static final int ICMP_SENT = 8;
    /** ICMP answers skipped by the rate limit. */
    public static final int ICMP_RATE_LIMITED = 9;
    /** ICMP and ICMPv6 echo requests to a virtual address that jvs answered ({@code vip-arp on}). */
    public static final int ICMP_ECHO_ANSWERED = 10;
    /** The id of the first drop reason's count; reason r is at {@code FIRST_DROP_REASON + r}. */
    public static final int FIRST_DROP_REASON = 16;
    /** Bytes per line. */
    public static final int LINE_LENGTH = 64;

    private static final List<String> NAMES = List.of("frames", "transmitted", "passed", "dropped", "fast-path",
        "connections", "connections-ended", "fragments-followed", "icmp-sent", "icmp-rate-limited",
        "icmp-echo-answered");

    private WorkerCountersDescriptor()
    {
    }

    /**
     * @param reason a drop reason.
     * @return the id of its count.
     */
    public static int dropReason(final DropReason reason)
    {
        return FIRST_DROP_REASON + reason.id();
    }

    /**
     * @param id a count's id.
     * @return its byte offset in the buffer.
     */
    public static int offset(final int id)
    {
        return id * Long.BYTES;
    }

    /**
     * @return how many ids there are today, free ones included: the buffer holds {@code 8 * ids()} bytes,
     * rounded up to whole lines.
     */
    public static int ids()
    {
        return FIRST_DROP_REASON + DropReason.count();
    }

    /**
     * @return the buffer's length in bytes: every id, in whole lines.
     */
    public static int length()
    {
        return (offset(ids()) + LINE_LENGTH - 1) / LINE_LENGTH * LINE_LENGTH;
    }

    /**
     * @param id a count's id.
     * @return its name as status lines and a counters file give it ("frames", "drop.truncated", …), or null for a
     * free id.
     */
    public static String name(final int id)
    {
        if (id >= 0 && id < NAMES.size())
        {
            return NAMES.get(id);
        }
        final DropReason reason = id >= FIRST_DROP_REASON ? DropReason.of(id - FIRST_DROP_REASON) : null;
        return reason == null ? null : "drop." + reason.label();
    }
}
