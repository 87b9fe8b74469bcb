package io.jvs.core.control;

import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;

import static io.jvs.core.control.Fixtures.ip;
import static io.jvs.core.control.Fixtures.tcp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * ipvsadm 1.31's command line as popt 1.19 reads it (ipvsadm.c parse_options and process_options).
 */
class IpvsadmCommandLineTest
{
    private static final ServiceKey WEB = tcp("10.0.0.100", 80);

    private static IpvsadmRequest parse(final String line)
    {
        return IpvsadmCommandLine.parse(words(line), false);
    }

    private static List<String> words(final String line)
    {
        return line.isEmpty() ? List.of() : Arrays.asList(line.split(" "));
    }

    private static RuleCommand change(final String line)
    {
        return ((IpvsadmRequest.Change)parse(line)).command();
    }

    private static IpvsadmException refusal(final String line)
    {
        return catchThrowableOfType(IpvsadmException.class, () -> parse(line));
    }

    @Test
    void shouldTakeAsIpv6OnlyWhatInetPtonWould()
    {
        // The shortest forms (two colons), the full one, and the IPv4-embedded ones.
        for (final String v6 : List.of("::", "::1", "1::", "1:2:3:4:5:6:7:8", "::ffff:10.0.0.1", "64:ff9b::10.0.0.1"))
        {
            assertThat(IpvsadmCommandLine.ipv6(v6)).as(v6).isEqualTo(ip(v6));
        }
        // Not IPv6: one colon (an IPv4 address or a name with its port), too many groups, three colons in a
        // row, a bare IPv4 address.
        for (final String other : List.of("10.0.0.1:80", "1:2", "::1:2:3:4:5:6:7:8", "1:::2", "10.0.0.1", "web:80",
            ":1", "1:"))
        {
            assertThat(IpvsadmCommandLine.ipv6(other)).as(other).isNull();
        }
    }

    @Test
    void shouldReadClusteredShortOptionsAndAttachedValues()
    {
        assertThat(parse("-Ln")).isEqualTo(new IpvsadmRequest.ListServices(null, ListFormat.NUMERIC));
        assertThat(parse("-Lcn")).isEqualTo(new IpvsadmRequest.ListConnections(ListFormat.NUMERIC));
        assertThat(change("-At10.0.0.100:80")).isEqualTo(
            new RuleCommand.AddService(WEB, ServiceSettings.of("wlc", false)));
        assertThat(change("-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -mw=3")).isEqualTo(new RuleCommand.PutServer(false,
            WEB, ip("192.168.1.1"), 8080, ForwardMethod.NAT, 3, 0, 0));
        assertThat(change("--add-service --tcp-service=10.0.0.100:80 --scheduler=rr")).isEqualTo(
            new RuleCommand.AddService(WEB, ServiceSettings.of("rr", false)));
    }

    @Test
    void shouldTakeARequiredValueEvenWhenItStartsWithADash()
    {
        // popt: "-s -t" names the scheduler "-t"; the kernel then has no such scheduler.
        final RuleCommand.AddService add = (RuleCommand.AddService)change("-A -t 10.0.0.100:80 -s -t");
        assertThat(add.settings().scheduler()).isEqualTo("-t");
    }

    @Test
    void shouldTakePersistenceValueOnlyFromAWordThatIsNotAnOption()
    {
        assertThat(((RuleCommand.AddService)change("-A -t 10.0.0.100:80 -p -s rr")).settings().persistenceSeconds())
            .isEqualTo(360);
        assertThat(((RuleCommand.AddService)change("-A -t 10.0.0.100:80 -p 600")).settings().persistenceSeconds())
            .isEqualTo(600);
        assertThat(((RuleCommand.AddService)change("-A -t 10.0.0.100:80 -p600")).settings().persistenceSeconds())
            .isEqualTo(600);
        assertThat(((RuleCommand.AddService)change("-A -t 10.0.0.100:80 --persistent")).settings().persistenceSeconds())
            .isEqualTo(360);
    }

    @Test
    void shouldResetTheSchedulerOfAnEditAndCarryEverySetting()
    {
        assertThat(change("-E -t 10.0.0.100:80")).isEqualTo(new RuleCommand.EditService(WEB,
            ServiceSettings.of("wlc", false)));
        assertThat(change("-E -u 10.0.0.100:53 -s mh -b mh-port,mh-fallback -p 30 -M 255.255.0.0 -o")).isEqualTo(
            new RuleCommand.EditService(ServiceKey.of(Protocol.UDP, ip("10.0.0.100"), 53), new ServiceSettings("mh",
                new SchedulerFlags(true, true, false, false, false, 0), true, 30, 16, true)));
    }

    @Test
    void shouldApplyIpvsadmsPortRulesToRealServers()
    {
        assertThat(change("-a -t 10.0.0.100:80 -r 192.168.1.1")).isEqualTo(new RuleCommand.PutServer(false, WEB,
            ip("192.168.1.1"), 80, ForwardMethod.DR, 1, 0, 0));
        assertThat(change("-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -i")).isEqualTo(new RuleCommand.PutServer(false, WEB,
            ip("192.168.1.1"), 80, ForwardMethod.TUN, 1, 0, 0));
        assertThat(change("-d -t 10.0.0.100:80 -r 192.168.1.1:8080")).isEqualTo(new RuleCommand.DeleteServer(WEB,
            ip("192.168.1.1"), 8080));
        assertThat(change("-a -f 9 -r 192.168.1.1:8080 -g")).isEqualTo(new RuleCommand.PutServer(false,
            ServiceKey.ofFirewallMark(9, false), ip("192.168.1.1"), 8080, ForwardMethod.DR, 1, 0, 0));
        assertThat(change("-a -t 10.0.0.1:80 -r [2001:db8::1]:80 -i")).isEqualTo(new RuleCommand.PutServer(false,
            tcp("10.0.0.1", 80), ip("2001:db8::1"), 80, ForwardMethod.TUN, 1, 0, 0));
    }

    @Test
    void shouldParseAddressesAsInetAtonAndInetPton()
    {
        assertThat(change("-A -t 10.1:80")).isEqualTo(new RuleCommand.AddService(tcp("10.0.0.1", 80),
            ServiceSettings.of("wlc", false)));
        assertThat(change("-A -t [2001:db8::1]:443")).isEqualTo(new RuleCommand.AddService(tcp("2001:db8::1", 443),
            ServiceSettings.of("wlc", true)));
        assertThat(change("-A -t 2001:db8::1 -p")).isEqualTo(new RuleCommand.AddService(tcp("2001:db8::1", 0),
            new ServiceSettings("wlc", SchedulerFlags.NONE, true, 360, 128, false)));
        assertThat(change("-A -f +5 -6 -s rr")).isEqualTo(new RuleCommand.AddService(ServiceKey.ofFirewallMark(5, true),
            ServiceSettings.of("rr", true)));
    }

    @Test
    void shouldReadAddressesWithWhiteSpaceAsGlibcDoes()
    {
        // Found by comparing with Debian's ipvsadm: glibc's inet_aton stops at white space and ignores what
        // follows, inet_pton takes none. Arguments, not words of a line: a script may quote them so.
        assertThat(((IpvsadmRequest.Change)IpvsadmCommandLine.parse(List.of("-A", "-t", "10.0.0.1 x:80"), false))
            .command()).isEqualTo(new RuleCommand.AddService(tcp("10.0.0.1", 80), ServiceSettings.of("wlc", false)));
        assertThat(((IpvsadmRequest.Change)IpvsadmCommandLine.parse(List.of("-A", "-u", "10.1\t:53"), false))
            .command()).isEqualTo(new RuleCommand.AddService(ServiceKey.of(Protocol.UDP, ip("10.0.0.1"), 53),
            ServiceSettings.of("wlc", false)));
        for (final String address : List.of("[2001:db8::1 ]:80", "[ 2001:db8::1]:80", " 10.0.0.1:80", "10.0. 1:80"))
        {
            final IpvsadmException ex = catchThrowableOfType(IpvsadmException.class,
                () -> IpvsadmCommandLine.parse(List.of("-A", "-t", address), false));
            assertThat(ex).as(address).isNotNull();
            assertThat(ex.getMessage()).as(address).isEqualTo("illegal virtual server address[:port] specified");
        }
    }

    @Test
    void shouldMakeTheQuestions()
    {
        assertThat(IpvsadmCommandLine.parse(List.of(), false)).isEqualTo(
            new IpvsadmRequest.ListServices(null, ListFormat.DEFAULT));
        assertThat(parse("-L -n -t 10.0.0.100:80 --stats --exact")).isEqualTo(new IpvsadmRequest.ListServices(WEB,
            new ListFormat(true, true, false, false, false, false, true, false)));
        assertThat(parse("--list --timeout")).isEqualTo(new IpvsadmRequest.ListTimeouts());
        assertThat(parse("-l --daemon")).isEqualTo(new IpvsadmRequest.ListDaemon());
        assertThat(parse("-L -c --persistent-conn")).isEqualTo(new IpvsadmRequest.ListConnections(
            new ListFormat(false, false, false, false, true, false, false, false)));
        assertThat(parse("-L --sort --nosort --rate")).isEqualTo(new IpvsadmRequest.ListServices(null,
            new ListFormat(false, false, true, false, false, true, false, false)));
        assertThat(parse("-S -n")).isEqualTo(new IpvsadmRequest.Save(true));
        assertThat(parse("--save")).isEqualTo(new IpvsadmRequest.Save(false));
        assertThat(parse("-R")).isEqualTo(new IpvsadmRequest.Restore());
        assertThat(change("-Z")).isEqualTo(new RuleCommand.Zero(null));
        assertThat(change("--zero -t 10.0.0.100:80")).isEqualTo(new RuleCommand.Zero(WEB));
        assertThat(change("-C")).isEqualTo(new RuleCommand.Clear());
        assertThat(change("--set 0 30 60")).isEqualTo(new RuleCommand.SetTimeouts(0, 30, 60));
        assertThat(parse("-h --whatever")).isEqualTo(new IpvsadmRequest.Help());
        assertThat(parse("-v")).isEqualTo(new IpvsadmRequest.Version());
        assertThat(parse("--start-daemon master")).isEqualTo(new IpvsadmRequest.SyncDaemon(true, true));
        assertThat(parse("--stop-daemon backup")).isEqualTo(new IpvsadmRequest.SyncDaemon(false, false));
        assertThat(change("-A -u 10.0.0.100:53 --pe sip -p")).isEqualTo(new RuleCommand.AddService(
            ServiceKey.of(Protocol.UDP, ip("10.0.0.100"), 53),
            new ServiceSettings("wlc", SchedulerFlags.NONE, true, 360, 32, false), "sip"));
    }

    @Test
    void shouldNameTheProgramOnlyInTheTryHelpHint()
    {
        final IpvsadmException ex = refusal("-t 10.0.0.100:80 -A");
        assertThat(ex.kind()).isEqualTo(IpvsadmException.Kind.TRY_HELP);
        assertThat(ex.exitStatus()).isEqualTo(255);
        assertThat(ex.errorText("/usr/sbin/ipvsadm")).isEqualTo(
            "Try `/usr/sbin/ipvsadm -h' or '/usr/sbin/ipvsadm --help' for more information.\n");
    }

    /** fail(2, ...) texts of ipvsadm.c, in the order ipvsadm checks them. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-A -t 10.0.0.100:80 -A                         | invalid option `-A'",
        "-A -t 10.0.0.100:80 --start-daemon master      | invalid option `master'",
        "-A -t 10.0.0.100:80 -t 10.0.0.1:80             | multiple 'service-address' options specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -g -m       | multiple 'forwarding-method' options specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -w 2147483648 | illegal weight specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -w 0x10     | illegal weight specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -x -1       | illegal u_threshold specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -y 2147483648 | illegal l_threshold specified",
        "-A -t 10.0.0.100:80 -p foo                     | invalid timeout value `foo' specified",
        "-A -t 10.0.0.100:80 -p 2678401                 | invalid timeout value `2678401' specified",
        "-A -f 0                                        | invalid fwmark value `0' specified",
        "-A -f -5                                       | invalid fwmark value `-5' specified",
        "-A -f 4294967296                               | invalid fwmark value `4294967296' specified",
        "-A -t 10.0.0.300:80                            | illegal virtual server address[:port] specified",
        "-A -t 10.0.0.1:                                | illegal virtual server address[:port] specified",
        "-A -t 8080                                     | illegal virtual server address[:port] specified",
        "-A -t [2001:db8::1]80                          | illegal virtual server address[:port] specified",
        "-A -t [10.0.0.1]:80                            | Zero port specified for non-persistent service",
        "-a -t 10.0.0.100:80 -r host.example:80         | illegal real server address[:port] specified",
        "-A -t 10.0.0.100:80 -p 60 -M 300.0.0.0          | illegal virtual server persistent mask specified",
        "-A -t [2001:db8::1]:80 -p 60 -M 129             | illegal ipv6 netmask specified",
        "-A -t 10.0.0.100:80 -p 60 -M 255.0.255.0        | illegal virtual server persistent mask specified (jvs",
        "-L --syncid 256                                | illegal syncid specified",
        "--start-daemon primary                         | illegal start-daemon parameter specified",
        "--stop-daemon primary                          | illegal start_daemon specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -i --tun-type vxlan | illegal tunnel type specified",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -i --tun-port 0 | illegal tunnel port specified",
        "-L --mcast-group 10.0.0.1                      | invalid IPv4 mcast-group `10.0.0.1'",
        "-L --mcast-port 0                              | illegal mcast-port specified",
        "--set 1 2                                      | --set option requires 3 timeout values",
        "--set 1 2 x                                    | invalid timeout value `x' specified",
        "--set 1 2 3 4                                  | unexpected argument 4",
        "foo -L                                         | unexpected argument foo",
        "-A -- -t 10.0.0.100:80                         | unexpected argument -t",
        "-A -t 10.0.0.100:80 -s rr -b sh-port           | incompatible scheduler flag `sh-port'",
        "-A -t 10.0.0.100:80 -b mh-port                 | incompatible scheduler flag `mh-port'",
        "-A -t 10.0.0.100:80 -s sh -b sh-port,fast      | invalid scheduler flag `fast'",
        "-D -t 10.0.0.100:80 -b fast                    | invalid scheduler flag `fast'",
        "-D -t 10.0.0.100:80 -s rr                      | Illegal 'scheduler' option with the 'delete-service' command",
        "-A -s rr |" +
            " You need to supply the 'service-address' option for the 'add-service' command",
        "-a -t 10.0.0.100:80 |" +
            " You need to supply the 'real-server' option for the 'add-server' command",
        "-A -t 10.0.0.100:80 -w 3                       | Illegal 'weight' option with the 'add-service' command",
        "-list                                          | Illegal 'scheduler' option with the 'list' command",
        "-L -c --timeout |" +
            " The option 'timeout' conflicts with the 'connection' option in the 'list' command",
        "-L -t 10.0.0.100:80 -c |" +
            " The option 'service-address' conflicts with the 'connection' option in the 'list' command",
        "-L -c --stats                                  | options conflicts in the list command",
        "-L --timeout --persistent-conn                 | options conflicts in the list command",
        "-S -c                                          | Illegal 'connection' option with the 'save' command",
        "-R -n                                          | Illegal 'numeric' option with the 'restore' command",
        "-C -t 10.0.0.100:80                            | Illegal 'service-address' option with the 'flush' command",
        "-Z -n                                          | Illegal 'numeric' option with the 'zero' command",
        "--set 1 2 3 -n                                 | Illegal 'numeric' option with the 'set' command",
        "-A -t 10.0.0.100:0 -s rr                       | Zero port specified for non-persistent service",
        "-A -t 10.0.0.100:80 -o                         | One-Packet Scheduling is only for UDP virtual services",
        "-a -t 10.0.0.100:80 -r [2001:db8::1]:80 -m |" +
            " Different address family is allowed only for tunneling servers",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -m --tun-type ipip | Tunnel options conflict with forward method",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -i --tun-csum | Illegal 'tun-csum' option with the 'ipip' tunnel type",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -i --tun-type gue |" +
            " You need to supply the 'tun-port' option for the 'gue' tunnel type",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -i --tun-type gre --tun-csum --tun-nocsum |" +
            " The option 'tun-csum' conflicts with the 'tun-nocsum' option in the 'gre' tunnel type",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -i --tun-type gre --tun-remcsum |" +
            " Illegal 'tun-remcsum' option with the 'gre' tunnel type",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -i --tun-type gue --tun-port 6080 |" +
            " tunnel type `gue' is not supported by jvs yet",
    })
    void shouldFailAsIpvsadmWithStatusTwo(final String line, final String message)
    {
        final IpvsadmException ex = refusal(line);
        assertThat(ex).as(line).isNotNull();
        assertThat(ex.kind()).isEqualTo(IpvsadmException.Kind.FAIL);
        assertThat(ex.exitStatus()).isEqualTo(2);
        assertThat(ex.getMessage()).startsWith(message);
    }

    @Test
    void shouldKeepTheExtraNewlineOfTheIpv6BeforeFwmarkMessage()
    {
        assertThat(refusal("-A -t 10.0.0.100:80 -6").errorText("ipvsadm")).isEqualTo("-6 used before -f\n\n");
    }

    /** popt errors: "%s: %s\n" of poptBadOption and poptStrerror, result -1 (status 255). */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-A -t                                          | -t: missing argument",
        "-A --tcp 10.0.0.100:80                         | --tcp: unknown option",
        "-A -t 10.0.0.100:80 -q                         | -q: unknown option",
        "-L -nq                                         | -nq: unknown option",
        "-L --stats=1                                   | --stats=1: option does not take an argument",
        "-L -n=1                                        | -n=1: option does not take an argument",
    })
    void shouldReportPoptErrors(final String line, final String message)
    {
        final IpvsadmException ex = refusal(line);
        assertThat(ex.kind()).isEqualTo(IpvsadmException.Kind.POPT);
        assertThat(ex.exitStatus()).isEqualTo(255);
        assertThat(ex.errorText("ipvsadm")).isEqualTo(message + "\n");
    }

    /** tryhelp_exit: no command first, a popt error on the first option, -R inside -R. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"-t 10.0.0.100:80", "10.0.0.1", "--frob", "-C=1", "-q", "# comment"})
    void shouldHintAtHelpWhenTheFirstOptionIsNoCommand(final String line)
    {
        assertThat(refusal(line).kind()).isEqualTo(IpvsadmException.Kind.TRY_HELP);
    }

    @Test
    void shouldRefuseRestoreInsideRestore()
    {
        final IpvsadmException ex = catchThrowableOfType(IpvsadmException.class,
            () -> IpvsadmCommandLine.parse(List.of("-R"), true));
        assertThat(ex.kind()).isEqualTo(IpvsadmException.Kind.TRY_HELP);
    }

    @Test
    void shouldLookUpNamesThroughTheGivenNames()
    {
        final Names names = new Names()
        {
            @Override
            public io.jvs.core.net.IpAddress hostAddress(final String name)
            {
                return "web".equals(name) ? ip("192.168.1.9") : null;
            }

            @Override
            public int servicePort(final String name, final Protocol protocol)
            {
                return "http".equals(name) && protocol == Protocol.TCP ? 80 : -1;
            }
        };
        assertThat(((IpvsadmRequest.Change)IpvsadmCommandLine.parse(words("-a -t 10.0.0.100:http -r web -m"), false,
            names)).command()).isEqualTo(new RuleCommand.PutServer(false, WEB, ip("192.168.1.9"), 80,
            ForwardMethod.NAT, 1, 0, 0));
    }
}
