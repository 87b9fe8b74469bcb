package io.jvs.tools.simulate;

import io.jvs.tools.CommandRun;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scheduling sequences core's scheduler tests check (rr, wrr, the least-connection family, lblc, dh and sh
 * on a few servers, with ipvsadm edits between picks), run through {@code jvs simulate} as an operator would
 * run them.
 * <p>
 * Servers are letters: A is 192.168.1.1, B 192.168.1.2 and so on, listed in the order given (the
 * rules file adds them in reverse, since the newest server heads the list). The flows script is
 * "N" for N new connections from one client network, or an ipvsadm command applied at that point.
 */
class SimulateSpecExamplesTest
{
    @TempDir
    Path directory;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "RR-1   | rr   |           | A1 B1 C1 | 7                                          | A B C A B C A",
        "RR-2   | rr   |           | A1 B0 C1 | 5                                          | A C A C A",
        "RR-3   | rr   |           | A1 B1 C1 | 2; -d -t 10.0.0.100:80 -r 192.168.1.2:80; 4 | A B C A C A",
        "RR-4   | rr   |           | A1 B1 C1 | 2; -a -t 10.0.0.100:80 -r 192.168.1.4:80 -m -w 1; 6 | A B C D A B C D",
        "RR-5   | rr   |           | A0 B0 C0 | 3                                          | - - -",
        "WRR-1  | wrr  |           | A4 B3 C2 | 18                                         | A A B A B C A B C A A B A B C A B C",
        "WRR-2  | wrr  |           | A3 B1 C1 | 10                                         | A A A B C A A A B C",
        "WRR-3  | wrr  |           | A4 B2 C2 | 8                                          | A A B C A A B C",
        "WRR-4  | wrr  |           | A6 B3    | 6                                          | A A B A A B",
        "WRR-5  | wrr  |           | A4 B0 C2 | 6                                          | A A C A A C",
        "WRR-6  | wrr  |           | A2 B2 C2 | 6                                          | A B C A B C",
        "WRR-7  | wrr  |           | A5 B1    | 6                                          | A A A A A B",
        "WRR-8  | wrr  |           | A0 B0    | 3                                          | - - -",
        "WRR-9  | wrr  |           | A4x1 B3 C2 | 11                                       | A B B C B C B B C B C",
        "WRR-10 | wrr  |           | A4 B3 C2 | 2; -e -t 10.0.0.100:80 -r 192.168.1.3:80 -m -w 4; 12 | A A A B C A B C A B C A C A",
        "WRR-11 | wrr  |           | A4 B2 C2 | 1; -e -t 10.0.0.100:80 -r 192.168.1.2:80 -m -w 1; 10 | A A A C A B C A A A C",
        "LC-1   | lc   |           | A1 B2 C3 | 6                                          | A B C A B C",
        "WLC-1  | wlc  |           | A1 B2 C3 | 12                                         | A B C C B C A B C C B C",
        "SED-1  | sed  |           | A1 B2 C3 | 12                                         | C B C A B C C B C A B C",
        "NQ-1   | nq   |           | A1 B2 C3 | 12                                         | A B C C B C C B C A B C",
        "FO-1   | fo   |           | A1 B2 C3 | 2; -e -t 10.0.0.100:80 -r 192.168.1.3:80 -m -w 0; 2 | C C B B",
        "OVF-1  | ovf  |           | A1 B2 C3 | 10                                         | C C C C B B B A A -",
    })
    void shouldReproduceTheExample(
        final String example,
        final String scheduler,
        final String flags,
        final String servers,
        final String script,
        final String expected) throws IOException
    {
        final Path rules = writeRules(scheduler, flags, servers);
        final Path flows = writeFlows(script);
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", flows.toString());
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(letters(run.out())).isEqualTo(expected);
    }

    /**
     * The lblc case keys on the destination, so it runs as a firewall-mark service catching a cache cluster's
     * destinations X = 10.1.1.1 and Y = 10.1.1.2. In the dh case the cyclic table [A B C ...] sends 10.0.0.1
     * (bucket 177 = 3 * 59), 10.0.0.2 (98 = 3 * 32 + 2) and 10.0.0.3 (19 = 3 * 6 + 1) to A, C and B.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "LBLC-1 | lblc | 10.1.1.1 10.1.1.1 10.1.1.1 10.1.1.1 10.1.1.2 | A A A B B",
        "DH-1   | dh   | 10.0.0.1 10.0.0.2 10.0.0.3                   | A C B",
    })
    void shouldReproduceTheDestinationKeyedExample(
        final String example, final String scheduler, final String destinations, final String expected)
        throws IOException
    {
        final String servers = "lblc".equals(scheduler) ? "A2 B2" : "A1 B1 C1";
        final List<String> rules = new ArrayList<>();
        rules.add("-A -f 1 -s " + scheduler);
        final String[] specs = servers.split(" ");
        for (int i = specs.length - 1; i >= 0; i--)
        {
            rules.add("-a -f 1 -r 192.168.1." + (specs[i].charAt(0) - 'A' + 1) + ":80 -g -w " + specs[i].substring(1));
        }
        final List<String> flows = new ArrayList<>();
        int port = 1000;
        for (final String destination : destinations.trim().split("\\s+"))
        {
            flows.add("tcp 172.16.0.1:" + port++ + " " + destination + ":80 fwmark=1");
        }
        final CommandRun run = CommandRun.of("simulate",
            "--rules", Files.write(directory.resolve("dest.rules"), rules).toString(),
            "--flows", Files.write(directory.resolve("dest.flows"), flows).toString());
        assertThat(run.status()).isZero();
        assertThat(letters(run.out())).isEqualTo(expected);
    }

    /**
     * sh with weights 2:1:1 and 3:0:1, through clients whose buckets under the default multiplicative hash are
     * known (core's HashSchedulerSpecTest checks them): 10.0.0.1 to 177, 10.0.0.2 to 98, 10.0.0.3 to 19,
     * 192.168.1.100 to 36.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // A A B C repeating: 177 % 4 = 1 -> A, 98 % 4 = 2 -> B, 19 % 4 = 3 -> C, 36 % 4 = 0 -> A
        "SH-1 | A2 B1 C1 | A B C A",
        // A A A B C repeating: 177 % 5 = 2 -> A, 98 % 5 = 3 -> B (weight 0: refused), 19 % 5 = 4 -> C, 36 % 5 = 1 -> A
        "SH-2 | A3 B0 C1 | A - C A",
    })
    void shouldReproduceTheSourceHashExample(final String example, final String servers, final String expected)
        throws IOException
    {
        final Path rules = writeRules("sh", "", servers);
        final List<String> flows = new ArrayList<>();
        for (final String client : new String[] {"10.0.0.1", "10.0.0.2", "10.0.0.3", "192.168.1.100"})
        {
            flows.add("tcp " + client + ":40000 10.0.0.100:80");
        }
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(),
            "--flows", Files.write(directory.resolve("sh.flows"), flows).toString());
        assertThat(run.status()).isZero();
        assertThat(letters(run.out())).isEqualTo(expected);
    }

    private Path writeRules(final String scheduler, final String flags, final String servers) throws IOException
    {
        final List<String> lines = new ArrayList<>();
        lines.add("-A -t 10.0.0.100:80 -s " + scheduler + (flags == null || flags.isBlank() ? "" : " -b " + flags));
        final String[] specs = servers.trim().split("\\s+");
        for (int i = specs.length - 1; i >= 0; i--)
        {
            final String spec = specs[i];
            final int threshold = spec.indexOf('x');
            final String weight = threshold < 0 ? spec.substring(1) : spec.substring(1, threshold);
            lines.add("-a -t 10.0.0.100:80 -r 192.168.1." + (spec.charAt(0) - 'A' + 1) + ":80 -m -w " + weight +
                (threshold < 0 ? "" : " -x " + spec.substring(threshold + 1)));
        }
        return Files.write(directory.resolve("example.rules"), lines);
    }

    private Path writeFlows(final String script) throws IOException
    {
        final List<String> lines = new ArrayList<>();
        int port = 1000;
        for (final String step : script.split(";"))
        {
            final String trimmed = step.trim();
            if (trimmed.startsWith("-"))
            {
                lines.add(trimmed);
                continue;
            }
            for (int i = Integer.parseInt(trimmed); i > 0; i--)
            {
                lines.add("tcp 172.16.0.1:" + port++ + " 10.0.0.100:80");
            }
        }
        return Files.write(directory.resolve("example.flows"), lines);
    }

    static String letters(final String output)
    {
        final StringJoiner joiner = new StringJoiner(" ");
        for (final String line : output.split("\n"))
        {
            if (line.isBlank())
            {
                break;
            }
            final String target = line.substring(line.indexOf("-> ") + 3);
            joiner.add("-".equals(target) ? "-" :
                String.valueOf((char)('A' + Integer.parseInt(target.substring(10, target.indexOf(':'))) - 1)));
        }
        return joiner.toString();
    }
}
