package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;
import io.jvs.core.stats.TrafficLedger;
import io.jvs.core.stats.TrafficStats;
import org.junit.jupiter.api.Test;

import static io.jvs.core.pipeline.TestFrames.*;
import static io.jvs.core.stats.TrafficStatsDescriptor.CONNECTIONS;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_PACKETS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The figures {@code ipvsadm --stats}, {@code --rate} and {@code -Z} report, from live pipeline counters: counted
 * since a service or server joined; {@code -Z} of one service starts it and its servers again and leaves the
 * others alone; {@code -Z} of all starts everything again; a server deleted and added back while its connections
 * live is taken back with its figures (the kernel's destination trash), one added back after they ended is a new
 * one, from zero; rates come from the estimator's samples.
 */
class TrafficLedgerTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress WEB = IpAddress.parse("10.0.0.100");
    private static final IpAddress DNS = IpAddress.parse("10.0.0.53");

    private PipelineFixture farm()
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m",
                "-A -u 10.0.0.53:53 -s rr", "-a -u 10.0.0.53:53 -r 192.168.1.3:53 -m")
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L)
            .neighbour("192.168.1.3", 0x02_00_00_00_01_03L)
            .start();
    }

    private static void traffic(final PipelineFixture farm, final int webPackets, final int dnsPackets)
    {
        for (int i = 0; i < webPackets; i++)
        {
            farm.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, WEB, 64, Segment.tcp(40000, 80, i == 0 ? SYN : ACK, 10)));
        }
        for (int i = 0; i < dnsPackets; i++)
        {
            farm.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, DNS, 64, Segment.udp(5000 + i, 53, 20)));
        }
    }

    @Test
    void shouldCountSinceJoiningAndZeroOneServiceOrAll()
    {
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = new TrafficLedger(new TrafficStats[] {farm.pipeline.traffic()});
        traffic(farm, 3, 0);
        ledger.observe(farm.publisher.current());
        traffic(farm, 2, 4);

        final VirtualService web = service(farm, WEB);
        final VirtualService dns = service(farm, DNS);
        // The web service was in the first snapshot the ledger saw, with 3 packets already counted: they stay out.
        assertThat(ledger.of(web).count(IN_PACKETS)).isEqualTo(2);
        assertThat(ledger.of(web).count(CONNECTIONS)).isZero();
        assertThat(ledger.of(dns).count(IN_PACKETS)).isEqualTo(4);
        assertThat(ledger.of(dns).count(CONNECTIONS)).isEqualTo(4);
        assertThat(ledger.of(server(farm, "192.168.1.3")).count(IN_BYTES))
            .isEqualTo(ledger.of(dns).count(IN_BYTES)).isPositive();

        ledger.zero(dns);
        assertThat(ledger.of(dns).count(IN_PACKETS)).isZero();
        assertThat(ledger.of(server(farm, "192.168.1.3")).count(IN_PACKETS)).as("the service's server").isZero();
        assertThat(ledger.of(web).count(IN_PACKETS)).as("another service").isEqualTo(2);
        traffic(farm, 0, 1);
        assertThat(ledger.of(dns).count(IN_PACKETS)).isEqualTo(1);

        ledger.zeroAll();
        assertThat(ledger.of(web).count(IN_PACKETS)).isZero();
        assertThat(ledger.of(server(farm, "192.168.1.2")).count(IN_PACKETS)).isZero();
        assertThat(ledger.of(dns).count(CONNECTIONS)).isZero();
    }

    @Test
    void shouldGoOnCountingAServerAddedBackWhileItsConnectionsLive()
    {
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = new TrafficLedger(new TrafficStats[] {farm.pipeline.traffic()});
        ledger.observe(farm.publisher.current());
        traffic(farm, 0, 5);
        final RealServer before = server(farm, "192.168.1.3");
        assertThat(ledger.of(before).count(IN_PACKETS)).isEqualTo(5);

        farm.rules("-d -u 10.0.0.53:53 -r 192.168.1.3:53", "-a -u 10.0.0.53:53 -r 192.168.1.3:53 -m");
        farm.republish();
        ledger.observe(farm.publisher.current());

        assertThat(server(farm, "192.168.1.3")).as("taken back: its 5 connections live").isSameAs(before);
        assertThat(ledger.of(before).count(IN_PACKETS)).isEqualTo(5);
        // An old client's query follows its connection, a new client's opens one.
        farm.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, DNS, 64, Segment.udp(5000, 53, 20)));
        farm.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, DNS, 64, Segment.udp(6000, 53, 20)));
        assertThat(ledger.of(before).count(IN_PACKETS)).isEqualTo(7);
        assertThat(ledger.of(before).count(CONNECTIONS)).isEqualTo(6);
    }

    @Test
    void shouldStartAServerAddedBackAfterItsConnectionsEndedFromZero()
    {
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = new TrafficLedger(new TrafficStats[] {farm.pipeline.traffic()});
        ledger.observe(farm.publisher.current());
        traffic(farm, 0, 5);
        final RealServer before = server(farm, "192.168.1.3");
        assertThat(ledger.of(before).count(IN_PACKETS)).isEqualTo(5);

        farm.rules("-d -u 10.0.0.53:53 -r 192.168.1.3:53");
        farm.republish();
        // UDP entries last 300 s: the sweep ends them, and the next snapshot releases the idle server's slot.
        farm.nowNs += 301 * 1_000_000_000L;
        farm.pipeline.sweep(farm.nowNs, farm.pipeline.connectionsV4().slots());
        assertThat(before.totalConnections()).isZero();
        farm.republish();
        farm.rules("-a -u 10.0.0.53:53 -r 192.168.1.3:53 -m");
        farm.republish();
        ledger.observe(farm.publisher.current());

        final RealServer after = server(farm, "192.168.1.3");
        assertThat(after).isNotSameAs(before);
        assertThat(ledger.of(after).count(IN_PACKETS)).as("a new destination").isZero();
        farm.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, DNS, 64, Segment.udp(6000, 53, 20)));
        farm.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, DNS, 64, Segment.udp(6001, 53, 20)));
        assertThat(ledger.of(after).count(IN_PACKETS)).isEqualTo(2);
    }

    @Test
    void shouldGiveTheEstimatorsRatesAfterASample()
    {
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = new TrafficLedger(new TrafficStats[] {farm.pipeline.traffic()});
        ledger.observe(farm.publisher.current());
        traffic(farm, 0, 8);
        ledger.sample();
        final VirtualService dns = service(farm, DNS);
        // 8 packets in the first 2 s: (8 << 9) >> 2 = 1024 scaled; (1024 + 511) >> 10 = 1 packet per second.
        assertThat(ledger.of(dns).rate(IN_PACKETS)).isEqualTo(1);
        assertThat(ledger.of(dns).rate(CONNECTIONS)).isEqualTo(1);
        ledger.zero(dns);
        assertThat(ledger.of(dns).rate(IN_PACKETS)).isZero();
    }

    private static VirtualService service(final PipelineFixture farm, final IpAddress vip)
    {
        return farm.table.services().stream().filter(service -> service.key().address().equals(vip)).findFirst()
            .orElseThrow();
    }

    private static RealServer server(final PipelineFixture farm, final String address)
    {
        return farm.table.allServers().stream().filter(server -> server.address().equals(IpAddress.parse(address)))
            .findFirst().orElseThrow();
    }
}
