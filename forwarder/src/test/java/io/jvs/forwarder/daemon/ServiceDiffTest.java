package io.jvs.forwarder.daemon;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.Scheduler;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.sched.SchedulingContext;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reload's services applied to the running table: what is in both keeps its objects (and with them counters,
 * scheduler state), a changed weight, method or threshold is an edit of the server, a changed scheduler or
 * persistence an edit of the service, what is gone is deleted, what is new added; an unchanged configuration
 * changes nothing; and the result describes the same services and servers as the new file started afresh. A
 * service outside those the file managed is left alone unless the new file declares it, which takes it over by edits.
 */
class ServiceDiffTest
{
    private static final ServiceKey WEB = ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.1"), 80);
    private static final ServiceKey DNS = ServiceKey.of(Protocol.UDP, IpAddress.parse("10.0.0.2"), 53);

    private static final String[] FARM = {
        "-A -t 10.0.0.1:80 -s rr",
        "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -m -w 1",
        "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 2",
        "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m -w 3",
        "-A -u 10.0.0.2:53 -s wlc",
        "-a -u 10.0.0.2:53 -r 192.168.2.1:53 -g -w 1",
    };

    @Test
    void shouldChangeNothingForAnIdenticalConfiguration() throws Exception
    {
        final ServiceTable live = table(FARM);
        final VirtualService web = live.find(WEB);
        final RealServer[] servers = web.servers();
        final Scheduler scheduler = web.scheduler();

        assertThat(ServiceDiff.apply(live, table(FARM))).isEmpty();

        assertThat(live.find(WEB)).isSameAs(web);
        assertThat(web.servers()).isSameAs(servers);
        assertThat(web.scheduler()).isSameAs(scheduler);
        assertThat(live.services()).hasSize(2);
    }

    @Test
    void shouldAddAServerToARunningServiceQuiescedUntilReleasedButANewServicesAtOnce() throws Exception
    {
        final ServiceTable live = table(FARM);
        final String[] next = java.util.Arrays.copyOf(FARM, FARM.length + 3);
        next[FARM.length] = "-a -t 10.0.0.1:80 -r 192.168.1.4:80 -m -w 4";
        next[FARM.length + 1] = "-A -t 10.0.0.3:443 -s rr";
        next[FARM.length + 2] = "-a -t 10.0.0.3:443 -r 192.168.3.1:443 -m -w 5";
        final java.util.List<ServiceDiff.Pending> pending = new java.util.ArrayList<>();

        ServiceDiff.apply(live, table(next), ServiceDiff.keys(live), pending);

        final RealServer added = live.find(WEB).find(IpAddress.parse("192.168.1.4"), 80);
        assertThat(added.weight()).as("no scheduler gives it a connection before a snapshot names it").isZero();
        assertThat(live.find(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.3"), 443)).servers())
            .extracting(RealServer::weight).containsExactly(5);
        assertThat(pending).extracting(ServiceDiff.Pending::key).containsExactly(WEB);

        ServiceDiff.release(live, pending);

        assertThat(added.weight()).isEqualTo(4);
        assertThat(ServiceDiff.apply(live, table(next))).as("nothing left to do").isEmpty();
    }

    @Test
    void shouldKeepTheObjectsOfWhatStaysSoCountersAndSchedulerCursorSurvive() throws Exception
    {
        final ServiceTable live = table(FARM);
        final VirtualService web = live.find(WEB);
        final RealServer first = web.find(IpAddress.parse("192.168.1.1"), 80);
        final RealServer second = web.find(IpAddress.parse("192.168.1.2"), 80);
        final RealServer third = web.find(IpAddress.parse("192.168.1.3"), 80);
        first.bindConnection(false);
        first.bindConnection(false);
        third.bindConnection(true);
        final Scheduler scheduler = web.scheduler();
        final FlowTuple flow = new FlowTuple().setV4(Protocol.TCP, 0x6440_0001, 1234, WEB.address().v4(), 80);
        final SchedulingContext context = new SchedulingContext(0, 1);
        // rr walks the list, newest first: .3, .2, then .1.
        assertThat(web.schedule(flow, context)).isSameAs(third);
        assertThat(web.schedule(flow, context)).isSameAs(second);

        final List<String> changes = ServiceDiff.apply(live, table(
            "-A -t 10.0.0.1:80 -s rr",
            "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -m -w 1",
            "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 7",
            "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m -w 3",
            "-A -u 10.0.0.2:53 -s wlc",
            "-a -u 10.0.0.2:53 -r 192.168.2.1:53 -g -w 1"));

        assertThat(changes).containsExactly("-e -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 7");
        assertThat(live.find(WEB)).isSameAs(web);
        assertThat(web.scheduler()).isSameAs(scheduler);
        assertThat(web.servers()).containsExactly(third, second, first);
        assertThat(first.activeConnections()).isEqualTo(2);
        assertThat(third.inactiveConnections()).isEqualTo(1);
        assertThat(second.weight()).isEqualTo(7);
        // The cursor was not reset: the walk goes on to .1 rather than starting over at .3.
        assertThat(web.schedule(flow, context)).isSameAs(first);
    }

    @Test
    void shouldEditAServerWhoseMethodOrThresholdsChanged() throws Exception
    {
        final ServiceTable live = table(FARM);
        final RealServer first = live.find(WEB).find(IpAddress.parse("192.168.1.1"), 80);
        final RealServer third = live.find(WEB).find(IpAddress.parse("192.168.1.3"), 80);

        final List<String> changes = ServiceDiff.apply(live, table(
            "-A -t 10.0.0.1:80 -s rr",
            "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -g -w 1",
            "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 2",
            "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m -w 3 -x 100 -y 50",
            "-A -u 10.0.0.2:53 -s wlc",
            "-a -u 10.0.0.2:53 -r 192.168.2.1:53 -g -w 1"));

        assertThat(changes).containsExactlyInAnyOrder("-e -t 10.0.0.1:80 -r 192.168.1.1:80 -g -w 1",
            "-e -t 10.0.0.1:80 -r 192.168.1.3:80 -m -w 3 -x 100 -y 50");
        assertThat(live.find(WEB).find(IpAddress.parse("192.168.1.1"), 80)).isSameAs(first);
        assertThat(first.forwardMethod()).isEqualTo(ForwardMethod.DR);
        assertThat(third.upperThreshold()).isEqualTo(100);
        assertThat(third.lowerThreshold()).isEqualTo(50);
    }

    /**
     * The log's lines give a server as {@code ipvsadm -S -n} saves it, method before weight, so a change of method
     * alone is seen (a tunnelled one with its tunnel type, as the save writes it); thresholds follow when set, and an
     * edit that clears one says {@code -x 0}.
     */
    @Test
    void shouldDescribeEachServerWithItsMethodAndThresholds() throws Exception
    {
        final ServiceTable live = table(FARM);
        final String[] next = {
            "-A -t 10.0.0.1:80 -s rr",
            "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -g -w 1",
            "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 2 -x 100 -y 50",
            "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m -w 3",
            "-a -t 10.0.0.1:80 -r 192.168.1.4:80 -i -w 4 -y 5",
            "-A -u 10.0.0.2:53 -s wlc",
            "-a -u 10.0.0.2:53 -r 192.168.2.1:53 -g -w 1"};

        // Edits in the service's list order (newest first), then additions.
        assertThat(ServiceDiff.apply(live, table(next))).containsExactly(
            "-e -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 2 -x 100 -y 50",
            "-e -t 10.0.0.1:80 -r 192.168.1.1:80 -g -w 1",
            "-a -t 10.0.0.1:80 -r 192.168.1.4:80 -i -w 4 --tun-type ipip -y 5");

        next[2] = "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 2 -y 50";
        assertThat(ServiceDiff.apply(live, table(next))).containsExactly(
            "-e -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 2 -x 0 -y 50");
    }

    @Test
    void shouldEditAServiceWhoseSchedulerOrPersistenceChangedKeepingItsServers() throws Exception
    {
        final ServiceTable live = table(FARM);
        final VirtualService web = live.find(WEB);
        final RealServer[] servers = web.servers().clone();
        final Scheduler rr = web.scheduler();

        final List<String> changes = ServiceDiff.apply(live, table(
            "-A -t 10.0.0.1:80 -s wrr",
            "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -m -w 1",
            "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 2",
            "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m -w 3",
            "-A -u 10.0.0.2:53 -s wlc -p 600",
            "-a -u 10.0.0.2:53 -r 192.168.2.1:53 -g -w 1"));

        assertThat(changes).containsExactly("-E -t 10.0.0.1:80 -s wrr", "-E -u 10.0.0.2:53 -s wlc -p 600");
        assertThat(live.find(WEB)).isSameAs(web);
        assertThat(web.settings().scheduler()).isEqualTo("wrr");
        assertThat(web.scheduler()).isNotSameAs(rr);
        assertThat(web.servers()).containsExactly(servers);
        assertThat(live.find(DNS).settings().persistent()).isTrue();
        assertThat(live.find(DNS).settings().persistenceSeconds()).isEqualTo(600);
    }

    @Test
    void shouldDeleteServersAndServicesThatAreGone() throws Exception
    {
        final ServiceTable live = table(FARM);
        final VirtualService dns = live.find(DNS);
        final RealServer resolver = dns.servers()[0];
        final RealServer second = live.find(WEB).find(IpAddress.parse("192.168.1.2"), 80);

        final List<String> changes = ServiceDiff.apply(live, table(
            "-A -t 10.0.0.1:80 -s rr",
            "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -m -w 1",
            "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m -w 3"));

        assertThat(changes).containsExactly("-D -u 10.0.0.2:53", "-d -t 10.0.0.1:80 -r 192.168.1.2:80");
        assertThat(live.find(DNS)).isNull();
        assertThat(live.services()).hasSize(1);
        assertThat(live.find(WEB).servers()).extracting(RealServer::toString)
            .containsExactly("192.168.1.3:80", "192.168.1.1:80");
        // Connections still bound to them see them gone (expire_nodest_conn decides what happens to those).
        assertThat(second.isAvailable()).isFalse();
        assertThat(resolver.isAvailable()).isFalse();
    }

    @Test
    void shouldTakeBackAServerWhoseLineComesBackWhileItsConnectionsLive() throws Exception
    {
        final ServiceTable live = table(FARM);
        final RealServer second = live.find(WEB).find(IpAddress.parse("192.168.1.2"), 80);
        second.bindConnection(false);
        final String[] without = Arrays.stream(FARM).filter(line -> !line.contains("192.168.1.2")).toArray(String[]::new);
        ServiceDiff.apply(live, table(without));
        assertThat(live.find(WEB).find(IpAddress.parse("192.168.1.2"), 80)).isNull();

        final String[] back = FARM.clone();
        back[2] = "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -g -w 6";
        final List<ServiceDiff.Pending> pending = new ArrayList<>();
        ServiceDiff.apply(live, table(back), ServiceDiff.keys(live), pending);
        assertThat(live.find(WEB).find(IpAddress.parse("192.168.1.2"), 80)).isSameAs(second);
        assertThat(second.weight()).as("quiesced until released, as any server added to a running service").isZero();
        ServiceDiff.release(live, pending);

        assertThat(second.isAvailable()).isTrue();
        assertThat(second.weight()).isEqualTo(6);
        assertThat(second.forwardMethod()).isEqualTo(ForwardMethod.DR);
        assertThat(second.activeConnections()).isEqualTo(1);
    }

    @Test
    void shouldAddNewServersInTheOrderAFreshStartWouldHaveWhenTheyComeLastInTheFile() throws Exception
    {
        final ServiceTable live = table(
            "-A -t 10.0.0.1:80 -s rr",
            "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -m");
        final String[] next = {
            "-A -t 10.0.0.1:80 -s rr",
            "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -m",
            "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 4",
            "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m -w 5",
            "-A -t 10.0.0.9:443 -s sh",
            "-a -t 10.0.0.9:443 -r 192.168.9.1:443 -m",
            "-a -t 10.0.0.9:443 -r 192.168.9.2:443 -m"};

        final List<String> changes = ServiceDiff.apply(live, table(next));

        assertThat(changes).containsExactly(
            "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 4",
            "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m -w 5",
            "-A -t 10.0.0.9:443 -s sh",
            "-a -t 10.0.0.9:443 -r 192.168.9.1:443 -m -w 1",
            "-a -t 10.0.0.9:443 -r 192.168.9.2:443 -m -w 1");
        assertThat(describe(live)).isEqualTo(describe(table(next)));
        assertThat(live.find(WEB).servers()[0].weight()).isEqualTo(5);
    }

    /**
     * Where the result differs from a fresh start: a server added to the middle of a service's list in the file
     * goes to the head of the running list (ipvsadm -a puts it there; reordering the servers that stay would
     * take deleting and re-adding them, which loses their state). The servers are the same; their list order,
     * which only rr/wrr's walk and ties follow, is what {@code ipvsadm -a} on the running system gives.
     */
    @Test
    void shouldPutAServerAddedInTheMiddleOfTheFileAtTheHeadOfTheRunningList() throws Exception
    {
        final ServiceTable live = table(
            "-A -t 10.0.0.1:80 -s rr",
            "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -m",
            "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m");
        final String[] next = {
            "-A -t 10.0.0.1:80 -s rr",
            "-a -t 10.0.0.1:80 -r 192.168.1.1:80 -m",
            "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m",
            "-a -t 10.0.0.1:80 -r 192.168.1.3:80 -m"};

        ServiceDiff.apply(live, table(next));

        assertThat(live.find(WEB).servers()).extracting(RealServer::toString)
            .containsExactly("192.168.1.2:80", "192.168.1.3:80", "192.168.1.1:80");
        assertThat(table(next).find(WEB).servers()).extracting(RealServer::toString)
            .containsExactly("192.168.1.3:80", "192.168.1.2:80", "192.168.1.1:80");
    }

    @Test
    void shouldShowAnEditOfOnlyThePersistenceTimeout() throws Exception
    {
        final ServiceTable live = table("-A -t 10.0.0.1:80 -s wlc -p 300");

        assertThat(ServiceDiff.apply(live, table("-A -t 10.0.0.1:80 -s wlc -p 600")))
            .containsExactly("-E -t 10.0.0.1:80 -s wlc -p 600");
        assertThat(ServiceDiff.apply(live, table("-A -t 10.0.0.1:80 -s wlc")))
            .as("persistence turned off is the line without -p, as ipvsadm -E is given it")
            .containsExactly("-E -t 10.0.0.1:80 -s wlc");
    }

    @Test
    void shouldShowAnEditOfOnlyTheNetmaskAsTheFamilyWritesIt() throws Exception
    {
        final ServiceTable live = table(
            "-A -t 10.0.0.1:80 -s wlc -p 300",
            "-A -t [2001:db8::1]:80 -s wlc -p 300");

        assertThat(ServiceDiff.apply(live, table(
            "-A -t 10.0.0.1:80 -s wlc -p 300 -M 255.255.255.0",
            "-A -t [2001:db8::1]:80 -s wlc -p 300 -M 64")))
            .containsExactly(
                "-E -t 10.0.0.1:80 -s wlc -p 300 -M 255.255.255.0",
                "-E -t [2001:db8::1]:80 -s wlc -p 300 -M 64");
    }

    @Test
    void shouldShowAnEditOfOnlyTheSchedulerFlags() throws Exception
    {
        final ServiceTable live = table("-A -t 10.0.0.1:80 -s sh");

        assertThat(ServiceDiff.apply(live, table("-A -t 10.0.0.1:80 -s sh -b sh-fallback,sh-port")))
            .containsExactly("-E -t 10.0.0.1:80 -s sh -b sh-fallback,sh-port");
        assertThat(live.find(WEB).settings().flags().any()).isTrue();
    }

    @Test
    void shouldShowAnEditOfOnlyOnePacketScheduling() throws Exception
    {
        final ServiceTable live = table("-A -u 10.0.0.2:53 -s rr");

        assertThat(ServiceDiff.apply(live, table("-A -u 10.0.0.2:53 -s rr -o")))
            .containsExactly("-E -u 10.0.0.2:53 -s rr -o");
        assertThat(live.find(DNS).settings().onePacket()).isTrue();
    }

    @Test
    void shouldShowEveryOptionOfAnAddedServiceInIpvsadmSaveOrder() throws Exception
    {
        final ServiceTable live = table(FARM);
        final String[] next = Arrays.copyOf(FARM, FARM.length + 1);
        next[FARM.length] = "-A -u 10.0.0.3:53 -s sh -b sh-port -o -M 255.255.0.0 -p 120";

        assertThat(ServiceDiff.apply(live, table(next)))
            .containsExactly("-A -u 10.0.0.3:53 -s sh -p 120 -M 255.255.0.0 -o -b sh-port");
    }

    @Test
    void shouldOrderDeletionsBeforeEditsBeforeAdditionsWithinAService() throws Exception
    {
        final ServiceTable live = table(FARM);

        final List<String> changes = ServiceDiff.apply(live, table(
            "-A -t 10.0.0.1:80 -s wlc",
            "-a -t 10.0.0.1:80 -r 192.168.1.4:80 -m -w 4",
            "-a -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 9",
            "-A -u 10.0.0.2:53 -s wlc",
            "-a -u 10.0.0.2:53 -r 192.168.2.1:53 -g -w 1"));

        // Deletions in the running list's order (newest first).
        assertThat(changes).containsExactly(
            "-d -t 10.0.0.1:80 -r 192.168.1.3:80",
            "-d -t 10.0.0.1:80 -r 192.168.1.1:80",
            "-E -t 10.0.0.1:80 -s wlc",
            "-e -t 10.0.0.1:80 -r 192.168.1.2:80 -m -w 9",
            "-a -t 10.0.0.1:80 -r 192.168.1.4:80 -m -w 4");
    }

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 40);
    }

    /**
     * Random configurations before and after: the diff turns the first into the second (the same services,
     * settings and servers with their weights, methods and thresholds, as a fresh start from the second file
     * describes them, order aside), every server in both keeps its object, and a second diff finds nothing.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldTurnAnyConfigurationIntoAnyOther(final long seed) throws Exception
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final ServiceTable live = table(randomConfiguration(random));
        final List<VirtualService> servicesBefore = List.copyOf(live.services());
        final List<RealServer[]> serversBefore = new ArrayList<>();
        for (final VirtualService service : servicesBefore)
        {
            serversBefore.add(service.servers().clone());
        }
        final ServiceTable desired = table(randomConfiguration(random));

        final List<String> changes = ServiceDiff.apply(live, desired);

        assertThat(describe(live)).as("changes %s", changes).isEqualTo(describe(desired));
        for (int s = 0; s < servicesBefore.size(); s++)
        {
            final VirtualService service = servicesBefore.get(s);
            final VirtualService wanted = desired.find(service.key());
            if (wanted == null)
            {
                continue;
            }
            assertThat(live.find(service.key())).isSameAs(service);
            for (final RealServer server : serversBefore.get(s))
            {
                if (wanted.find(server.address(), server.port()) != null)
                {
                    assertThat(service.find(server.address(), server.port())).as("%s %s", service.key(), server)
                        .isSameAs(server);
                }
            }
        }
        assertThat(ServiceDiff.apply(live, desired)).isEmpty();
    }

    @Test
    void shouldLeaveAServiceTheFileDidNotDeclareAloneAndDeleteOnlyOneItDid() throws Exception
    {
        // WEB came from the file; DNS from control (ctl, ipvsadm, keepalived): the file managed only WEB.
        final ServiceTable live = table(FARM);
        final VirtualService dns = live.find(DNS);
        final RealServer[] dnsServers = dns.servers();
        dnsServers[0].bindConnection(true);

        final List<String> changes = ServiceDiff.apply(live, table(), java.util.Set.of(WEB), null);

        assertThat(changes).containsExactly("-D " + WEB.toRuleString());
        assertThat(live.find(WEB)).isNull();
        assertThat(live.find(DNS)).isSameAs(dns);
        assertThat(dns.servers()).isSameAs(dnsServers);
        assertThat(dnsServers[0].inactiveConnections()).isEqualTo(1);
    }

    @Test
    void shouldTakeOverAServiceOfControlThatTheFileStartsDeclaringByEditsKeepingItsObjects() throws Exception
    {
        // Both came from control; the new file declares DNS, with another scheduler, weight and a second server.
        final ServiceTable live = table(FARM);
        final VirtualService web = live.find(WEB);
        final VirtualService dns = live.find(DNS);
        final RealServer kept = dns.find(IpAddress.parse("192.168.2.1"), 53);
        kept.bindConnection(false);

        final List<String> changes = ServiceDiff.apply(live, table(
            "-A -u 10.0.0.2:53 -s rr",
            "-a -u 10.0.0.2:53 -r 192.168.2.1:53 -g -w 3",
            "-a -u 10.0.0.2:53 -r 192.168.2.2:53 -g -w 1"), java.util.Set.of(), null);

        assertThat(changes).containsExactly(
            "taken over from control: " + DNS.toRuleString(),
            "-E " + DNS.toRuleString() + " -s rr",
            "-e " + DNS.toRuleString() + " -r 192.168.2.1:53 -g -w 3",
            "-a " + DNS.toRuleString() + " -r 192.168.2.2:53 -g -w 1");
        assertThat(live.find(DNS)).as("edited, not deleted and added again").isSameAs(dns);
        assertThat(dns.find(IpAddress.parse("192.168.2.1"), 53)).isSameAs(kept);
        assertThat(kept.activeConnections()).isEqualTo(1);
        assertThat(live.find(WEB)).as("still control's").isSameAs(web);
        assertThat(web.servers()).hasSize(3);
    }

    private static String[] randomConfiguration(final SplittableRandom random)
    {
        final String[] schedulers = {"rr", "wrr", "lc", "wlc", "sh"};
        final String[] methods = {"-m", "-g", "-i"};
        final List<String> lines = new ArrayList<>();
        for (int service = 1; service <= 4; service++)
        {
            if (random.nextInt(4) == 0)
            {
                continue;
            }
            final String key = "-t 10.0.0." + service + ":80";
            lines.add("-A " + key + " -s " + schedulers[random.nextInt(schedulers.length)] +
                (random.nextInt(4) == 0 ? " -p " + (60 * (1 + random.nextInt(3))) : ""));
            for (int server = 1; server <= 6; server++)
            {
                if (random.nextInt(2) == 0)
                {
                    lines.add("-a " + key + " -r 192.168." + service + "." + server + ":80 " +
                        methods[random.nextInt(methods.length)] + " -w " + random.nextInt(4) +
                        (random.nextInt(5) == 0 ? " -x " + (10 + random.nextInt(3)) : ""));
                }
            }
        }
        // The file's order of servers is shuffled (a reload may reorder lines): services stay first.
        final List<String> services = new ArrayList<>();
        final List<String> servers = new ArrayList<>();
        for (final String line : lines)
        {
            (line.startsWith("-A") ? services : servers).add(line);
        }
        for (int i = servers.size() - 1; i > 0; i--)
        {
            final int j = random.nextInt(i + 1);
            final String swap = servers.get(i);
            servers.set(i, servers.get(j));
            servers.set(j, swap);
        }
        services.addAll(servers);
        return services.toArray(String[]::new);
    }

    /** Every service with its settings and its servers, sorted, with what each server is configured with. */
    private static List<String> describe(final ServiceTable table)
    {
        final List<String> lines = new ArrayList<>();
        for (final VirtualService service : table.services())
        {
            lines.add(service.key() + " " + service.settings());
            for (final RealServer server : service.servers())
            {
                lines.add(service.key() + " -r " + server + " " + server.forwardMethod() + " w" + server.weight() +
                    " x" + server.upperThreshold() + " y" + server.lowerThreshold() + " " + server.isAvailable());
            }
        }
        lines.sort(null);
        return lines;
    }

    private static ServiceTable table(final String... lines) throws RuleException
    {
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        RulesFile.apply("test.rules", RulesFile.parse("test.rules", List.of(lines)), table);
        return table;
    }
}
