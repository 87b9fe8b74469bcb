package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.TestFrames.Segment;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration's mark rules: a frame without a mark gets the first matching rule's before the
 * services are looked up, and so reaches a firewall-mark ({@code -f}) service.
 */
class PipelineMarkTest
{
    private static final long MAC_A = 0x02_00_00_00_01_01L;
    private static final long MAC_B = 0x02_00_00_00_01_02L;
    private static final long MAC_C = 0x02_00_00_00_01_03L;
    private static final long MAC_V6 = 0x02_00_00_00_01_06L;
    private static final IpAddress VIP = IpAddress.parse("10.0.0.50");
    private static final IpAddress VIP6 = IpAddress.parse("2001:db8::100");

    private static PipelineFixture fixture(final MarkRule... rules)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -f 1 -s rr", "-a -f 1 -r 192.168.1.1:0 -m",
                "-A -f 2 -s rr", "-a -f 2 -r 192.168.1.2:0 -m",
                "-A -f 3 -s rr", "-a -f 3 -r 192.168.1.3:0 -m",
                "-A -f 1 -6 -s rr", "-a -f 1 -6 -r [2001:db8:1::6]:0 -m")
            .neighbour("192.168.1.1", MAC_A)
            .neighbour("192.168.1.2", MAC_B)
            .neighbour("192.168.1.3", MAC_C)
            .neighbour("2001:db8:1::6", MAC_V6);
        fixture.topology.port(1, JVS_MAC + 1, 1500, IpAddress.parse("10.1.0.1"), null);
        fixture.marks.addAll(java.util.List.of(rules));
        return fixture.start();
    }

    /** The rules most tests use, in order. */
    private static PipelineFixture standard()
    {
        return fixture(
            new MarkRule(1, MarkRule.ANY_PORT, IpPrefix.parse("198.51.100.0/24"), null, 0, 0),
            new MarkRule(2, MarkRule.ANY_PORT, null, IpPrefix.parse("10.0.0.0/8"), TCP, 443),
            new MarkRule(3, 1, null, null, 0, 0),
            new MarkRule(1, MarkRule.ANY_PORT, IpPrefix.parse("2001:db8:aaaa::/48"), null, 0, 0));
    }

    private static byte[] tcp(final String client, final IpAddress destination, final int port)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.parse(client), destination, 64, Segment.tcp(40000, port, SYN, 0));
    }

    private static byte[] udp(final String client, final IpAddress destination, final int port)
    {
        return frame(JVS_MAC, ROUTER_MAC, IpAddress.parse(client), destination, 64, Segment.udp(40000, port, 8));
    }

    @Test
    void shouldGiveTheMarkOfTheFirstRuleThatMatches()
    {
        final PipelineFixture fixture = standard();
        // Both the first rule (source) and the second (destination, tcp, 443) match: the first wins.
        final PipelineFixture.Result result = fixture.sendOne(tcp("198.51.100.7", VIP, 443));
        assertThat(fixture.burst.firewallMark(0)).isEqualTo(1);
        assertThat(Verdict.kind(result.verdict())).isEqualTo(Verdict.TRANSMIT);
        assertThat(mac(result.frame(), 0)).as("reached the -f 1 service's server").isEqualTo(MAC_A);
        assertThat(fixture.pipeline.serviceOf(0)).isNotEqualTo(ServiceClassifier.NONE);
    }

    @Test
    void shouldMatchProtocolAndDestinationPort()
    {
        final PipelineFixture fixture = standard();
        assertThat(mac(fixture.sendOne(tcp("203.0.113.9", VIP, 443)).frame(), 0)).isEqualTo(MAC_B);
        assertThat(fixture.burst.firewallMark(0)).isEqualTo(2);

        fixture.sendOne(udp("203.0.113.9", VIP, 443));
        assertThat(fixture.burst.firewallMark(0)).as("udp is not the rule's protocol").isZero();
        assertThat(fixture.pipeline.serviceOf(0)).isEqualTo(ServiceClassifier.NONE);

        fixture.sendOne(tcp("203.0.113.9", VIP, 444));
        assertThat(fixture.burst.firewallMark(0)).as("444 is not the rule's port").isZero();

        fixture.sendOne(tcp("203.0.113.9", IpAddress.parse("11.0.0.1"), 443));
        assertThat(fixture.burst.firewallMark(0)).as("outside the destination prefix").isZero();
    }

    @Test
    void shouldMatchTheIngressPort()
    {
        final PipelineFixture fixture = standard();
        fixture.sendOne(tcp("203.0.113.9", VIP, 80));
        assertThat(fixture.burst.firewallMark(0)).as("port 0 matches no rule").isZero();

        fixture.ingressPort = 1;
        final PipelineFixture.Result result = fixture.sendOne(tcp("203.0.113.9", VIP, 80));
        assertThat(fixture.burst.firewallMark(0)).isEqualTo(3);
        assertThat(mac(result.frame(), 0)).isEqualTo(MAC_C);
    }

    @Test
    void shouldMatchIpv6PrefixesAndKeepTheFamiliesApart()
    {
        final PipelineFixture fixture = standard();
        final PipelineFixture.Result result = fixture.sendOne(tcp("2001:db8:aaaa:1::5", VIP6, 80));
        assertThat(fixture.burst.firewallMark(0)).isEqualTo(1);
        assertThat(mac(result.frame(), 0)).as("the IPv6 -f 1 service").isEqualTo(MAC_V6);

        fixture.sendOne(tcp("2001:db8:aaab::5", VIP6, 80));
        assertThat(fixture.burst.firewallMark(0)).as("outside the /48").isZero();

        // The IPv4 rules match no IPv6 frame, even one whose low bits would fall in their prefixes.
        fixture.sendOne(tcp("::ffff:198.51.100.7", VIP6, 443));
        assertThat(fixture.burst.firewallMark(0)).isZero();
    }

    @Test
    void shouldMatchEverythingOfAFamilyWithAZeroLengthPrefix()
    {
        final PipelineFixture fixture = fixture(
            new MarkRule(2, MarkRule.ANY_PORT, null, IpPrefix.parse("0.0.0.0/0"), UDP, 0));
        final PipelineFixture.Result result = fixture.sendOne(udp("203.0.113.9", IpAddress.parse("172.16.9.9"), 53));
        assertThat(fixture.burst.firewallMark(0)).isEqualTo(2);
        assertThat(mac(result.frame(), 0)).isEqualTo(MAC_B);
        fixture.sendOne(udp("2001:db8::9", VIP6, 53));
        assertThat(fixture.burst.firewallMark(0)).as("an IPv4 prefix, even /0, is not IPv6").isZero();
    }

    @Test
    void shouldLeaveAFrameThatAlreadyHasAMark()
    {
        final PipelineFixture fixture = standard();
        fixture.firewallMark = 2;
        final PipelineFixture.Result result = fixture.sendOne(tcp("198.51.100.7", VIP, 80));
        assertThat(fixture.burst.firewallMark(0)).isEqualTo(2);
        assertThat(mac(result.frame(), 0)).as("its own mark's service, not rule 1's").isEqualTo(MAC_B);
    }

    @Test
    void shouldMarkNothingWithoutRules()
    {
        final PipelineFixture fixture = fixture();
        fixture.sendOne(tcp("198.51.100.7", VIP, 443));
        assertThat(fixture.burst.firewallMark(0)).isZero();
        assertThat(fixture.pipeline.serviceOf(0)).isEqualTo(ServiceClassifier.NONE);
        assertThat(fixture.publisher.current().markRules()).isEmpty();
    }
}
