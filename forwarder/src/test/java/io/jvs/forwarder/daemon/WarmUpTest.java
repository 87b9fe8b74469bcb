package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.L4Headers;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlanePublisher;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.pipeline.MarkRule;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceTable;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The warm-up frames: valid frames to the port's MAC for each address service, IPv4 or IPv6, and for each
 * firewall-mark service a mark statement gives its mark (none for one without), forming whole TCP connections (SYN, ACKs, FIN, and its server's ACKs) and UDP flows, so that the
 * scratch pipeline runs its established-connection and reply paths, not only the first packet's, and mostly the
 * established ones: through a pipeline every one of them is forwarded.
 */
class WarmUpTest
{
    private static final long PORT_MAC = 0x02_00_00_00_00_10L;
    private static final int CLIENTS = 4096;
    private static final int HEADROOM = 256;
    private static final int STRIDE = 2048;

    private static final String[] RULES = {
        "-A -t 10.0.0.100:80 -s rr",
        "-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -m",
        "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m",
        "-a -t 10.0.0.100:80 -r 192.168.1.3:8080 -m",
        "-A -u 10.0.0.101:53 -s rr",
        "-a -u 10.0.0.101:53 -r 192.168.1.9:53 -m",
        "-A -f 7 -s rr",
        "-a -f 7 -r 192.168.1.7:80 -m"};

    private static final String[] RULES_V6 = {
        "-A -t [2001:db8::1]:80 -s rr",
        "-a -t [2001:db8::1]:80 -r [2001:db8::9]:8080 -m",
        "-a -t [2001:db8::1]:80 -r [2001:db8::a]:8080 -m",
        "-A -u [2001:db8::2]:53 -s rr",
        "-a -u [2001:db8::2]:53 -r [2001:db8::b]:53 -m"};

    private static final String[] RULES_MARK = {
        "-A -f 7 -s rr",
        "-a -f 7 -r 192.168.1.7:8080 -m",
        "-a -f 7 -r 192.168.1.8:8080 -m",
        "-A -f 8 -6 -s rr",
        "-a -f 8 -6 -r [2001:db8::b]:53 -m"};

    /** Mark 7 for TCP to 203.0.113.0/24, mark 8 for UDP to 2001:db8:7::/64 on port 53. */
    private static final List<MarkRule> MARKS = List.of(
        new MarkRule(7, MarkRule.ANY_PORT, null, IpPrefix.parse("203.0.113.0/24"), 6, 0),
        new MarkRule(8, MarkRule.ANY_PORT, null, IpPrefix.parse("2001:db8:7::/64"), 17, 53));

    @Test
    void shouldHaveNothingToWarmForAMarkNoStatementGivesAndSayWhy() throws Exception
    {
        final WarmUp none = new WarmUp(table("-A -f 7 -s rr", "-A -f 8 -6 -s rr"),
            List.of(new MarkRule(8, 1, null, IpPrefix.parse("2001:db8:7::/64"), 0, 0)), PORT_MAC);
        assertThat(none.hasTraffic()).isFalse();
        assertThat(none.unwarmed()).satisfiesExactly(
            reason -> assertThat(reason).startsWith("-f 7: no mark statement gives its mark"),
            reason -> assertThat(reason).startsWith("-f 8 -6: no mark statement giving its mark matches"));
        try (Arena arena = Arena.ofConfined())
        {
            assertThat(none.next(arena.allocate(2048).address(), 2048)).isZero();
        }
        assertThat(new WarmUp(table(RULES), PORT_MAC).hasTraffic()).isTrue();
        assertThat(new WarmUp(table("-A -t [2001:db8::1]:80 -s rr"), PORT_MAC).hasTraffic()).isTrue();
        assertThat(new WarmUp(table("-A -f 7 -s rr"), MARKS, PORT_MAC).unwarmed()).isEmpty();
    }

    @Test
    void shouldWarmIpv6ServicesWithWholeConnectionsThatAPipelineForwards() throws Exception
    {
        final Pipeline pipeline = warm(table(RULES_V6), List.of());
        assertThat(pipeline.connectionsV4().size()).isZero();
        assertThat(pipeline.connectionsV6().size()).isEqualTo(2 * CLIENTS);
    }

    @Test
    void shouldWarmMarkServicesWithTheFramesTheirMarkStatementsMark() throws Exception
    {
        final Pipeline pipeline = warm(table(RULES_MARK), MARKS);
        assertThat(pipeline.connectionsV4().size()).isEqualTo(CLIENTS);
        assertThat(pipeline.connectionsV6().size()).isEqualTo(CLIENTS);
    }

    /**
     * Runs the warm-up of two services (a TCP one and a UDP one) through a pipeline until both have made their first
     * connections whole: every frame of theirs is forwarded, the malformed one dropped, the host's passed, and most
     * follow an established connection, as for IPv4 address services.
     */
    private static Pipeline warm(final ServiceTable table, final List<MarkRule> marks) throws Exception
    {
        final Topology.Builder topology = new Topology.Builder()
            .port(0, PORT_MAC, 1500, IpAddress.parse("10.0.0.1"), IpAddress.parse("2001:db8::2"))
            .gatewayV4(0, 0x02_00_00_00_77_01L).gatewayV6(0, 0x02_00_00_00_77_01L);
        for (final RealServer server : table.allServers())
        {
            topology.neighbour(server.address(), 0, 0x02_00_00_00_77_02L);
        }
        final DataPlanePublisher publisher = new DataPlanePublisher(new DataPlaneBuilder(8, 16).build(table,
            topology.build(), new ConnectionTimeouts(), DataPlaneSettings.defaults(), marks));
        final Pipeline pipeline = new Pipeline(publisher, 0, 1 << 16, 1 << 16, 8, 16, 0);
        final WarmUp warmUp = new WarmUp(table, marks, PORT_MAC);
        assertThat(warmUp.unwarmed()).isEmpty();
        final int frames = WarmUp.PHASES * CLIENTS * 2;
        final FrameBurst burst = new FrameBurst();
        int given = 0;
        int connections = 0;
        int malformed = 0;
        int arp = 0;
        try (Arena arena = Arena.ofConfined())
        {
            final long memory = arena.allocate((long)32 * STRIDE, 64).address();
            long now = 1_000_000_000L;
            while (connections < frames)
            {
                burst.clear();
                for (int i = 0; i < 32 && connections < frames; i++)
                {
                    final long frame = memory + (long)i * STRIDE + HEADROOM;
                    final int length = warmUp.next(frame, STRIDE - HEADROOM);
                    assertThat(length).isGreaterThanOrEqualTo(60);
                    given++;
                    if (given % WarmUp.MALFORMED_EVERY == 0)
                    {
                        malformed++;
                    }
                    else if (given % WarmUp.HOST_EVERY == 0)
                    {
                        arp += Frames.u16(frame + EthernetHeader.TYPE_OFFSET) == EthernetHeader.TYPE_ARP ? 1 : 0;
                    }
                    else
                    {
                        connections++;
                    }
                    burst.add(frame, length, STRIDE - HEADROOM, HEADROOM, now);
                }
                pipeline.process(burst, now);
                for (int i = 0; i < burst.count; i++)
                {
                    final int n = given - burst.count + i + 1;
                    assertThat(Verdict.toString(burst.verdict(i))).as("frame %d", n)
                        .isEqualTo(n % WarmUp.MALFORMED_EVERY == 0 ? "drop:bad-ip-version" :
                            n % WarmUp.HOST_EVERY == 0 ? "pass" : "transmit:0");
                }
                now += 10_000;
            }
        }
        assertThat(warmUp.delivered()).isEqualTo(given);
        assertThat(malformed).isPositive();
        // Each TCP connection's ACKs (the one that establishes it and the six data ACKs) and its FIN, eight of the
        // nine datagrams of a UDP client and every answer of the servers follow a connection in the fast loop; so do
        // the malformed frames and the ARP requests.
        assertThat(pipeline.counters().fastPath()).isEqualTo((8L + 8 + 7 + 7) * CLIENTS + malformed + arp);
        return pipeline;
    }

    @Test
    void shouldGiveNoFrameWhereOneCannotFit() throws Exception
    {
        final WarmUp warmUp = new WarmUp(table(RULES), PORT_MAC);
        try (Arena arena = Arena.ofConfined())
        {
            assertThat(warmUp.next(arena.allocate(2048).address(), 100)).isZero();
        }
        assertThat(warmUp.delivered()).isZero();
    }

    @Test
    void shouldMakeWholeConnectionsThatAPipelineForwardsEveryFrameOf() throws Exception
    {
        final ServiceTable table = table(RULES);
        final Topology.Builder topology = new Topology.Builder()
            .port(0, PORT_MAC, 1500, IpAddress.parse("10.0.0.1"), IpAddress.parse("2001:db8::2"))
            .gatewayV4(0, 0x02_00_00_00_77_01L);
        for (final RealServer server : table.allServers())
        {
            topology.neighbour(server.address(), 0, 0x02_00_00_00_77_02L);
        }
        final DataPlanePublisher publisher = new DataPlanePublisher(new DataPlaneBuilder(8, 16).build(table,
            topology.build(), new ConnectionTimeouts(), DataPlaneSettings.defaults()));
        final Pipeline pipeline = new Pipeline(publisher, 0, 1 << 16, 1 << 10, 8, 16, 0);
        final WarmUp warmUp = new WarmUp(table, PORT_MAC);
        // Two address services: sixteen passes over the clients of each make every frame of their first connections.
        final int frames = WarmUp.PHASES * CLIENTS * 2;
        final int[] kinds = new int[12];
        final FrameBurst burst = new FrameBurst();
        final int[] kind = new int[32];
        int given = 0;
        try (Arena arena = Arena.ofConfined())
        {
            final long memory = arena.allocate((long)32 * STRIDE, 64).address();
            long now = 1_000_000_000L;
            while (given - kinds[6] - kinds[7] - kinds[8] - kinds[9] < frames)
            {
                burst.clear();
                for (int i = 0; i < 32 && given - kinds[6] - kinds[7] - kinds[8] - kinds[9] < frames; i++)
                {
                    final long frame = memory + (long)i * STRIDE + HEADROOM;
                    final int length = warmUp.next(frame, STRIDE - HEADROOM);
                    assertThat(length).isGreaterThanOrEqualTo(60);
                    kind[i] = check(frame, length, given);
                    kinds[kind[i]]++;
                    given++;
                    burst.add(frame, length, STRIDE - HEADROOM, HEADROOM, now);
                }
                pipeline.process(burst, now);
                for (int i = 0; i < burst.count; i++)
                {
                    assertThat(Verdict.toString(burst.verdict(i))).as("frame %d, kind %d", given - burst.count + i,
                        kind[i]).isEqualTo(kind[i] == 6 ? "drop:bad-ip-version" : kind[i] >= 7 && kind[i] <= 9 ? "pass" :
                        "transmit:0");
                }
                now += 10_000;
            }
        }
        assertThat(warmUp.delivered()).isEqualTo(given);
        assertThat(kinds[6]).as("one malformed frame in %d", WarmUp.MALFORMED_EVERY)
            .isEqualTo(given / WarmUp.MALFORMED_EVERY);
        final int forHost = given / WarmUp.HOST_EVERY - given / (WarmUp.HOST_EVERY * WarmUp.MALFORMED_EVERY);
        assertThat(kinds[7] + kinds[8] + kinds[9]).as("one frame for the host in %d", WarmUp.HOST_EVERY)
            .isEqualTo(forHost);
        assertThat(List.of(kinds[7], kinds[8], kinds[9])).as("ARP requests, pings and solicitations by turns")
            .allMatch(count -> Math.abs(count - forHost / 3) <= 1);
        // SYNs, ACKs, FINs and the servers' ACKs of the TCP service; datagrams of the UDP one, half without a checksum.
        // The UDP service's flows: nine datagrams of the client's and seven of the server's in sixteen passes.
        assertThat(kinds).containsExactly(CLIENTS, 7 * CLIENTS, CLIENTS, 7 * CLIENTS, 9 * CLIENTS / 2, 9 * CLIENTS / 2,
            given / WarmUp.MALFORMED_EVERY, kinds[7], kinds[8], kinds[9], 7 * CLIENTS / 2, 7 * CLIENTS / 2);
        assertThat(pipeline.connectionsV4().size()).isEqualTo(2 * CLIENTS);
        // Most frames follow a connection in the fast loop, as on a wire: each TCP connection's ACKs (the one that
        // establishes it and the six data ACKs) and its FIN, every datagram of a UDP client after its first (eight of
        // nine) and every answer of the servers (seven a connection of each service, none of which moves its state);
        // the malformed frames and the ARP requests end there too, dropped and passed. The SYNs, each UDP client's
        // first datagram and a ping go the general way.
        assertThat(pipeline.counters().fastPath()).isEqualTo((8L + 8 + 7 + 7) * CLIENTS + kinds[6] + kinds[7]);
    }

    /**
     * Checks the frame's framing and checksums.
     *
     * @return 0 SYN, 1 ACK, 2 FIN, 3 a server's ACK, 4 UDP, 5 UDP without a checksum, 6 malformed (IP version 6),
     *         7 an ARP request, 8 a ping of a VIP, 9 an IPv6 neighbour solicitation, 10 a UDP server's answer, 11
     *         one without a checksum.
     */
    private static int check(final long frame, final int length, final int n)
    {
        if (Frames.u16(frame + EthernetHeader.TYPE_OFFSET) == EthernetHeader.TYPE_ARP)
        {
            assertThat(EthernetHeader.destination(frame)).as("frame %d, broadcast", n).isEqualTo(0xFFFF_FFFF_FFFFL);
            assertThat(Frames.u16(frame + EthernetHeader.LENGTH + 6)).as("a request").isOne();
            assertThat(Frames.i32(frame + EthernetHeader.LENGTH + 24)).as("for the VIP")
                .isEqualTo(IpAddress.parse("10.0.0.100").v4());
            return 7;
        }
        if (Frames.u16(frame + EthernetHeader.TYPE_OFFSET) == EthernetHeader.TYPE_IPV6)
        {
            final long ip = frame + EthernetHeader.LENGTH;
            assertThat(Frames.u8(ip + 6)).as("ICMPv6").isEqualTo(58);
            assertThat(Frames.u8(ip + 40)).as("a neighbour solicitation").isEqualTo(135);
            assertThat(Checksums.isTransportChecksumValidV6(ip + 8, 58, ip + 40, Frames.u16(ip + 4))).isTrue();
            return 9;
        }
        assertThat(EthernetHeader.destination(frame)).as("frame %d's MAC", n).isEqualTo(PORT_MAC);
        assertThat(Frames.u16(frame + EthernetHeader.TYPE_OFFSET)).isEqualTo(EthernetHeader.TYPE_IPV4);
        final long ip = frame + EthernetHeader.LENGTH;
        if (Frames.u8(ip + Ipv4Header.PROTOCOL_OFFSET) == 1)
        {
            assertThat(Checksums.isIpv4HeaderChecksumValid(ip)).isTrue();
            assertThat(Frames.u8(ip + 20)).as("an echo request").isEqualTo(8);
            final int total = Frames.u16(ip + Ipv4Header.TOTAL_LENGTH_OFFSET);
            assertThat(Checksums.checksum(ip + 20, total - 20)).as("its checksum").isZero();
            return 8;
        }
        if (Frames.u8(ip) >> 4 == 6)
        {
            assertThat(n % WarmUp.MALFORMED_EVERY).as("frame %d", n).isEqualTo(WarmUp.MALFORMED_EVERY - 1);
            return 6;
        }
        assertThat(Checksums.isIpv4HeaderChecksumValid(ip)).isTrue();
        final int total = Frames.u16(ip + Ipv4Header.TOTAL_LENGTH_OFFSET);
        assertThat(EthernetHeader.LENGTH + total).isLessThanOrEqualTo(length);
        final int protocol = Frames.u8(ip + Ipv4Header.PROTOCOL_OFFSET);
        if (protocol == Ipv4Header.PROTOCOL_UDP)
        {
            final boolean reply = Frames.i32(ip + Ipv4Header.SOURCE_OFFSET) == IpAddress.parse("192.168.1.9").v4();
            if (!reply)
            {
                assertThat(Frames.i32(ip + Ipv4Header.DESTINATION_OFFSET)).isEqualTo(IpAddress.parse("10.0.0.101").v4());
            }
            final int client = Frames.i32(ip + (reply ? Ipv4Header.DESTINATION_OFFSET : Ipv4Header.SOURCE_OFFSET));
            if (Frames.u16(ip + 20 + L4Headers.UDP_CHECKSUM_OFFSET) == 0)
            {
                // No checksum (RFC 768): every other client and its server send their datagrams so.
                assertThat(client & 1).as("frame %d's client", n).isOne();
                return reply ? 11 : 5;
            }
            assertThat(Checksums.isTransportChecksumValidV4(ip + Ipv4Header.SOURCE_OFFSET, protocol, ip + 20, total - 20))
                .as("frame %d's checksum", n).isTrue();
            return reply ? 10 : 4;
        }
        assertThat(Checksums.isTransportChecksumValidV4(ip + Ipv4Header.SOURCE_OFFSET, protocol, ip + 20, total - 20))
            .as("frame %d's checksum", n).isTrue();
        final int flags = Frames.u8(ip + 20 + L4Headers.TCP_FLAGS_OFFSET);
        if (Frames.u16(ip + 20) == 8080)
        {
            assertThat(flags).isEqualTo(L4Headers.TCP_ACK);
            return 3;
        }
        assertThat(Frames.i32(ip + Ipv4Header.DESTINATION_OFFSET)).isEqualTo(IpAddress.parse("10.0.0.100").v4());
        return flags == L4Headers.TCP_SYN ? 0 : flags == L4Headers.TCP_ACK ? 1 : 2;
    }

    private static ServiceTable table(final String... lines) throws RuleException
    {
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        RulesFile.apply("warm.rules", RulesFile.parse("warm.rules", List.of(lines)), table);
        return table;
    }
}
