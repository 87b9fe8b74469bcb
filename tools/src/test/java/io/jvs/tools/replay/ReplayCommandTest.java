package io.jvs.tools.replay;

import io.jvs.forwarder.synth.SynthSettings;
import io.jvs.forwarder.synth.TraceSynthesizer;
import io.jvs.tools.CommandRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code jvs replay} as a command: what it refuses before writing anything, and a whole run's files.
 */
class ReplayCommandTest
{
    @TempDir
    Path dir;

    private Path trace;
    private Path rules;

    @BeforeEach
    void synthesise() throws Exception
    {
        final SynthSettings settings = SynthSettings.builder().packets(5000).services(1).serversPerService(3)
            .clients(200).seed(3).scheduler("wrr").build();
        trace = dir.resolve("trace.pcap");
        TraceSynthesizer.synthesize(settings, trace);
        rules = Files.writeString(dir.resolve("farm.rules"), TraceSynthesizer.rules(settings));
    }

    @Test
    void shouldTakeEveryMarkOfThirtyTwoBitsAndRefuseOthersAndPipes() throws Exception
    {
        for (final String mark : new String[] {"4294967295", "0xffffffff", "1"})
        {
            final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
                "--fwmark", mark, "--quiet");
            assertThat(run.status()).as(mark + ": " + run.err()).isZero();
        }
        for (final String mark : new String[] {"-1", "0", "4294967296"})
        {
            final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
                "--fwmark", mark);
            assertThat(run.status()).isEqualTo(2);
            assertThat(run.err()).isEqualTo("jvs replay: --fwmark: the mark must be 1..4294967295 (or " +
                "0x1..0xffffffff), not \"" + mark + "\"; try 'tools/jvs replay --help'\n");
        }
        final CommandRun device = CommandRun.of("replay", "--rules", rules.toString(), "--in", "/dev/null");
        assertThat(device.status()).isEqualTo(2);
        assertThat(device.err()).isEqualTo("jvs replay: cannot read /dev/null: not a regular file (replay reads a " +
            "capture in place: save one from a pipe to a file first)\n");
    }

    @Test
    void shouldWriteTheForwardedFramesTheReportsAndTheDecisions() throws Exception
    {
        final Path out = dir.resolve("out.pcap");
        final Path json = dir.resolve("report.json");
        final Path svg = dir.resolve("report.svg");
        final Path decisions = dir.resolve("decisions.csv");
        final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
            "--out", out.toString(), "--report", json.toString(), "--svg", svg.toString(), "--decisions",
            decisions.toString(), "--workers", "2");
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(run.out()).contains("frames in 5000 = forwarded ").contains("TCP 10.0.0.100:80 wrr")
            .contains("-> 192.168.10.3:80").contains("pipeline time per frame: p50 ").contains("rate: 5000 frames in")
            .contains("wrote the report to " + json).contains("wrote the pictures to " + svg);
        final java.util.regex.Matcher reconciled = java.util.regex.Pattern.compile("forwarded (\\d+) = the " +
            "services' packets (\\d+) \\+ later fragments (\\d+)\n    \\+ ICMP errors jvs answered with (\\d+) " +
            "\\+ other (\\d+) \\(relayed ICMP errors, servers' replies\\)\n").matcher(run.out());
        assertThat(reconciled.find()).as(run.out()).isTrue();
        final long[] figures = java.util.stream.IntStream.rangeClosed(1, 5)
            .mapToLong(g -> Long.parseLong(reconciled.group(g))).toArray();
        assertThat(figures[0]).isEqualTo(figures[1] + figures[2] + figures[3] + figures[4]);
        assertThat(figures[4]).as("other").isNotNegative();
        assertThat(run.out()).contains("= forwarded " + figures[0] + " + ");
        assertThat(Files.readString(json)).contains("\"in\": 5000").contains("\"workers\": 2")
            .contains("\"server\": \"192.168.10.1:80\", \"method\": \"Masq\", \"weight\": 1");
        assertThat(Files.size(out)).isGreaterThan(100_000);
        assertThat(Files.readAllLines(decisions).get(1)).startsWith("2026-01-01T00:00:");
        final var document = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(svg.toFile());
        assertThat(document.getDocumentElement().getTagName()).isEqualTo("svg");
        assertThat(Files.readString(svg)).contains("192.168.10.2:80");
    }

    @Test
    void shouldRefuseABadRuleWithItsLineAndWriteNothing() throws Exception
    {
        final Path bad = Files.write(dir.resolve("bad.rules"), List.of("-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -w 2147483648"));
        final Path out = dir.resolve("out.pcap");
        final CommandRun run = CommandRun.of("replay", "--rules", bad.toString(), "--in", trace.toString(), "--out",
            out.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("jvs replay: " + bad + ":2: illegal weight specified\n");
        assertThat(out).doesNotExist();
    }

    @Test
    void shouldRefuseABadConfigurationLine() throws Exception
    {
        final Path config = Files.write(dir.resolve("box.conf"), List.of("port 0 mac 02:00:00:00:00:10",
            "set sloppy_tcp perhaps"));
        final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--config", config.toString(),
            "--in", trace.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains(config + ":2: set sloppy_tcp: the value is 0 or 1, not perhaps");
    }

    @Test
    void shouldTakeTheServicesFromADaemonsConfigurationFile() throws Exception
    {
        final List<String> lines = new java.util.ArrayList<>(List.of("interface eth0 port afxdp queues 2",
            "workers 2 cpus 0-1", "idle spin", "connections 65536", "control /run/jvs/jvs.sock", "vip-arp off",
            "mark 1 in eth0 dst 10.0.0.0/24"));
        lines.addAll(Files.readAllLines(rules));
        final Path config = Files.write(dir.resolve("box.conf"), lines);
        final CommandRun run = CommandRun.of("replay", "--config", config.toString(), "--in", trace.toString());
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(run.out()).contains("frames in 5000 = forwarded ").contains("rules: " + config + ", config: " +
            config).contains("TCP 10.0.0.100:80 wrr");

        final CommandRun both = CommandRun.of("replay", "--rules", rules.toString(), "--config", config.toString(),
            "--in", trace.toString());
        assertThat(both.status()).isEqualTo(2);
        assertThat(both.err()).contains("the services are given twice, by --rules " + rules + " and at " + config +
            ":8: give them in one place");
        assertThat(both.err().lines()).hasSize(1);

        final CommandRun neither = CommandRun.of("replay", "--in", trace.toString());
        assertThat(neither.status()).isEqualTo(2);
        assertThat(neither.err()).contains("a replay needs services: --rules FILE, or a --config that gives them");
    }

    @Test
    void shouldRefuseABadRuleInTheConfigurationWithItsLine() throws Exception
    {
        final Path config = Files.write(dir.resolve("box.conf"), List.of("interface eth0",
            "-A -t 10.0.0.100:80 -s wrr", "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -w 2147483648"));
        final CommandRun run = CommandRun.of("replay", "--config", config.toString(), "--in", trace.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains(config + ":3: illegal weight specified");
    }

    @Test
    void shouldRefuseAMissingOrBrokenCaptureABadFilterAndAllIntoPcap() throws Exception
    {
        final CommandRun missing = CommandRun.of("replay", "--rules", rules.toString(), "--in",
            dir.resolve("nope.pcap").toString());
        assertThat(missing.status()).isEqualTo(2);
        assertThat(missing.err()).isEqualTo("jvs replay: cannot read " + dir.resolve("nope.pcap") +
            ": no such file or directory\n");

        final Path text = Files.writeString(dir.resolve("notes.pcap"), "not a capture at all, just some words");
        final CommandRun broken = CommandRun.of("replay", "--rules", rules.toString(), "--in", text.toString());
        assertThat(broken.status()).isEqualTo(2);
        assertThat(broken.err()).startsWith("jvs replay: " + text + ": not a capture file: ");
        assertThat(broken.err().lines()).hasSize(1);

        final CommandRun filter = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
            "--filter", "tcp and and port 80");
        assertThat(filter.status()).isEqualTo(2);
        assertThat(filter.err()).isEqualTo("jvs replay: --filter 'tcp and and port 80' for link type ETHERNET: " +
            "libpcap: can't parse filter expression: syntax error; nothing written\n");

        final CommandRun all = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
            "--all", "--out", dir.resolve("all.pcap").toString());
        assertThat(all.status()).isEqualTo(2);
        assertThat(all.err()).contains("name the output *.pcapng");
        assertThat(dir.resolve("all.pcap")).doesNotExist();
    }

    @Test
    void shouldLeaveNoOutputWhenTheFilterFitsNoLinkTypeMetLater() throws Exception
    {
        // The expression compiles for Ethernet (checked first) but not for Linux cooked captures.
        final Path cooked = dir.resolve("cooked.pcap");
        final java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocateDirect(64);
        try (io.jvs.core.pcap.PcapWriter writer = io.jvs.core.pcap.PcapWriter.open(cooked,
            io.jvs.core.pcap.TimestampPrecision.MICROSECONDS, io.jvs.core.pcap.LinkType.LINUX_SLL, 65535))
        {
            writer.write(1_000_000_000L, io.jvs.core.packet.Frames.addressOf(buffer), 40);
        }
        final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", cooked.toString(),
            "--filter", "ether host 02:00:00:00:00:10", "--out", dir.resolve("out.pcap").toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("jvs replay: --filter 'ether host 02:00:00:00:00:10' for link type " +
            "LINUX_SLL: libpcap: ").endsWith("; nothing written\n");
        assertThat(run.err().lines()).hasSize(1);
        assertThat(dir.resolve("out.pcap")).doesNotExist();
        assertThat(dir).isDirectoryNotContaining("glob:**.tmp");
    }

    @Test
    void shouldWarnOnStandardErrorEvenWhenQuietThatTheCaptureIsTruncated() throws Exception
    {
        final Path cut = dir.resolve("cut.pcap");
        Files.write(cut, java.util.Arrays.copyOf(Files.readAllBytes(trace), (int)Files.size(trace) - 10));

        final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", cut.toString(),
            "--quiet");

        assertThat(run.status()).isZero();
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("jvs replay: warning: " + cut + ": stopped early: ");
        assertThat(run.err().lines()).hasSize(1);
    }

    @Test
    void shouldWarnThatAnEmptyRulesFileGivesNoService() throws Exception
    {
        final Path empty = Files.writeString(dir.resolve("empty.rules"), "# nothing yet\n\n");

        final CommandRun run = CommandRun.of("replay", "--rules", empty.toString(), "--in", trace.toString(),
            "--quiet");

        assertThat(run.err()).isEqualTo("jvs replay: warning: " + empty + " holds no rules: every frame is passed\n");
        assertThat(run.status()).isZero();
    }

    @Test
    void shouldNameACaptureGivenAsRulesWithItsReason() throws Exception
    {
        final CommandRun run = CommandRun.of("replay", "--rules", trace.toString(), "--in", trace.toString());

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("jvs replay: cannot read " + trace + ": not UTF-8 text\n");
    }
}
