package io.jvs.tools.synth;

import io.jvs.core.pcap.PcapReader;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;
import io.jvs.tools.CommandRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class SynthCommandTest
{
    @TempDir
    Path directory;

    @Test
    void shouldWriteTheTraceAndItsRulesAndSaySo() throws Exception
    {
        final Path pcap = directory.resolve("farm.pcap");
        final Path rules = directory.resolve("farm.rules");

        final CommandRun run = CommandRun.of("synth", "--out", pcap.toString(), "--rules-out", rules.toString(),
            "--packets", "2000", "--services", "3", "--method", "dr", "--weights", "5,1", "--seed", "9");

        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(run.out()).contains("wrote 2000 packets to " + pcap, "tcp ", "udp ", "malformed ",
            "rules written to " + rules);
        try (PcapReader reader = PcapReader.open(pcap))
        {
            long packets = 0;
            while (reader.next())
            {
                packets++;
            }
            assertThat(packets).isEqualTo(2000);
        }
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        RulesFile.load(rules, table);
        assertThat(table.services()).hasSize(8);
        assertThat(Files.readString(rules)).contains("-a -t 10.0.0.102:80 -r 192.168.12.1:80 -g -w 5");
    }

    @Test
    void shouldRefuseATraceWhoseRecordsCannotFitWhereItGoesAndWriteNothing() throws Exception
    {
        final Path pcap = directory.resolve("huge.pcap");
        // 10^12 records' 16-byte headers alone: 16 TB.
        final CommandRun run = CommandRun.of("synth", "--out", pcap.toString(), "--packets", "1000000000000");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("jvs synth: 1000000000000 packets need at least 16000.0 GB and " +
            "the file system of " + pcap + " has ").endsWith(" GB free; nothing written\n");
        try (var left = Files.list(directory))
        {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void shouldWriteTheSameFileTwiceForOneSeed() throws Exception
    {
        final Path first = directory.resolve("a.pcap");
        final Path second = directory.resolve("b.pcap");

        CommandRun.of("synth", "--out", first.toString(), "--duration", "0.01", "--no-nanos");
        CommandRun.of("synth", "--out", second.toString(), "--duration", "0.01", "--no-nanos");

        assertThat(Files.readAllBytes(second)).isEqualTo(Files.readAllBytes(first));
        assertThat(Files.size(first)).isGreaterThan(1000 * 54L);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--ipv6-share|1.5|--ipv6-share must be in [0, 1], not 1.5",
        "--vlan-share|-0.1|--vlan-share must be in [0, 1], not -0.1",
        "--malformed-share|2|--malformed-share must be in [0, 1], not 2.0",
        "--clients|0|--clients must be in 1..",
        "--services|0|--services must be in 1..1000, not 0",
        "--servers-per-service|251|--servers-per-service must be in 1..250, not 251",
        "--packets|0|--packets must be 1 or more, not 0",
        "--duration|-1|--duration must be above 0 seconds, not -1.0",
        "--rate|0|--rate must be in 1..1000000000, not 0",
        "--method|lc|--method must be nat, dr or tun, not lc",
        "--scheduler|fastest|--scheduler must be one of rr, wrr, lc, wlc, sed, nq, fo, ovf, twos, lblc, lblcr, dh, sh, mh, not 'fastest'",
        "--weights|1,-2|--weights must be in 0..2147483647, not -2",
        "--zipf|-1|--zipf must be in [0, 100], not -1.0",
        "--start|yesterday|--start must be an ISO-8601 UTC time",
        "--concurrent-flows|0|--concurrent-flows must be in 1..28232, not 0"})
    void shouldRefuseABadValueWithStatusTwoNamingTheOption(final String option, final String value,
        final String message)
    {
        final CommandRun run = CommandRun.of("synth", "--out", directory.resolve("x.pcap").toString(), option, value);

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("jvs synth: " + message).endsWith("; try 'tools/jvs synth --help'\n");
        assertThat(run.err().lines()).hasSize(1);
        assertThat(directory.resolve("x.pcap")).doesNotExist();
    }

    @Test
    void shouldRefuseBothPacketsAndDurationAndAMissingOut()
    {
        final CommandRun both = CommandRun.of("synth", "--out", directory.resolve("x.pcap").toString(),
            "--packets", "5", "--duration", "1");
        final CommandRun noOut = CommandRun.of("synth", "--packets", "5");

        assertThat(both.status()).isEqualTo(2);
        assertThat(both.err()).isEqualTo("jvs synth: give --packets or --duration, not both; " +
            "try 'tools/jvs synth --help'" + System.lineSeparator());
        assertThat(noOut.status()).isEqualTo(2);
        assertThat(noOut.err()).isEqualTo("jvs synth: missing required option --out=FILE; " +
            "try 'tools/jvs synth --help'" + System.lineSeparator());
    }

    @Test
    void shouldPrintTheDefaultsInItsHelp()
    {
        final CommandRun run = CommandRun.of("synth", "--help");

        assertThat(run.status()).isZero();
        assertThat(run.out()).contains("--rate=PPS", "(default 100000)", "--ipv6-share", "(default 0.2)",
            "02:00:00:00:00:fe", "02:00:00:00:00:10");
    }
}
