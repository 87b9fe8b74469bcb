package io.jvs.core.pipeline;

import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.pipeline.TestFrames.Segment;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.VirtualService;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static io.jvs.core.pipeline.TestFrames.*;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The templates as a lister on another thread reads them ({@code ipvsadm -L -c}): each with its service, its client
 * network as masked, its server and its deadline; only while the pipeline would follow it; none of a deleted
 * service; and never a mix of two templates while workers create and retire them in the same ways.
 */
class TemplateTableListingTest
{
    private static final long SECOND_NS = 1_000_000_000L;
    private static final IpAddress VIP = IpAddress.parse("10.0.0.100");
    private static final IpAddress VIP6 = IpAddress.parse("2001:db8::100");

    /** One template as listed. */
    private record Listed(int service, long networkHigh, long networkLow, int server, long deadlineNs, int controlled)
    {
    }

    private static List<Listed> list(final TemplateTable templates, final DataPlane plane, final long nowNs)
    {
        final List<Listed> listed = new ArrayList<>();
        templates.list(plane, nowNs, (service, high, low, server, deadline, controlled, assured) ->
            listed.add(new Listed(service, high, low, server, deadline, controlled)));
        return listed;
    }

    private static PipelineFixture farm(final TemplateTable shared)
    {
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:443 -s rr -p 360 -M 255.255.255.0",
                "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m",
                "-A -t [2001:db8::100]:443 -s rr -p 60 -M 64", "-a -t [2001:db8::100]:443 -r [2001:db8:1::1]:443 -m",
                "-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m")
            .neighbour("192.168.1.1", 0x02_00_00_00_01_01L)
            .neighbour("2001:db8:1::1", 0x02_00_00_00_01_02L)
            .start();
        fixture.pipeline = new Pipeline(fixture.publisher, 0, 1024, 1024, 64, 256, 100, OffHeapAllocator.DIRECT,
            shared);
        return fixture;
    }

    private static int slotOf(final DataPlane plane, final IpAddress vip, final int port)
    {
        for (int slot = 0; slot < plane.serviceCount(); slot++)
        {
            final VirtualService service = plane.service(slot);
            if (service != null && service.key().address().equals(vip) && service.key().port() == port)
            {
                return slot;
            }
        }
        throw new AssertionError("no service " + vip + ":" + port);
    }

    private static void syn(final PipelineFixture fixture, final String client, final IpAddress vip, final int port,
        final int clientPort)
    {
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, IpAddress.parse(client), vip, 64,
            Segment.tcp(clientPort, port, SYN, 0)));
    }

    @Test
    void shouldListEachNetworksTemplateWithItsServiceServerAndDeadline()
    {
        final TemplateTable shared = new TemplateTable(64);
        final PipelineFixture fixture = farm(shared);
        final long start = fixture.nowNs;
        syn(fixture, "198.51.100.7", VIP, 443, 1000);
        syn(fixture, "198.51.100.9", VIP, 443, 1001);
        fixture.nowNs += 5 * SECOND_NS;
        syn(fixture, "203.0.113.5", VIP, 443, 1000);
        syn(fixture, "2001:db8:aaaa:bbbb:1:2:3:4", VIP6, 443, 1000);
        syn(fixture, "198.51.100.7", VIP, 80, 1002);

        final DataPlane plane = fixture.publisher.current();
        final int web = slotOf(plane, VIP, 443);
        final int web6 = slotOf(plane, VIP6, 443);
        final int server4 = plane.slotOf(fixture.table.find(plane.service(web).key()).servers()[0]);
        final int server6 = plane.slotOf(fixture.table.find(plane.service(web6).key()).servers()[0]);
        assertThat(list(shared, plane, fixture.nowNs)).as("one a network, none for the service without -p")
            .containsExactlyInAnyOrder(
                new Listed(web, 0, 0xC633_6400L, server4, start + 360 * SECOND_NS, 2),
                new Listed(web, 0, 0xCB00_7100L, server4, fixture.nowNs + 360 * SECOND_NS, 1),
                new Listed(web6, 0x2001_0DB8_AAAA_BBBBL, 0, server6, fixture.nowNs + 60 * SECOND_NS, 1));
    }

    @Test
    void shouldListATemplateWhileThePipelineWouldFollowIt()
    {
        final TemplateTable shared = new TemplateTable(64);
        final PipelineFixture fixture = farm(shared);
        final long start = fixture.nowNs;
        syn(fixture, "198.51.100.7", VIP, 443, 1000);
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("198.51.100.7"), VIP, 64,
            Segment.tcp(1000, 443, ACK, 0)));
        syn(fixture, "2001:db8:aaaa:bbbb:1:2:3:4", VIP6, 443, 1000);
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("2001:db8:aaaa:bbbb:1:2:3:4"), VIP6, 64,
            Segment.tcp(1000, 443, RST | ACK, 0)));
        final DataPlane plane = fixture.publisher.current();
        assertThat(list(shared, plane, start + 30 * SECOND_NS)).hasSize(2);

        // 400 s on, the IPv6 connection has ended (its template 60 s and idle: gone), the established IPv4 one lives
        // on, and so does its template, though past its 360 s.
        final long past = start + 400 * SECOND_NS;
        fixture.nowNs = past;
        fixture.pipeline.sweep(past, fixture.pipeline.connectionsV6().slots());
        final List<Listed> later = list(shared, plane, past);
        assertThat(later).hasSize(1);
        assertThat(later.getFirst().networkLow()).isEqualTo(0xC633_6400L);
        assertThat(later.getFirst().controlled()).isEqualTo(1);
        assertThat(later.getFirst().deadlineNs()).isEqualTo(start + 360 * SECOND_NS);
        // The kernel re-arms such a template for 60 s at a time: 40 s past its deadline, 20 s are left.
        assertThat(TemplateTable.remainingNs(later.getFirst().deadlineNs(), past)).isEqualTo(20 * SECOND_NS);
        assertThat(TemplateTable.remainingNs(past + 7 * SECOND_NS, past)).as("before the deadline")
            .isEqualTo(7 * SECOND_NS);
        assertThat(TemplateTable.remainingNs(past, past)).isEqualTo(60 * SECOND_NS);
        assertThat(TemplateTable.remainingNs(past - 125 * SECOND_NS, past)).isEqualTo(55 * SECOND_NS);
    }

    @Test
    void shouldListTheTemplatesOfADeletedServiceUntilTheyExpire()
    {
        final TemplateTable shared = new TemplateTable(64);
        final PipelineFixture fixture = farm(shared);
        final long start = fixture.nowNs;
        syn(fixture, "198.51.100.7", VIP, 443, 1000);
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, IpAddress.parse("198.51.100.7"), VIP, 64,
            Segment.tcp(1000, 443, RST | ACK, 0)));
        syn(fixture, "2001:db8:aaaa:bbbb:1:2:3:4", VIP6, 443, 1000);
        final int web = slotOf(fixture.publisher.current(), VIP, 443);
        final int web6 = slotOf(fixture.publisher.current(), VIP6, 443);

        // Its server keeps its slot, and the service its own, while the template counts on it, as the kernel lists
        // a deleted service's templates until they expire.
        fixture.rules("-D -t 10.0.0.100:443");
        fixture.republish();
        final DataPlane plane = fixture.publisher.current();
        assertThat(plane.service(web)).isNull();
        assertThat(plane.serviceKey(web)).isEqualTo(ServiceKey.of(Protocol.TCP, VIP, 443));
        assertThat(list(shared, plane, fixture.nowNs)).extracting(Listed::service)
            .containsExactlyInAnyOrder(web, web6);
        final long later = start + 361 * SECOND_NS;
        fixture.pipeline.sweep(later, fixture.pipeline.connectionsV4().slots());
        assertThat(list(shared, plane, later)).as("expired: their connections ended and their timeouts passed")
            .isEmpty();
    }

    @Test
    void shouldKeepEachTemplatesNetworkWhenCopiedIntoALargerTable()
    {
        // PersistenceTemplates (the simulator's) grows its table by copying it.
        final TemplateTable shared = new TemplateTable(64);
        final PipelineFixture fixture = farm(shared);
        syn(fixture, "198.51.100.7", VIP, 443, 1000);
        syn(fixture, "203.0.113.5", VIP, 443, 1000);
        syn(fixture, "2001:db8:aaaa:bbbb:1:2:3:4", VIP6, 443, 1000);
        final DataPlane plane = fixture.publisher.current();
        final TemplateTable larger = new TemplateTable(256);
        shared.copyInto(larger);
        assertThat(list(larger, plane, fixture.nowNs)).hasSize(3)
            .containsExactlyInAnyOrderElementsOf(list(shared, plane, fixture.nowNs));
    }

    /**
     * A writer that keeps creating, re-arming and retiring templates of many networks in a small table (so its ways
     * are reused for other keys all the time), and a lister reading it meanwhile: every template listed is one the
     * writer made, whole: the network's own server, of the service the network was placed in.
     */
    @Test
    void shouldNeverListAMixOfTwoTemplatesWhileAWorkerReusesTheirWays() throws Exception
    {
        final TemplateTable shared = new TemplateTable(4);
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:443 -s rr -p 1", "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m",
                "-a -t 10.0.0.100:443 -r 192.168.1.2:443 -m", "-A -t 10.0.0.101:443 -s rr -p 1",
                "-a -t 10.0.0.101:443 -r 192.168.1.3:443 -m")
            .start();
        final DataPlane plane = fixture.publisher.current();
        final RealServer[] servers = new RealServer[plane.serverSlots()];
        for (int slot = 1; slot < servers.length; slot++)
        {
            servers[slot] = plane.server(slot);
        }
        final int first = slotOf(plane, VIP, 443);
        final int second = slotOf(plane, IpAddress.parse("10.0.0.101"), 443);
        final int[] firstServers = {
            plane.slotOf(plane.service(first).servers()[0]), plane.slotOf(plane.service(first).servers()[1])};
        final int secondServer = plane.slotOf(plane.service(second).servers()[0]);

        final AtomicBoolean done = new AtomicBoolean();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread writer = new Thread(() ->
        {
            final SplittableRandom random = new SplittableRandom(7);
            try
            {
                final long end = System.nanoTime() + 300_000_000L;
                for (int round = 0; System.nanoTime() - end < 0; round++)
                {
                    final long now = round * 100_000L;
                    final long network = random.nextInt(256);
                    final boolean inFirst = (network & 1) == 0;
                    // The writer's rule, which the lister checks: the server follows from the network.
                    final int server = inFirst ? firstServers[(int)(network >> 1) & 1] : secondServer;
                    final int group = plane.templateGroup[inFirst ? first : second];
                    shared.place(group, network << 32, network, server, servers, now, 500_000L);
                    if ((round & 7) == 0)
                    {
                        shared.sweepAll(now, servers);
                    }
                }
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
            finally
            {
                done.set(true);
            }
        });
        writer.start();
        long listings = 0;
        long seen = 0;
        while (!done.get())
        {
            for (final Listed listed : list(shared, plane, 0))
            {
                final long network = listed.networkLow();
                final boolean inFirst = (network & 1) == 0;
                assertThat(listed.networkHigh()).isEqualTo(network << 32);
                assertThat(listed.service()).isEqualTo(inFirst ? first : second);
                assertThat(listed.server()).isEqualTo(inFirst ? firstServers[(int)(network >> 1) & 1] : secondServer);
                seen++;
            }
            listings++;
        }
        writer.join();
        assertThat(failure.get()).isNull();
        assertThat(listings).isPositive();
        assertThat(seen).isPositive();
    }

    @Test
    void shouldShowATemplateAssuredOnceAConnectionItPlacedIsEstablishedOrAnswered()
    {
        final TemplateTable shared = new TemplateTable(64);
        final long serverMac = 0x02_00_00_00_01_01L;
        final PipelineFixture fixture = new PipelineFixture()
            .rules("-A -t 10.0.0.100:443 -s rr -p 360", "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m",
                "-A -u 10.0.0.100:53 -s rr -p 360", "-a -u 10.0.0.100:53 -r 192.168.1.1:53 -m")
            .neighbour("192.168.1.1", serverMac)
            .start();
        fixture.pipeline = new Pipeline(fixture.publisher, 0, 1024, 1024, 64, 256, 100, OffHeapAllocator.DIRECT,
            shared);
        final IpAddress client = IpAddress.parse("198.51.100.7");
        final IpAddress server = IpAddress.parse("192.168.1.1");
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64, Segment.tcp(1000, 443, SYN, 0)));
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64, Segment.udp(1000, 53, 20)));
        assertThat(assured(shared, fixture)).as("NONE, as ip_vs_sched_persist makes them").containsExactly(0, 2);
        fixture.sendOne(frame(JVS_MAC, serverMac, server, client, 64, Segment.tcp(443, 1000, SYN | ACK, 0)));
        assertThat(assured(shared, fixture)).as("SYN_RECV is not ESTABLISHED").containsExactly(0, 2);
        fixture.sendOne(frame(JVS_MAC, ROUTER_MAC, client, VIP, 64, Segment.tcp(1000, 443, ACK, 0)));
        assertThat(assured(shared, fixture)).as("set_tcp_state: ESTABLISHED assures the TCP one").containsExactly(1, 1);
        fixture.sendOne(frame(JVS_MAC, serverMac, server, client, 64, Segment.udp(53, 1000, 20)));
        assertThat(assured(shared, fixture)).as("udp_state_transition: a reply assures the UDP one")
            .containsExactly(2, 0);
    }

    /** @return how many templates are listed assured, and how many not. */
    private static List<Integer> assured(final TemplateTable templates, final PipelineFixture fixture)
    {
        final int[] counts = new int[2];
        templates.list(fixture.publisher.current(), fixture.nowNs,
            (service, high, low, server, deadline, controlled, assured) -> counts[assured ? 0 : 1]++);
        return List.of(counts[0], counts[1]);
    }
}
