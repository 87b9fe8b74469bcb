package io.jvs.tools.simulate;

import io.jvs.tools.CommandRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jvs simulate} as a command: input checking, random flows, persistence and the summary.
 */
class SimulateCommandTest
{
    private static final List<String> WRR_RULES = List.of(
        "# a comment, then ipvsadm -S -n output",
        "-A -t 10.0.0.100:80 -s wrr",
        "-a -t 10.0.0.100:80 -r 192.168.1.3:80 -m -w 2",
        "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m -w 3",
        "ipvsadm -a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 4");

    @TempDir
    Path directory;

    @Test
    void shouldRefuseABadRuleWithItsLineAndRunNothing() throws IOException
    {
        final Path rules = write("bad.rules", "-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -w 2147483648");
        final Path flows = write("ok.flows", "tcp 1.2.3.4:5 10.0.0.100:80");
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", flows.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs simulate: " + rules + ":2: illegal weight specified\n");
    }

    @Test
    void shouldRefuseARuleThatTheConfigurationRejects() throws IOException
    {
        final Path rules = write("bad.rules", "-A -t 10.0.0.100:80 -s wrr", "-a -t 10.0.0.101:80 -r 192.168.1.1:80");
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", "random:3");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(rules + ":2: Service not defined");
    }

    @Test
    void shouldRefuseAnUnknownScheduler() throws IOException
    {
        final Path rules = write("bad.rules", "-A -t 10.0.0.100:80 -s fastest");
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", "random:3");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains(":1: Scheduler not found: fastest");
    }

    @Test
    void shouldRefuseABadFlowLineWithItsLine() throws IOException
    {
        final Path rules = write("ok.rules", WRR_RULES.toArray(String[]::new));
        final Path flows = write("bad.flows", "tcp 1.2.3.4:5 10.0.0.100:80", "", "icmp 1.2.3.4:5 10.0.0.100:80");
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", flows.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(flows + ":3: unknown protocol `icmp'");
    }

    @Test
    void shouldPrintNothingWhenARuleChangeInTheFlowsIsRefused() throws IOException
    {
        final Path rules = write("ok.rules", WRR_RULES.toArray(String[]::new));
        final Path flows = write("change.flows",
            "tcp 1.2.3.4:5 10.0.0.100:80", "-d -t 10.0.0.100:80 -r 192.168.1.9:80", "tcp 1.2.3.4:6 10.0.0.100:80");
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", flows.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains(flows + ":2: No such destination");
    }

    @Test
    void shouldSayWhenAFileIsMissing()
    {
        final CommandRun run = CommandRun.of("simulate", "--rules", directory.resolve("none.rules").toString(),
            "--flows", "random:1");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("jvs simulate: cannot read " + directory.resolve("none.rules") +
            ": no such file or directory\n");
    }

    @Test
    void shouldPrintOneLinePerFlowInInputOrderIncludingUnmatchedAndIpv6() throws IOException
    {
        final Path rules = write("mixed.rules",
            "-A -u [2001:db8::100]:53 -s rr",
            "-a -u [2001:db8::100]:53 -r [2001:db8::1]:5353 -m -w 1",
            "-A -t 10.0.0.100:80 -s rr",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -m -w 1");
        final Path flows = write("mixed.flows",
            "udp [2001:db8:1::5]:4000 [2001:db8::100]:53",
            "tcp 1.2.3.4:5555 10.0.0.100:443  # no service on 443",
            "tcp 1.2.3.4:5555 10.0.0.100:80");
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", flows.toString());
        assertThat(run.status()).isZero();
        assertThat(run.out()).isEqualTo(
            "[2001:db8:1::5]:4000 [2001:db8::100]:53 -> [2001:db8::1]:5353\n" +
            "1.2.3.4:5555 10.0.0.100:443 -> -\n" +
            "1.2.3.4:5555 10.0.0.100:80 -> 192.168.1.1:8080\n");
    }

    @Test
    void shouldGiveRandomFlowsWeightedSharesExactlyOverFullCycles() throws IOException
    {
        final Path rules = write("wrr.rules", WRR_RULES.toArray(String[]::new));
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", "random:9000:5",
            "--summary");
        assertThat(run.status()).isZero();
        assertThat(run.out().lines().filter(line -> line.contains(" -> ")).count()).isEqualTo(9000);
        assertThat(run.out())
            .contains("TCP 10.0.0.100:80 wrr: 9000 flows, 0 without a server")
            .containsPattern("192\\.168\\.1\\.1:80 +4 +4000 +0 +4000 +44\\.4% +44\\.4%")
            .containsPattern("192\\.168\\.1\\.2:80 +3 +3000 +0 +3000 +33\\.3% +33\\.3%")
            .containsPattern("192\\.168\\.1\\.3:80 +2 +2000 +0 +2000 +22\\.2% +22\\.2%");
    }

    @Test
    void shouldRepeatTheSameRandomFlowsForTheSameSeed() throws IOException
    {
        final Path rules = write("wrr.rules", WRR_RULES.toArray(String[]::new));
        final CommandRun first = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", "random:50:9");
        final CommandRun second = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", "random:50:9");
        final CommandRun other = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", "random:50:10");
        assertThat(first.out()).isEqualTo(second.out()).isNotEqualTo(other.out());
    }

    @Test
    void shouldKeepAClientNetworkOnOneServerWhenPersistent() throws IOException
    {
        final Path rules = write("persistent.rules",
            "-A -t 10.0.0.100:443 -s rr -p 360 -M 255.255.255.0",
            "-a -t 10.0.0.100:443 -r 192.168.1.2:443 -m -w 1",
            "-a -t 10.0.0.100:443 -r 192.168.1.1:443 -m -w 1");
        final Path flows = write("persistent.flows",
            "tcp 10.0.0.2:1000 10.0.0.100:443",
            "tcp 10.0.0.3:1000 10.0.0.100:443",
            "tcp 10.0.1.2:1000 10.0.0.100:443",
            "tcp 10.0.0.9:1000 10.0.0.100:443");
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", flows.toString(),
            "--summary");
        assertThat(run.status()).isZero();
        assertThat(run.out()).startsWith(
            "10.0.0.2:1000 10.0.0.100:443 -> 192.168.1.1:443\n" +
            "10.0.0.3:1000 10.0.0.100:443 -> 192.168.1.1:443\n" +
            "10.0.1.2:1000 10.0.0.100:443 -> 192.168.1.2:443\n" +
            "10.0.0.9:1000 10.0.0.100:443 -> 192.168.1.1:443\n");
        assertThat(run.out()).contains("rr persistent 360");
    }

    @Test
    void shouldCountUdpFlowsAsInactive() throws IOException
    {
        final Path rules = write("udp.rules", "-A -u 10.0.0.100:53 -s lc", "-a -u 10.0.0.100:53 -r 192.168.1.1:53 -m");
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", "random:3",
            "--summary");
        assertThat(run.out()).containsPattern("192\\.168\\.1\\.1:53 +1 +0 +3 +3 +100\\.0%");
    }

    @Test
    void shouldListTheSubcommandsInTheHelp()
    {
        final CommandRun run = CommandRun.of("--help");
        assertThat(run.status()).isZero();
        assertThat(run.out()).contains("simulate");
    }

    private Path write(final String name, final String... lines) throws IOException
    {
        return Files.write(directory.resolve(name), List.of(lines));
    }

    @Test
    void shouldWarnAboutAnEmptyRulesFileAndAnEmptyFlowsFile() throws IOException
    {
        final Path rules = write("empty.rules", "");
        final Path flows = write("empty.flows", "# none", "");

        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", flows.toString());

        assertThat(run.status()).isZero();
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs simulate: warning: " + rules + " holds no rules: no flow gets a server\n" +
            "jvs simulate: warning: " + flows + " holds no flows: nothing to show\n");
    }

    @Test
    void shouldNameADirectoryGivenAsRules()
    {
        final CommandRun run = CommandRun.of("simulate", "--rules", directory.toString(), "--flows", "random:1");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("jvs simulate: cannot read " + directory + ": is a directory\n");
    }
}
