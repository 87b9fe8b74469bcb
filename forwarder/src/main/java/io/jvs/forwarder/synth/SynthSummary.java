package io.jvs.forwarder.synth;

import java.util.List;
import java.util.Map;

/**
 * What a synthesis wrote. Packet counts are of frames: a datagram sent in three fragments counts three UDP
 * packets and three fragments. tcp, udp and icmpErrors count well-formed frames only, so they add up to
 * packets less malformed; ipv6 counts well-formed IPv6 frames and vlan every tagged frame.
 *
 * @param packets                   frames written.
 * @param tcpConnectionsPerService  TCP connections opened (SYN sent) per service index, both families.
 * @param udpFlowsPerService        UDP flows per service index (only service 0 has a UDP service).
 * @param tcpPackets                TCP frames.
 * @param udpPackets                UDP frames, fragments included.
 * @param icmpErrors                ICMP fragmentation-needed and ICMPv6 packet-too-big frames.
 * @param ipv6Packets               well-formed IPv6 frames.
 * @param vlanPackets               frames with an 802.1Q tag.
 * @param fragments                 IPv4 and IPv6 fragments.
 * @param resetConnections          TCP connections that ended with RST rather than FIN.
 * @param malformed                 malformed frames per kind, every kind present.
 * @param firstTimestampNs          the first frame's time.
 * @param lastTimestampNs           the last frame's time.
 */
public record SynthSummary(
    long packets,
    List<Long> tcpConnectionsPerService,
    List<Long> udpFlowsPerService,
    long tcpPackets,
    long udpPackets,
    long icmpErrors,
    long ipv6Packets,
    long vlanPackets,
    long fragments,
    long resetConnections,
    Map<MalformedKind, Long> malformed,
    long firstTimestampNs,
    long lastTimestampNs)
{
    public SynthSummary
    {
        tcpConnectionsPerService = List.copyOf(tcpConnectionsPerService);
        udpFlowsPerService = List.copyOf(udpFlowsPerService);
        malformed = Map.copyOf(malformed);
    }

    public long tcpConnections()
    {
        return tcpConnectionsPerService.stream().mapToLong(Long::longValue).sum();
    }

    public long udpFlows()
    {
        return udpFlowsPerService.stream().mapToLong(Long::longValue).sum();
    }

    public long malformedPackets()
    {
        return malformed.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * @return the count of one kind, 0 when none was written.
     */
    public long malformed(final MalformedKind kind)
    {
        return malformed.getOrDefault(kind, 0L);
    }
}
