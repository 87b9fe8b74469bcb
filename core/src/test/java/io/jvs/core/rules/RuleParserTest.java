package io.jvs.core.rules;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ipvsadm language as {@code ipvsadm -S -n} writes it and {@code ipvsadm -R} reads it.
 */
class RuleParserTest
{
    private static final ServiceKey WEB = ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80);

    @Test
    void shouldParseAServiceLineWithItsDefaults()
    {
        assertThat(RuleParser.parse("-A -t 10.0.0.100:80"))
            .isEqualTo(new RuleCommand.AddService(WEB, ServiceSettings.of("wlc", false)));
    }

    @Test
    void shouldParseEveryServiceOptionOfTheSaveFormat()
    {
        final RuleCommand command = RuleParser.parse(
            "-A -u 10.0.0.100:53 -s sh -p 300 -M 255.255.255.0 -o -b sh-fallback,sh-port");
        assertThat(command).isEqualTo(new RuleCommand.AddService(
            ServiceKey.of(Protocol.UDP, IpAddress.parse("10.0.0.100"), 53),
            new ServiceSettings("sh", new SchedulerFlags(true, true, false, false, false, 0), true, 300, 24, true)));
    }

    @Test
    void shouldTakeTheDefaultPersistenceWhenPFollowedByAnOption()
    {
        final RuleCommand.AddService command = (RuleCommand.AddService)RuleParser.parse("-A -t 10.0.0.100:0 -p -s rr");
        assertThat(command.settings().persistent()).isTrue();
        assertThat(command.settings().persistenceSeconds()).isEqualTo(360);
        assertThat(((RuleCommand.AddService)RuleParser.parse("--add-service --tcp-service=10.0.0.100:443 " +
            "--persistent=600")).settings().persistenceSeconds()).isEqualTo(600);
    }

    @Test
    void shouldParseIpv6AndFirewallMarkServices()
    {
        assertThat(RuleParser.parse("-A -t [2001:db8::100]:80 -s rr -p 60 -M 64")).isEqualTo(new RuleCommand.AddService(
            ServiceKey.of(Protocol.TCP, IpAddress.parse("2001:db8::100"), 80),
            new ServiceSettings("rr", SchedulerFlags.NONE, true, 60, 64, false)));
        assertThat(RuleParser.parse("-A -f 7 -6 -s lblc")).isEqualTo(new RuleCommand.AddService(
            ServiceKey.ofFirewallMark(7, true), ServiceSettings.of("lblc", true)));
        assertThat(RuleParser.parse("-D -f 4294967295")).isEqualTo(
            new RuleCommand.DeleteService(ServiceKey.ofFirewallMark(-1, false)));
    }

    @Test
    void shouldParseRealServerLinesAsSaved()
    {
        assertThat(RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -m -w 4")).isEqualTo(
            new RuleCommand.PutServer(false, WEB, IpAddress.parse("192.168.1.1"), 8080, ForwardMethod.NAT, 4, 0, 0));
        assertThat(RuleParser.parse("ipvsadm -e -t 10.0.0.100:80 -r 192.168.1.1 -g -w 0 -x 100 -y 50")).isEqualTo(
            new RuleCommand.PutServer(true, WEB, IpAddress.parse("192.168.1.1"), 80, ForwardMethod.DR, 0, 100, 50));
        assertThat(RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.2.1:80 -i -w 1 --tun-type ipip")).isEqualTo(
            new RuleCommand.PutServer(false, WEB, IpAddress.parse("192.168.2.1"), 80, ForwardMethod.TUN, 1, 0, 0));
        assertThat(RuleParser.parse("-a -f 5 -6 -r [2001:db8::2]:0 -m -w 3")).isEqualTo(new RuleCommand.PutServer(
            false, ServiceKey.ofFirewallMark(5, true), IpAddress.parse("2001:db8::2"), 0, ForwardMethod.NAT, 3, 0, 0));
    }

    @Test
    void shouldDefaultToDirectRoutingWithWeightOneAndTheServicePort()
    {
        assertThat(RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1.1")).isEqualTo(
            new RuleCommand.PutServer(false, WEB, IpAddress.parse("192.168.1.1"), 80, ForwardMethod.DR, 1, 0, 0));
    }

    @Test
    void shouldKeepTheServicePortForDirectRoutingWhateverTheServerPortSays()
    {
        final RuleCommand.PutServer command =
            (RuleCommand.PutServer)RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -g");
        assertThat(command.port()).isEqualTo(80);
    }

    @Test
    void shouldParseTheOtherCommands()
    {
        assertThat(RuleParser.parse("-C")).isEqualTo(new RuleCommand.Clear());
        assertThat(RuleParser.parse("--set 3600 120 300")).isEqualTo(new RuleCommand.SetTimeouts(3600, 120, 300));
        assertThat(RuleParser.parse("-d -t 10.0.0.100:80 -r 192.168.1.1:80")).isEqualTo(
            new RuleCommand.DeleteServer(WEB, IpAddress.parse("192.168.1.1"), 80));
        assertThat(RuleParser.parse("-E -t 10.0.0.100:80 -s wrr")).isEqualTo(
            new RuleCommand.EditService(WEB, ServiceSettings.of("wrr", false)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "# a comment", "ipvsadm", "  # indented comment"})
    void shouldSkipBlankAndCommentLines(final String line)
    {
        assertThat(RuleParser.parse(line)).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -w 2147483648 | illegal weight specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -w -1    | illegal weight specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -x abc   | illegal u_threshold specified",
        "-a -t 10.0.0.100:80                          | You need to supply the 'real-server' option for the 'add-server' command",
        "-A -s rr                                      | You need to supply the 'service-address' option for the 'add-service' command",
        "-A -t 10.0.0.100:80 -w 3                      | Illegal 'weight' option with the 'add-service' command",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -s rr      | Illegal 'scheduler' option with the 'add-server' command",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -g -m      | multiple 'forwarding-method' options specified",
        "-A -t 10.0.0.100:80 -s sh -b mh-port          | incompatible scheduler flag `mh-port'",
        "-A -t 10.0.0.100:80 -b sh-port                | incompatible scheduler flag `sh-port'",
        "-A -t 10.0.0.100:80 -s sh -b fast             | invalid scheduler flag `fast'",
        "-A -t 10.0.0.100:80 -s mh -b table-size=4096  | mh table size must be a prime",
        "-A -t 10.0.0.100:80 -s sh -b table-size=100   | table size must be a power of two",
        "-A -t 10.0.0.100:80 -s rr -b kernel-hash      | incompatible scheduler flag `kernel-hash'",
        "-A -t 10.0.0.100:0 -s rr                      | Zero port specified for non-persistent service",
        "-A -t 10.0.0.100:80 -o                        | One-Packet Scheduling is only for UDP virtual services",
        "-A -t 10.0.0.100:80 -p 0                      | invalid timeout value `0' specified",
        "-A -t 10.0.0.100:80 -p 99999999               | invalid timeout value `99999999' specified",
        "-A -t 10.0.0.100:80 -p 60 -M 255.0.255.0      | illegal virtual server persistent mask specified",
        "-A -t [2001:db8::1]:80 -p 60 -M 129           | illegal ipv6 netmask specified",
        "-A -t 10.0.0.300:80                           | illegal virtual server address[:port] specified",
        "-A -t 10.0.0.1:65536                          | illegal virtual server address[:port] specified",
        "-A -t [2001:db8::1]80                         | illegal virtual server address[:port] specified",
        "-a -t 10.0.0.100:80 -r web1:80                | illegal real server address[:port] specified",
        "-A -f 0                                       | invalid fwmark value `0' specified",
        "-A -t 10.0.0.100:80 -6                        | -6 used before -f",
        "-A -t 10.0.0.100:80 --pe sip -p 60            | persistence engine `sip' is not supported",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -m --tun-type ipip | Tunnel options conflict with forward method",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -i --tun-type gue --tun-port 6080 | tunnel type `gue' is not supported by jvs yet",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -i --tun-port 6080 | Illegal 'tun-port' option with the 'ipip' tunnel type",
        "-A -t 10.0.0.100:80 extra                     | unexpected argument extra",
        "-A -t 10.0.0.100:80 --frobnicate              | --frobnicate: unknown option",
        "-A -t 10.0.0.100:80 -C                        | invalid option `-C'",
        "-A -t 10.0.0.100:80 -s                        | -s: missing argument",
        "--set 1 2 x                                   | invalid timeout value `x' specified",
        "--set 1 2                                     | --set option requires 3 timeout values",
        "-L -n                                         | does not change the configuration",
        "-t 10.0.0.100:80 -A                           | invalid command `-t'",
        "10.0.0.1                                      | unexpected argument 10.0.0.1",
    })
    void shouldRefuseABadLineSayingWhy(final String line, final String reason)
    {
        assertThatIllegalArgumentException().isThrownBy(() -> RuleParser.parse(line)).withMessageContaining(reason);
    }
}
