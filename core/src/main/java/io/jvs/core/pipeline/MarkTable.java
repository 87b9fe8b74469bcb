package io.jvs.core.pipeline;

import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.ParsedBurst;

import java.util.List;

/**
 * The configuration's {@link MarkRule}s compiled for the workers: one primitive array per field, tried in
 * order, the first match giving the frame its mark. A prefix is kept as its network and mask, so a match
 * is a few ANDs and compares; no rule object is touched per packet.
 */
final class MarkTable
{
    /** The table of a configuration without mark rules. */
    static final MarkTable EMPTY = new MarkTable(List.of());

    private static final byte ANY_FAMILY = 0;
    private static final byte V4 = 1;
    private static final byte V6 = 2;

    /** The marks by rule: its length is the rule count, the one check a burst makes when there are none. */
    final int[] mark;
    private final int[] inPort;
    private final byte[] family;
    private final long[] sourceHigh;
    private final long[] sourceLow;
    private final long[] sourceMaskHigh;
    private final long[] sourceMaskLow;
    private final long[] destinationHigh;
    private final long[] destinationLow;
    private final long[] destinationMaskHigh;
    private final long[] destinationMaskLow;
    private final int[] protocol;
    private final int[] destinationPort;

    MarkTable(final List<MarkRule> rules)
    {
        final int count = rules.size();
        mark = new int[count];
        inPort = new int[count];
        family = new byte[count];
        sourceHigh = new long[count];
        sourceLow = new long[count];
        sourceMaskHigh = new long[count];
        sourceMaskLow = new long[count];
        destinationHigh = new long[count];
        destinationLow = new long[count];
        destinationMaskHigh = new long[count];
        destinationMaskLow = new long[count];
        protocol = new int[count];
        destinationPort = new int[count];
        for (int r = 0; r < count; r++)
        {
            final MarkRule rule = rules.get(r);
            mark[r] = rule.mark();
            inPort[r] = rule.inPort();
            final IpPrefix source = rule.source();
            final IpPrefix destination = rule.destination();
            final IpPrefix any = source != null ? source : destination;
            family[r] = any == null ? ANY_FAMILY : (any.isV6() ? V6 : V4);
            if (source != null)
            {
                sourceHigh[r] = source.isV6() ? source.network().high() : 0;
                sourceLow[r] = source.network().low();
                sourceMaskHigh[r] = maskHigh(source);
                sourceMaskLow[r] = maskLow(source);
            }
            if (destination != null)
            {
                destinationHigh[r] = destination.isV6() ? destination.network().high() : 0;
                destinationLow[r] = destination.network().low();
                destinationMaskHigh[r] = maskHigh(destination);
                destinationMaskLow[r] = maskLow(destination);
            }
            protocol[r] = rule.protocol();
            destinationPort[r] = rule.destinationPort();
        }
    }

    private static long maskHigh(final IpPrefix prefix)
    {
        final int length = prefix.length();
        if (!prefix.isV6())
        {
            return 0;
        }
        return length >= 64 ? -1L : (length == 0 ? 0 : -1L << (64 - length));
    }

    private static long maskLow(final IpPrefix prefix)
    {
        final int length = prefix.length();
        if (!prefix.isV6())
        {
            return length == 0 ? 0 : (0xFFFF_FFFFL << (32 - length)) & 0xFFFF_FFFFL;
        }
        return length <= 64 ? 0 : (length == 128 ? -1L : -1L << (128 - length));
    }

    /**
     * @param p       the parsed burst.
     * @param i       a frame of it that parsed as IP.
     * @param ingress the port it came in on.
     * @return the mark of the first rule it matches, or 0.
     */
    int match(final ParsedBurst p, final int i, final int ingress)
    {
        final byte frameFamily = p.kind(i) == ParsedBurst.KIND_IPV6 ? V6 : V4;
        final int frameProtocol = p.protocol(i);
        final boolean hasPorts = p.hasPorts(i);
        final long srcHigh = p.sourceHigh(i);
        final long srcLow = p.sourceLow(i);
        final long dstHigh = p.destinationHigh(i);
        final long dstLow = p.destinationLow(i);
        final int[] marks = mark;
        for (int r = 0; r < marks.length; r++)
        {
            if ((inPort[r] == MarkRule.ANY_PORT || inPort[r] == ingress) &&
                (family[r] == ANY_FAMILY || family[r] == frameFamily) &&
                (protocol[r] == 0 || protocol[r] == frameProtocol) &&
                (destinationPort[r] == 0 || (hasPorts && destinationPort[r] == p.destinationPort(i))) &&
                (srcHigh & sourceMaskHigh[r]) == sourceHigh[r] && (srcLow & sourceMaskLow[r]) == sourceLow[r] &&
                (dstHigh & destinationMaskHigh[r]) == destinationHigh[r] &&
                (dstLow & destinationMaskLow[r]) == destinationLow[r])
            {
                return marks[r];
            }
        }
        return 0;
    }
}
