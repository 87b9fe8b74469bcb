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
import static io.jvs.core.stats.TrafficStatsDescriptor.FIELDS;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_PACKETS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ledger's slots as the service table changes under it and as {@code -Z} starts figures again: a deleted
 * service, or a deleted server without connections, is no longer reported; one added back is a new one; a server
 * taken back by a service created again under its key starts from zero, one added back to its own goes on; and every
 * zero leaves each service and server at zero whatever was read before it, with a service whose servers each carry
 * only part of its traffic.
 */
class TrafficLedgerSlotsTest
{
    private static final IpAddress CLIENT = IpAddress.parse("198.51.100.7");
    private static final IpAddress WEB = IpAddress.parse("10.0.0.100");
    private static final IpAddress DNS = IpAddress.parse("10.0.0.53");

    private PipelineFixture farm()
    {
        return new PipelineFixture()
            .rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m",
                "-a -t 10.0.0.100:80 -r 192.168.1.4:8080 -m",
                "-A -u 10.0.0.53:53 -s rr", "-a -u 10.0.0.53:53 -r 192.168.1.3:53 -m")
            .neighbour("192.168.1.2", 0x02_00_00_00_01_02L)
            .neighbour("192.168.1.3", 0x02_00_00_00_01_03L)
            .neighbour("192.168.1.4", 0x02_00_00_00_01_04L)
            .start();
    }

    /** New web connections, one SYN each (rr: they alternate between the two servers), and DNS queries. */
    private static void traffic(final PipelineFixture farm, final int webConnections, final int dnsQueries,
        final int firstPort)
    {
        for (int i = 0; i < webConnections; i++)
        {
            farm.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, WEB, 64, Segment.tcp(firstPort + i, 80, SYN, 0)));
        }
        for (int i = 0; i < dnsQueries; i++)
        {
            farm.sendOne(frame(JVS_MAC, ROUTER_MAC, CLIENT, DNS, 64, Segment.udp(firstPort + i, 53, 20)));
        }
    }

    private static TrafficLedger ledger(final PipelineFixture farm)
    {
        final TrafficLedger ledger = new TrafficLedger(new TrafficStats[] {farm.pipeline.traffic()});
        ledger.observe(farm.publisher.current());
        return ledger;
    }

    @Test
    void shouldReportNoFiguresForAServiceOrServerOnceASnapshotNoLongerHoldsIt()
    {
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = ledger(farm);
        traffic(farm, 0, 3, 40000);
        final VirtualService web = service(farm, WEB);
        final RealServer second = server(farm, "192.168.1.4");
        final VirtualService dns = service(farm, DNS);
        assertThat(ledger.of(dns).count(IN_PACKETS)).isEqualTo(3);
        assertThat(ledger.of(second).count(IN_PACKETS)).isZero();

        // The second web server has no connection, so the next snapshot drops it at once (a server with
        // connections keeps its slot, and its figures, until they end).
        farm.rules("-d -t 10.0.0.100:80 -r 192.168.1.4:8080", "-D -u 10.0.0.53:53");
        farm.republish();
        ledger.observe(farm.publisher.current());

        assertThat(ledger.of(dns)).as("deleted service").isNull();
        assertThat(ledger.of(second)).as("deleted server").isNull();
        assertThat(ledger.of(web).counts()).as("the service that stays").containsOnly(0L);
        assertThat(ledger.of(server(farm, "192.168.1.2"))).as("the server that stays").isNotNull();
    }

    @Test
    void shouldStartAServiceAddedBackFromZeroAndForgetTheOldOne()
    {
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = ledger(farm);
        traffic(farm, 0, 3, 40000);
        final VirtualService before = service(farm, DNS);

        farm.rules("-D -u 10.0.0.53:53", "-A -u 10.0.0.53:53 -s rr", "-a -u 10.0.0.53:53 -r 192.168.1.3:53 -m");
        farm.republish();
        ledger.observe(farm.publisher.current());

        final VirtualService after = service(farm, DNS);
        assertThat(after).isNotSameAs(before);
        assertThat(ledger.of(before)).as("the deleted one").isNull();
        assertThat(ledger.of(after).count(IN_PACKETS)).isZero();
        traffic(farm, 0, 2, 50000);
        assertThat(ledger.of(after).count(IN_PACKETS)).isEqualTo(2);
    }

    @Test
    void shouldForgetTheOldServiceWhenANewOneTakesItsSlotInTheSameSnapshot()
    {
        // A service without connections, deleted and added back in one change: the new one may take the very slot
        // the old one held, and the ledger never sees the slot empty.
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = ledger(farm);
        final VirtualService before = service(farm, WEB);

        farm.rules("-D -t 10.0.0.100:80", "-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m");
        farm.republish();
        ledger.observe(farm.publisher.current());

        final VirtualService after = service(farm, WEB);
        assertThat(after).isNotSameAs(before);
        assertThat(ledger.of(before)).as("the deleted one").isNull();
        assertThat(ledger.of(after).counts()).containsOnly(0L);
        traffic(farm, 3, 0, 50000);
        assertThat(ledger.of(after).count(CONNECTIONS)).isEqualTo(3);
    }

    @Test
    void shouldStartAServerTakenBackByAServiceCreatedAgainFromZeroAndKeepOneAddedBackToItsOwn()
    {
        // 16 SYNs, rr: 8 connections a server in the first two seconds, a rate of 1 a second after a sample.
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = ledger(farm);
        traffic(farm, 16, 0, 40000);
        ledger.sample();
        final RealServer first = server(farm, "192.168.1.2");
        assertThat(ledger.of(first).count(CONNECTIONS)).isEqualTo(8);
        assertThat(ledger.of(first).rate(CONNECTIONS)).isEqualTo(1);

        // -d then -a: ip_vs_trash_get_dest gives it back to the same service object, which keeps its stats.
        change(farm, ledger, "-d -t 10.0.0.100:80 -r 192.168.1.2:8080");
        change(farm, ledger, "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m");
        assertThat(server(farm, "192.168.1.2")).isSameAs(first);
        assertThat(ledger.of(first).count(CONNECTIONS)).isEqualTo(8);
        assertThat(ledger.of(first).rate(CONNECTIONS)).isEqualTo(1);

        // -D, -A, -a (a keepalived restart): a new service object takes it back; __ip_vs_update_dest sees
        // old_svc != svc and zeroes its stats and estimator, as -Z would.
        change(farm, ledger, "-D -t 10.0.0.100:80");
        change(farm, ledger, "-A -t 10.0.0.100:80 -s rr");
        change(farm, ledger, "-a -t 10.0.0.100:80 -r 192.168.1.2:8080 -m");
        assertThat(server(farm, "192.168.1.2")).as("taken back with its connections").isSameAs(first);
        assertThat(first.totalConnections()).isEqualTo(8);
        assertThat(ledger.of(first).counts()).containsOnly(0L);
        assertThat(ledger.of(first).rates()).containsOnly(0L);

        traffic(farm, 1, 0, 50000);
        assertThat(ledger.of(first).count(CONNECTIONS)).as("counted again from the add").isEqualTo(1);
        assertThat(ledger.of(service(farm, WEB)).count(CONNECTIONS)).as("as its new service").isEqualTo(1);
    }

    /** One ipvsadm command as the daemon applies it: a snapshot published and shown to the ledger. */
    private static void change(final PipelineFixture farm, final TrafficLedger ledger, final String rule)
    {
        farm.rules(rule);
        farm.republish();
        ledger.observe(farm.publisher.current());
    }

    @Test
    void shouldZeroAServiceAndEachOfItsServersWhateverWasReadBefore()
    {
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = ledger(farm);
        traffic(farm, 5, 2, 40000);
        final VirtualService web = service(farm, WEB);
        final RealServer first = server(farm, "192.168.1.2");
        final RealServer second = server(farm, "192.168.1.4");
        assertThat(ledger.of(first).count(CONNECTIONS) + ledger.of(second).count(CONNECTIONS)).isEqualTo(5);
        assertThat(ledger.of(first).count(CONNECTIONS)).isNotEqualTo(ledger.of(second).count(CONNECTIONS));

        // The last figures read are another service's.
        assertThat(ledger.of(service(farm, DNS)).count(IN_PACKETS)).isEqualTo(2);
        ledger.zero(web);
        assertThat(ledger.of(web).counts()).containsOnly(0L);
        assertThat(ledger.of(first).counts()).containsOnly(0L);
        assertThat(ledger.of(second).counts()).containsOnly(0L);
        assertThat(ledger.of(service(farm, DNS)).count(IN_PACKETS)).as("another service").isEqualTo(2);
    }

    @Test
    void shouldZeroEveryServiceAndServerWhateverWasReadBefore()
    {
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = ledger(farm);
        traffic(farm, 5, 2, 40000);
        final VirtualService web = service(farm, WEB);
        final VirtualService dns = service(farm, DNS);
        assertThat(ledger.of(web).count(IN_PACKETS)).isEqualTo(5);

        ledger.zeroAll();
        for (final Object each : new Object[] {web, dns, server(farm, "192.168.1.2"), server(farm, "192.168.1.3"),
            server(farm, "192.168.1.4")})
        {
            final TrafficLedger.Figures figures = each instanceof VirtualService service ? ledger.of(service)
                : ledger.of((RealServer)each);
            assertThat(figures.counts()).as(each.toString()).containsOnly(0L);
        }
        traffic(farm, 1, 0, 50000);
        assertThat(ledger.of(web).count(IN_PACKETS)).isEqualTo(1);
        assertThat(ledger.of(dns).count(IN_PACKETS)).isZero();
    }

    @Test
    void shouldMoveEachServersRatesAtASample()
    {
        final PipelineFixture farm = farm();
        final TrafficLedger ledger = ledger(farm);
        traffic(farm, 0, 8, 40000);
        ledger.sample();
        // 8 queries in the first 2 s: (8 << 9) >> 2 = 1024 scaled; (1024 + 511) >> 10 = 1 per second.
        final TrafficLedger.Figures resolver = ledger.of(server(farm, "192.168.1.3"));
        assertThat(resolver.rate(IN_PACKETS)).isEqualTo(1);
        assertThat(resolver.rate(CONNECTIONS)).isEqualTo(1);
        assertThat(resolver.rates()).hasSize(FIELDS).containsExactly(resolver.rate(0), resolver.rate(1),
            resolver.rate(2), resolver.rate(3), resolver.rate(4));
        assertThat(resolver.counts()).hasSize(FIELDS);
        assertThat(resolver.counts()[IN_BYTES]).isEqualTo(resolver.count(IN_BYTES)).isPositive();
        assertThat(ledger.of(server(farm, "192.168.1.2")).rates()).as("no web traffic").containsOnly(0L);
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
