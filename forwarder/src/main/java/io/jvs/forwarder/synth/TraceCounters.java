package io.jvs.forwarder.synth;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What a synthesis has written so far, counted as it goes and turned into a {@link SynthSummary} at the end.
 */
final class TraceCounters
{
    final long[] tcpConnections;
    final long[] udpFlows;
    final long[] malformed = new long[MalformedKind.values().length];
    long packets;
    long tcpPackets;
    long udpPackets;
    long icmpErrors;
    long ipv6Packets;
    long vlanPackets;
    long fragments;
    long resetConnections;
    long firstTimestampNs = -1;
    long lastTimestampNs = -1;

    TraceCounters(final int services)
    {
        tcpConnections = new long[services];
        udpFlows = new long[services];
    }

    /**
     * Counts a well-formed frame's family and tag.
     */
    void wellFormed(final boolean v6, final int vlanId)
    {
        ipv6Packets += v6 ? 1 : 0;
        vlanPackets += vlanId >= 0 ? 1 : 0;
    }

    void written(final long timestampNs)
    {
        if (packets == 0)
        {
            firstTimestampNs = timestampNs;
        }
        lastTimestampNs = timestampNs;
        packets++;
    }

    SynthSummary summary()
    {
        final Map<MalformedKind, Long> byKind = new EnumMap<>(MalformedKind.class);
        for (final MalformedKind kind : MalformedKind.values())
        {
            byKind.put(kind, malformed[kind.ordinal()]);
        }
        return new SynthSummary(packets, list(tcpConnections), list(udpFlows), tcpPackets, udpPackets, icmpErrors,
            ipv6Packets, vlanPackets, fragments, resetConnections, byKind, firstTimestampNs, lastTimestampNs);
    }

    private static List<Long> list(final long[] values)
    {
        final List<Long> list = new ArrayList<>(values.length);
        for (final long value : values)
        {
            list.add(value);
        }
        return list;
    }
}
