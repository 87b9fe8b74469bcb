package io.jvs.tools.replay;

import io.jvs.core.pcap.PcapFormatException;
import io.jvs.core.rules.RuleException;
import io.jvs.forwarder.config.FirewallMarks;
import io.jvs.forwarder.replay.CaptureChangedException;
import io.jvs.forwarder.replay.Replay;
import io.jvs.forwarder.replay.ReplayOptions;
import io.jvs.forwarder.replay.ReplayReport;
import io.jvs.forwarder.replay.ReplayReportFormat;
import io.jvs.forwarder.replay.ReplaySvg;
import io.jvs.tools.CommandError;
import io.jvs.tools.JvsMain;
import io.jvs.tools.io.InputFiles;
import io.jvs.core.io.IoMessages;
import io.jvs.tools.io.OutputFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jvs replay}: a capture through the data path, offline, with a report of what each server got.
 */
@Command(
    name = "replay",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    description = {
        "Runs a pcap or pcapng capture through the data path, offline.",
        "Every frame goes through jvs's data path (the daemon's parser, connection",
        "tables, schedulers, NAT/DR/tunnel rewriting) on a clock taken from the",
        "capture. It writes the forwarded frames and reports frames",
        "in/forwarded/passed/dropped by reason, each service's and real server's",
        "connections, packets, bytes and share against its weight, the pipeline's",
        "time per frame and the replay rate. The same capture, rules and --workers",
        "give the same forwarded frames, decisions and counts (the timings are the",
        "run's own; the schedulers run per worker, so another --workers gives other",
        "decisions)."},
    footer = {
        "",
        "RULES holds ipvsadm commands as `ipvsadm -S -n` prints them. CONFIG is the",
        "daemon's configuration file (jvs run --config), a statement a line:",
        "  port 0 mac 02:00:00:00:00:10 mtu 1500 ipv4 192.0.2.1 ipv6 2001:db8::1",
        "  gateway mac 02:00:00:00:00:fe",
        "  neighbour 192.168.10.1 mac 02:00:00:00:01:01",
        "  set sloppy_tcp 1",
        "  timeout tcp 900 tcpfin 120 udp 300",
        "  -A -t 10.0.0.100:80 -s wrr          (ipvsadm lines, or: rules FILE)",
        "The services come from --rules or from CONFIG, not both. Replay accepts",
        "the daemon's statements and ignores interface (but for numbering ports",
        "0..n-1), workers, idle, connections, control and vip-arp; mark statements",
        "mark frames as the daemon's do (after --fwmark, which marks all). Without",
        "CONFIG: that port and gateway, real servers at MACs 02:6a:<address>, the",
        "kernel's defaults.",
        "Linux cooked (tcpdump -i any), raw IP and loopback captures are replayed",
        "as Ethernet; frames the capturing host sent itself are skipped. The",
        "outputs are written to temporary files renamed into place at the end:",
        "a run that fails leaves none behind and an older file as it was. Exit",
        "status: 0 done; 2 bad rules, config, options, capture or output path, or",
        "a capture that changed while it was read; 1 an I/O error while",
        "replaying. Only 0 writes anything."})
public final class ReplayCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--rules", paramLabel = "RULES", description = "The ipvsadm rules (unless CONFIG gives " +
        "the services).")
    private Path rules;

    @Option(names = "--config", paramLabel = "CONFIG", description = "The box: ports, next hops, switches, " +
        "timeouts, perhaps the services (the daemon's file).")
    private Path config;

    @Option(names = "--in", required = true, paramLabel = "TRACE", description = "The pcap or pcapng capture.")
    private Path input;

    @Option(names = "--filter", paramLabel = "EXPR", description = "Replays only the records this tcpdump " +
        "filter matches.")
    private String filter;

    @Option(names = "--out", paramLabel = "FORWARDED", description = "Where the forwarded frames go: a pcap " +
        "(pcapng with --all).")
    private Path output;

    @Option(names = "--all", description = "Writes passed and dropped frames too, each marked with its " +
        "verdict.")
    private boolean all;

    @Option(names = "--report", paramLabel = "REPORT.json", description = "Where the report goes, as JSON.")
    private Path report;

    @Option(names = "--svg", paramLabel = "REPORT.svg", description = "Where the report goes as pictures " +
        "(share against weight, connections over time, pipeline time per frame).")
    private Path svg;

    @Option(names = "--decisions", paramLabel = "DECISIONS.csv",
        description = "Where one CSV line per new connection goes.")
    private Path decisions;

    @Option(names = "--workers", defaultValue = "1", paramLabel = "N", description = "Pipelines the frames are " +
        "spread over, as the daemon's workers; the schedulers' decisions depend on it (default ${DEFAULT-VALUE}).")
    private int workers;

    @Option(names = "--connections", defaultValue = "" + ReplayOptions.DEFAULT_CONNECTIONS,
        paramLabel = "N", description = "The connection table's capacity per worker (default ${DEFAULT-VALUE}).")
    private int connections;

    @Option(names = "--fwmark", paramLabel = "MARK", description = "Marks every frame, as an iptables MARK rule " +
        "matching everything would (for -f services): 1 to 4294967295, or 0x1 to 0xffffffff.")
    private String firewallMark;

    @Option(names = "--quiet", description = "Prints nothing but errors and warnings.")
    private boolean quiet;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final String prefix = JvsMain.prefix(spec.commandLine());
        final ReplayOptions options;
        try
        {
            options = new ReplayOptions(rules, config, input, filter, output, all, decisions, workers, connections,
                firewallMark == null ? 0 : FirewallMarks.parse("--fwmark", firewallMark));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), ex.getMessage());
        }
        InputFiles.requireReadable(input, rules, config);
        if (!Files.isRegularFile(input))
        {
            // A pipe or a device reads as empty here: the capture is mapped and read in place.
            throw new CommandError(CommandError.REFUSED, "cannot read " + input + ": not a regular file (replay " +
                "reads a capture in place: save one from a pipe to a file first)");
        }
        // Read as text now, so a capture given as --rules is named with its reason, not as a bare decoding error.
        final boolean noRules = rules != null && InputFiles.holdsNothing(InputFiles.lines(rules));
        if (config != null)
        {
            InputFiles.lines(config);
        }
        final List<OutputFiles.NamedPath> inputs = new java.util.ArrayList<>(List.of(
            new OutputFiles.NamedPath("--in", input), new OutputFiles.NamedPath("--rules", rules),
            new OutputFiles.NamedPath("--config", config)));
        for (final java.nio.file.Path included : includedRules(config))
        {
            inputs.add(new OutputFiles.NamedPath("a rules statement of --config", included));
        }
        final List<OutputFiles.NamedPath> outputs = List.of(new OutputFiles.NamedPath("--out", output),
            new OutputFiles.NamedPath("--report", report), new OutputFiles.NamedPath("--svg", svg),
            new OutputFiles.NamedPath("--decisions", decisions));
        try (OutputFiles files = OutputFiles.prepare(inputs, outputs))
        {
            final Replay replay;
            try
            {
                replay = new Replay(options);
            }
            catch (final IllegalArgumentException | RuleException ex)
            {
                throw new CommandError(CommandError.REFUSED, ex.getMessage());
            }
            catch (final IOException ex)
            {
                throw new CommandError(CommandError.REFUSED, "cannot read " + IoMessages.describe(ex));
            }
            if (noRules)
            {
                err.println(prefix + "warning: " + rules + " holds no rules: every frame is passed");
                err.flush();
            }
            final ReplayReport result;
            try
            {
                result = replay.run(files::temporary);
            }
            catch (final PcapFormatException ex)
            {
                throw new CommandError(CommandError.REFUSED, ex.getMessage());
            }
            catch (final CaptureChangedException ex)
            {
                throw new CommandError(CommandError.REFUSED, IoMessages.describe(ex) + "; nothing written");
            }
            catch (final IllegalArgumentException ex)
            {
                // A filter libpcap cannot compile for a link type first met part-way through the capture.
                throw new CommandError(CommandError.REFUSED, ex.getMessage() + "; nothing written");
            }
            catch (final IOException ex)
            {
                throw new CommandError(CommandError.FAILED, files.describe(ex) + "; nothing written");
            }
            // Each output is named in its own failure: a full disk's "No space left on device" names no file.
            if (report != null)
            {
                try
                {
                    Files.writeString(files.temporary(report), ReplayReportFormat.json(result), StandardCharsets.UTF_8);
                }
                catch (final IOException ex)
                {
                    throw new CommandError(CommandError.FAILED, files.describe(report, ex) + "; nothing written");
                }
            }
            if (svg != null)
            {
                try
                {
                    ReplaySvg.write(result, files.temporary(svg));
                }
                catch (final IOException ex)
                {
                    throw new CommandError(CommandError.FAILED, files.describe(svg, ex) + "; nothing written");
                }
            }
            try
            {
                files.commit();
            }
            catch (final IOException ex)
            {
                throw new CommandError(CommandError.FAILED, files.describe(ex) + "; nothing written");
            }
            if (result.endDetail() != null)
            {
                // As tcpdump -r does: the records before the damage were replayed, and the user must hear of it.
                err.println(prefix + "warning: " + input + ": stopped early: " + result.endDetail());
                err.flush();
            }
            if (!quiet)
            {
                out.print(ReplayReportFormat.table(result));
                if (report != null)
                {
                    out.println("wrote the report to " + report);
                }
                if (svg != null)
                {
                    out.println("wrote the pictures to " + svg);
                }
                out.flush();
            }
            return 0;
        }
    }

    /** The rules files a config includes, which are inputs too; none when it cannot be read (Replay says why). */
    private static List<java.nio.file.Path> includedRules(final java.nio.file.Path config)
    {
        if (config == null)
        {
            return List.of();
        }
        try
        {
            return io.jvs.forwarder.config.JvsConfig.load(config).includes();
        }
        catch (final IOException | RuntimeException | RuleException ex)
        {
            return List.of();
        }
    }

}
