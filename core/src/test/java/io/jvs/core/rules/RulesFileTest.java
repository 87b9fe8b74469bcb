package io.jvs.core.rules;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RulesFileTest
{
    @TempDir
    Path directory;

    private final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));

    @Test
    void shouldLoadASavedConfiguration() throws Exception
    {
        final Path file = Files.write(directory.resolve("saved.rules"), List.of(
            "-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m -w 3",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 4",
            "-A -f 7 -s lblc",
            "-a -f 7 -r 192.168.2.1:0 -g -w 2",
            "--set 3600 120 300"));
        RulesFile.load(file, table);
        final VirtualService web = table.find(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80));
        assertThat(web.settings().scheduler()).isEqualTo("wrr");
        assertThat(web.servers()).extracting(RealServer::toString).containsExactly("192.168.1.1:80", "192.168.1.2:80");
        assertThat(table.lookup(7, Protocol.TCP, IpAddress.parse("198.51.100.1"), 80).key())
            .isEqualTo(ServiceKey.ofFirewallMark(7, false));
        assertThat(table.timeoutsSeconds()).containsExactly(3600, 120, 300);
    }

    @Test
    void shouldNameTheFileAndLineOfABadRule() throws Exception
    {
        final Path file = Files.write(directory.resolve("bad.rules"), List.of(
            "# header",
            "-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w lots"));
        assertThatThrownBy(() -> RulesFile.load(file, table))
            .isInstanceOf(RuleException.class)
            .hasMessage(file + ":3: illegal weight specified")
            .satisfies(ex -> assertThat(((RuleException)ex).line()).isEqualTo(3));
        assertThat(table.services()).as("nothing is applied when a line does not parse").isEmpty();
    }

    @Test
    void shouldNameTheLineTheConfigurationRefuses() throws Exception
    {
        final Path file = Files.write(directory.resolve("dup.rules"), List.of(
            "-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 2",
            "-A -t 10.0.0.100:80 -s rr"));
        assertThatThrownBy(() -> RulesFile.load(file, table)).hasMessage(file + ":3: Destination already exists");
    }

    @Test
    void shouldNameARuleTheTableRefusesBeforeALineThatIsNoRule() throws Exception
    {
        final Path file = Files.write(directory.resolve("two.rules"), List.of(
            "-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 2",
            "-X nonsense"));
        assertThatThrownBy(() -> RulesFile.load(file, table)).hasMessage(file + ":3: Destination already exists");
        assertThat(table.services()).as("nothing is applied when a line does not parse").isEmpty();
        assertThatThrownBy(() -> RulesFile.parse("ok.rules", List.of("-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m", "-X nonsense")))
            .as("rules the table takes: the line that is no rule").hasMessageStartingWith("ok.rules:3: ");
    }

    @Test
    void shouldRefuseWhatTheTableRejectsWithIpvsadmsWords()
    {
        final ServiceKey web = ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80);
        assertThatThrownBy(() -> RuleParser.parse("-E -t 10.0.0.100:80 -s rr").applyTo(table)).hasMessage("No such service");
        assertThatThrownBy(() -> RuleParser.parse("-d -t 10.0.0.100:80 -r 192.168.1.1").applyTo(table))
            .hasMessage("Service not defined");
        RuleParser.parse("-A -t 10.0.0.100:80").applyTo(table);
        assertThatThrownBy(() -> RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table))
            .hasMessage("Service already exists");
        assertThatThrownBy(() -> RuleParser.parse("-e -t 10.0.0.100:80 -r 192.168.1.1").applyTo(table))
            .hasMessage("No such destination");
        assertThatThrownBy(() -> RuleParser.parse("-a -t 10.0.0.100:80 -r [2001:db8::1]:80 -m").applyTo(table))
            .hasMessage("Different address family is allowed only for tunneling servers");
        RuleParser.parse("-a -t 10.0.0.100:80 -r [2001:db8::1]:80 -i").applyTo(table);
        assertThat(table.find(web).servers()).hasSize(1);
    }

    @Test
    void shouldKeepAServersCountersAndCloseTheSchedulerOnDelete()
    {
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m").applyTo(table);
        final RealServer server = table.allServers().get(0);
        server.bindConnection(false);
        RuleParser.parse("-D -t 10.0.0.100:80").applyTo(table);
        assertThat(table.services()).isEmpty();
        assertThat(server.isAvailable()).isFalse();
        assertThat(server.activeConnections()).isEqualTo(1);
    }

    @Test
    void shouldChangeTheSchedulerOnEdit()
    {
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        RuleParser.parse("-E -t 10.0.0.100:80 -s mh -b mh-port").applyTo(table);
        final VirtualService web = table.find(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80));
        assertThat(web.settings().scheduler()).isEqualTo("mh");
        assertThat(web.scheduler().getClass().getSimpleName()).isEqualTo("MaglevScheduler");
        assertThat(web.settings().flags().toListString("mh")).isEqualTo("mh-port");
    }

    @Test
    void shouldKeepTheSchedulerWhenTheNewOneRefusesTheServers()
    {
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        for (int i = 1; i <= 8; i++)
        {
            RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1." + i + ":80 -m").applyTo(table);
        }
        assertThatThrownBy(() -> RuleParser.parse("-E -t 10.0.0.100:80 -s mh -b table-size=7").applyTo(table))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("mh: 8 servers do not fit a table of 7 slots");
        final VirtualService web = table.find(ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80));
        assertThat(web.settings().scheduler()).isEqualTo("rr");
        assertThat(web.scheduler().getClass().getSimpleName()).isEqualTo("RoundRobinScheduler");
    }

    @Test
    void shouldFindAPortZeroServiceForAnyPort()
    {
        RuleParser.parse("-A -t 10.0.0.100:0 -s rr -p").applyTo(table);
        RuleParser.parse("-A -t 10.0.0.100:443 -s sh").applyTo(table);
        assertThat(table.lookup(0, Protocol.TCP, IpAddress.parse("10.0.0.100"), 443).settings().scheduler())
            .isEqualTo("sh");
        assertThat(table.lookup(0, Protocol.TCP, IpAddress.parse("10.0.0.100"), 22).settings().scheduler())
            .isEqualTo("rr");
        assertThat(table.lookup(0, Protocol.UDP, IpAddress.parse("10.0.0.100"), 22)).isNull();
    }
}
