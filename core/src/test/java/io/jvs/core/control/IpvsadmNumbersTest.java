package io.jvs.core.control;

import io.jvs.core.rules.RuleCommand;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;

import static io.jvs.core.control.Fixtures.ip;
import static io.jvs.core.control.Fixtures.tcp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * ipvsadm 1.31's numbers and addresses at their edges: an option given twice (set_option), string_to_number's
 * ranges at both ends, strtol's overflow, inet_aton's octal, hexadecimal and short forms, atoi for an IPv6
 * persistence mask, inet_pton for a sync daemon's multicast group, and brackets with no port after them.
 */
class IpvsadmNumbersTest
{
    private static final ServiceKey WEB = tcp("10.0.0.100", 80);

    private static IpvsadmRequest parse(final List<String> words)
    {
        return IpvsadmCommandLine.parse(words, false);
    }

    private static IpvsadmRequest parse(final String line)
    {
        return parse(Arrays.asList(line.split(" ")));
    }

    private static RuleCommand change(final String line)
    {
        return ((IpvsadmRequest.Change)parse(line)).command();
    }

    private static IpvsadmException refusal(final String line)
    {
        final IpvsadmException ex = catchThrowableOfType(IpvsadmException.class, () -> parse(line));
        assertThat(ex).as(line).isNotNull();
        return ex;
    }

    /** set_option: every option ipvsadm keeps a bit for may be given once. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-A -t 10.0.0.100:80 -p 60 -p 60                     | persistent",
        "-A -t 10.0.0.100:80 -p 60 -M 255.255.255.0 -M 255.255.0.0 | netmask",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -x 5 -x 6        | u-threshold",
        "-a -t 10.0.0.100:80 -r 192.168.1.1 -y 5 -y 6        | l-threshold",
        "--start-daemon master --mcast-interface eth0 --mcast-interface eth1 | mcast-interface",
        "--start-daemon master --syncid 1 --syncid 2         | syncid",
        "-A -u 10.0.0.100:53 -o -o                           | ops",
        "-A -u 10.0.0.100:53 -p --pe sip --pe sip            | pe",
        "-A -t 10.0.0.100:80 -s sh -b sh-port -b sh-fallback | sched-flags",
        "--start-daemon master --mcast-group 224.0.0.81 --mcast-group 224.0.0.82 | mcast-group",
        "--start-daemon master --mcast-port 8848 --mcast-port 8849 | mcast-port",
        "--start-daemon master --mcast-ttl 1 --mcast-ttl 2   | mcast-ttl",
        "--start-daemon master --sync-maxlen 1400 --sync-maxlen 1400 | sync-maxlen",
        "-L --tun-info --tun-info                            | tun-info",
    })
    void shouldRefuseAnOptionGivenTwice(final String line, final String label)
    {
        final IpvsadmException ex = refusal(line);
        assertThat(ex.kind()).isEqualTo(IpvsadmException.Kind.FAIL);
        assertThat(ex.getMessage()).isEqualTo("multiple '" + label + "' options specified");
    }

    @Test
    void shouldTakeWeightsAndThresholdsAtBothEndsOfTheirRanges()
    {
        assertThat(change("-a -t 10.0.0.100:80 -r 192.168.1.1 -w 0 -x 0 -y 0")).isEqualTo(
            new RuleCommand.PutServer(false, WEB, ip("192.168.1.1"), 80, ForwardMethod.DR, 0, 0, 0));
        // Debian's ipvsadm takes weights up to the kernel's INT_MAX, as jvs does.
        assertThat(change("-a -t 10.0.0.100:80 -r 192.168.1.1 -w 2147483647 -x 2147483647 -y 2147483647")).isEqualTo(
            new RuleCommand.PutServer(false, WEB, ip("192.168.1.1"), 80, ForwardMethod.DR, Integer.MAX_VALUE,
                Integer.MAX_VALUE, Integer.MAX_VALUE));
        assertThat(change("-a -t 10.0.0.100:80 -r 192.168.1.1 -w +7")).isEqualTo(
            new RuleCommand.PutServer(false, WEB, ip("192.168.1.1"), 80, ForwardMethod.DR, 7, 0, 0));
        assertThat(refusal("-a -t 10.0.0.100:80 -r 192.168.1.1 -w -1").getMessage())
            .isEqualTo("illegal weight specified");
    }

    @ParameterizedTest
    @ValueSource(strings = {"9223372036854775807", "9223372036854775808", "99999999999999999999", "", "+", "- 1"})
    void shouldRefuseAWeightThatIsNotANumberOrOverflows(final String weight)
    {
        final IpvsadmException ex = catchThrowableOfType(IpvsadmException.class,
            () -> parse(List.of("-a", "-t", "10.0.0.100:80", "-r", "192.168.1.1", "-w", weight)));
        assertThat(ex).isNotNull();
        assertThat(ex.getMessage()).isEqualTo("illegal weight specified");
    }

    @Test
    void shouldSkipLeadingBlanksOfANumberAsStrtolDoes()
    {
        assertThat(((RuleCommand.PutServer)((IpvsadmRequest.Change)parse(
            List.of("-a", "-t", "10.0.0.100:80", "-r", "192.168.1.1", "-w", " \t12"))).command()).weight())
            .isEqualTo(12);
    }

    @Test
    void shouldReadAddressesAndMasksInEveryFormInetAtonTakes()
    {
        // Octal parts start with 0, hexadecimal ones with 0x; the last part fills the bytes that are left.
        assertThat(((RuleCommand.AddService)change("-A -t 010.0.0.1:80")).key()).isEqualTo(tcp("8.0.0.1", 80));
        assertThat(((RuleCommand.AddService)change("-A -t 0.0.0.0:80")).key()).isEqualTo(tcp("0.0.0.0", 80));
        assertThat(((RuleCommand.AddService)change("-A -t 0x0a.0xFF.0.1:80")).key()).isEqualTo(tcp("10.255.0.1", 80));
        assertThat(((RuleCommand.AddService)change("-A -t 10.16777215:80")).key())
            .isEqualTo(tcp("10.255.255.255", 80));
        assertThat(prefix("-A -t 10.0.0.100:80 -p 60 -M 0xffffff00")).isEqualTo(24);
        assertThat(prefix("-A -t 10.0.0.100:80 -p 60 -M 037777777400")).isEqualTo(24);
        assertThat(prefix("-A -t 10.0.0.100:80 -p 60 -M 4294967295")).isEqualTo(32);
        assertThat(prefix("-A -t 10.0.0.100:80 -p 60 -M 0x")).as("0x alone is 0").isZero();
    }

    private static int prefix(final String line)
    {
        return ((RuleCommand.AddService)change(line)).settings().netmaskPrefix();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-A -t 10.16777216:80                   | illegal virtual server address[:port] specified",
        "-A -t 10.0.0.256:80                    | illegal virtual server address[:port] specified",
        "-A -t 08.0.0.1:80                      | illegal virtual server address[:port] specified",
        "-A -t 0xg.0.0.1:80                     | illegal virtual server address[:port] specified",
        "-A -t [2001:db8::1]                    | illegal virtual server address[:port] specified",
        "-A -t 10..1:80                         | illegal virtual server address[:port] specified",
        "-A -t 10.0.0.100:80 -p 60 -M 4294967296 | illegal virtual server persistent mask specified",
        "-A -t 10.0.0.100:80 -p 60 -M 1.2.3.4.5 | illegal virtual server persistent mask specified",
    })
    void shouldRefuseWhatInetAtonRefuses(final String line, final String message)
    {
        assertThat(refusal(line).getMessage()).isEqualTo(message);
    }

    @Test
    void shouldReadAnIpv6LoopbackService()
    {
        assertThat(((RuleCommand.AddService)change("-A -t [::1]:80")).key()).isEqualTo(tcp("::1", 80));
    }

    /** ipvsadm reads an IPv6 service's -M with atoi: leading blanks and a sign, digits up to the first other. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {"64|64", "+64|64", "' 64'|64", "64abc|64", "1|1", "128|128", "0128|128"})
    void shouldReadAnIpv6MaskAsAtoi(final String mask, final int prefix)
    {
        final RuleCommand.AddService add = (RuleCommand.AddService)((IpvsadmRequest.Change)parse(
            List.of("-A", "-t", "[2001:db8::1]:80", "-p", "60", "-M", mask))).command();
        assertThat(add.settings().netmaskPrefix()).isEqualTo(prefix);
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "129", "-64", "abc", "", "99999999999"})
    void shouldRefuseAnIpv6MaskOutside1To128(final String mask)
    {
        final IpvsadmException ex = catchThrowableOfType(IpvsadmException.class,
            () -> parse(List.of("-A", "-t", "[2001:db8::1]:80", "-p", "60", "-M", mask)));
        assertThat(ex).isNotNull();
        assertThat(ex.getMessage()).isEqualTo("illegal ipv6 netmask specified");
    }

    @ParameterizedTest
    @ValueSource(strings = {"224.0.0.81", "239.255.255.255", "224.1.2.3", "ff02::1", "ff05::1:3"})
    void shouldTakeAMulticastGroupForTheSyncDaemon(final String group)
    {
        assertThat(parse("--start-daemon backup --mcast-group " + group))
            .isEqualTo(new IpvsadmRequest.SyncDaemon(true, false));
    }

    /** inet_pton(AF_INET) takes exactly four decimal parts without leading zeros; the group must be 224/4. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "223.255.255.255 | invalid IPv4 mcast-group `223.255.255.255'",
        "240.0.0.1       | invalid IPv4 mcast-group `240.0.0.1'",
        "224.0.0         | invalid IPv4 mcast-group `224.0.0'",
        "224.0.0.1.1     | invalid IPv4 mcast-group `224.0.0.1.1'",
        "224.0.0.081     | invalid IPv4 mcast-group `224.0.0.081'",
        "224.0.0.256     | invalid IPv4 mcast-group `224.0.0.256'",
        "224.0.0.1000    | invalid IPv4 mcast-group `224.0.0.1000'",
        "224..0.1        | invalid IPv4 mcast-group `224..0.1'",
        "224.0.0.+1      | invalid IPv4 mcast-group `224.0.0.+1'",
        "0xe0.0.0.1      | invalid IPv4 mcast-group `0xe0.0.0.1'",
        "fe80::1         | invalid IPv6 mcast-group `fe80::1'",
        "::1             | invalid IPv6 mcast-group `::1'",
        "ff02::zz        | invalid IPv6 mcast-group `ff02::zz'",
    })
    void shouldRefuseAGroupThatIsNotMulticastOrNotInetPtonsForm(final String group, final String message)
    {
        assertThat(refusal("--start-daemon master --mcast-group " + group).getMessage()).isEqualTo(message);
    }

    @Test
    void shouldKeepAFirewallMarkServiceOfEitherFamily()
    {
        assertThat(change("-A -f 4294967295 -s rr")).isEqualTo(new RuleCommand.AddService(
            ServiceKey.ofFirewallMark(-1, false), ServiceSettings.of("rr", false)));
        assertThat(change("-E -f 1 -6 -s rr -p 10 -M 64")).isEqualTo(new RuleCommand.EditService(
            ServiceKey.ofFirewallMark(1, true), new ServiceSettings("rr", SchedulerFlags.NONE, true, 10, 64, false)));
    }
}
