package io.jvs.core.control;

import io.jvs.core.rules.RuleCommand;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static io.jvs.core.control.Fixtures.ip;
import static io.jvs.core.control.Fixtures.tcp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * The kernel's checks give the same answer over the running table as over the model, and what they accept the
 * table applies without a refusal; the model keeps the kernel's orders.
 */
class KernelChecksTest
{
    private static final String[] LINES = {
        "-A -t 10.0.0.1:80 -s rr", "-A -t 10.0.0.1:80 -s wrr", "-E -t 10.0.0.1:80 -s wlc", "-E -t 10.0.0.2:80",
        "-A -t 10.0.0.2:80 -s fastest", "-A -t 10.0.0.2:80 -s sh -b sh-port", "-D -t 10.0.0.2:80", "-D -t 10.0.0.1:80",
        "-a -t 10.0.0.1:80 -r 192.168.1.1 -m", "-a -t 10.0.0.1:80 -r 192.168.1.2 -w 0",
        "-e -t 10.0.0.1:80 -r 192.168.1.1",
        "-e -t 10.0.0.1:80 -r 192.168.1.1 -m -w 7 -x 9 -y 3", "-d -t 10.0.0.1:80 -r 192.168.1.2",
        "-a -t 10.0.0.2:80 -r 192.168.1.3 -i", "-a -t 10.0.0.2:80 -r [2001:db8::3]:80 -i",
        "-d -t 10.0.0.2:80 -r 192.168.1.3",
        "-a -t 10.0.0.1:80 -r 224.1.1.1", "-a -t 10.0.0.1:80 -r 192.168.1.4 -x 1 -y 2", "-C", "--set 10 20 30",
        "-Z -t 10.0.0.1:80", "-A -f 3 -6 -s mh", "-a -f 3 -6 -r [2001:db8::7]:0 -m", "-D -f 3 -6",
    };

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void shouldAnswerAlikeOverTheTableAndTheModel(final long seed)
    {
        final Random random = new Random(seed);
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        final IpvsModel model = new IpvsModel();
        for (int i = 0; i < 200; i++)
        {
            final RuleCommand command = ((IpvsadmRequest.Change)IpvsadmCommandLine.parse(
                List.of(LINES[random.nextInt(LINES.length)].split(" ")), false)).command();
            final KernelError onTable = KernelChecks.check(command, KernelChecks.lookup(table));
            assertThat(model.apply(command)).as(command.toString()).isEqualTo(onTable);
            if (onTable == null)
            {
                assertThatCode(() -> command.applyTo(table)).as(command.toString()).doesNotThrowAnyException();
            }
            assertThat(keys(table)).isEqualTo(keys(model.view()));
        }
    }

    private static List<String> keys(final ServiceTable table)
    {
        final List<String> keys = new ArrayList<>();
        table.services().forEach(service -> keys.add(service.key() + " " + service.servers().length));
        return keys;
    }

    private static List<String> keys(final IpvsView view)
    {
        final List<String> keys = new ArrayList<>();
        view.services().forEach(service -> keys.add(service.key() + " " + service.destinations().size()));
        return keys;
    }

    @Test
    void shouldKeepServersNewestFirstAndAnEditedOneInItsPlace()
    {
        final IpvsModel model = new IpvsModel();
        assertThat(model.apply(RuleParser.parse("-A -t 10.0.0.1:80"))).isNull();
        assertThat(model.apply(RuleParser.parse("-a -t 10.0.0.1:80 -r 192.168.1.1"))).isNull();
        assertThat(model.apply(RuleParser.parse("-a -t 10.0.0.1:80 -r 192.168.1.2"))).isNull();
        assertThat(model.apply(RuleParser.parse("-a -t 10.0.0.1:80 -r 192.168.1.3"))).isNull();
        final ServiceView service = model.view().service(tcp("10.0.0.1", 80));
        model.view(model.view().withServices(List.of(service.withDestinations(List.of(
            service.destinations().get(0), service.destinations().get(1).withConnections(4, 5, 6),
            service.destinations().get(2))))));
        assertThat(model.apply(RuleParser.parse("-e -t 10.0.0.1:80 -r 192.168.1.2 -m -w 9"))).isNull();
        final List<DestinationView> destinations = model.view().service(tcp("10.0.0.1", 80)).destinations();
        assertThat(destinations).extracting(DestinationView::address).containsExactly(ip("192.168.1.3"),
            ip("192.168.1.2"), ip("192.168.1.1"));
        assertThat(destinations.get(1)).isEqualTo(new DestinationView(ip("192.168.1.2"), 80, ForwardMethod.NAT, 9, 0, 0,
            4, 5, 6, Counters.ZERO));
    }

    @Test
    void shouldTellUnicastAddressesAsIpVsNewDest()
    {
        assertThat(KernelChecks.isUnicast(ip("192.168.1.1"))).isTrue();
        assertThat(KernelChecks.isUnicast(ip("127.0.0.1"))).isTrue();
        assertThat(KernelChecks.isUnicast(ip("0.1.2.3"))).isFalse();
        assertThat(KernelChecks.isUnicast(ip("239.255.255.250"))).isFalse();
        assertThat(KernelChecks.isUnicast(ip("255.255.255.255"))).isFalse();
        assertThat(KernelChecks.isUnicast(ip("2001:db8::1"))).isTrue();
        assertThat(KernelChecks.isUnicast(ip("::1"))).isTrue();
        assertThat(KernelChecks.isUnicast(ip("::"))).isFalse();
        assertThat(KernelChecks.isUnicast(ip("ff02::1"))).isFalse();
        assertThat(KernelChecks.isUnicast(ip("fe80::1"))).isFalse();
    }

    @Test
    void shouldListTheRunningTableAsTheModelListsTheSameChanges()
    {
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        final IpvsModel model = new IpvsModel();
        for (final String line : new String[] {"-A -t 10.0.0.1:80 -s wrr", "-a -t 10.0.0.1:80 -r 192.168.1.1 -m -w 3",
            "-a -t 10.0.0.1:80 -r 192.168.1.2 -x 9 -y 2", "-A -f 3 -6 -s mh -b mh-port", "--set 60 0 0",
            "-a -f 3 -6 -r [2001:db8::7]:0 -m", "-e -t 10.0.0.1:80 -r 192.168.1.1 -i -w 5"})
        {
            final RuleCommand command = ((IpvsadmRequest.Change)IpvsadmCommandLine.parse(List.of(line.split(" ")),
                false)).command();
            assertThat(TableViews.apply(command, table, KernelChecks.Limits.NONE)).isNull();
            assertThat(model.apply(command)).isNull();
        }
        assertThat(TableViews.of(table)).isEqualTo(model.view());
        assertThat(TableViews.apply(RuleParser.parse("-A -t 10.0.0.1:80"), table, KernelChecks.Limits.NONE))
            .isEqualTo(KernelError.SERVICE_EXISTS);
    }

    @Test
    void shouldReportAServerTheSchedulerCannotTakeAsOutOfMemoryAndChangeNothing()
    {
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        assertThat(TableViews.apply(RuleParser.parse("-A -t 10.0.0.1:80 -s mh -b table-size=7"), table,
            KernelChecks.Limits.NONE)).isNull();
        KernelError last = null;
        int added = 0;
        for (int i = 1; i <= 20 && last == null; i++)
        {
            last = TableViews.apply(RuleParser.parse("-a -t 10.0.0.1:80 -r 192.168.1." + i), table,
                KernelChecks.Limits.NONE);
            added += last == null ? 1 : 0;
        }
        assertThat(last).isEqualTo(KernelError.NO_MEMORY);
        assertThat(table.find(tcp("10.0.0.1", 80)).servers()).hasSize(added);
    }
}
