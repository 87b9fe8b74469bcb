package io.jvs.tools.replay;

import io.jvs.core.pcap.PcapFormatException;
import io.jvs.core.rules.RuleException;
import io.jvs.forwarder.replay.Replay;
import io.jvs.forwarder.replay.ReplayOptions;
import io.jvs.forwarder.replay.ReplayReport;
import io.jvs.forwarder.replay.ReplayReportFormat;
import io.jvs.forwarder.replay.ReplaySvg;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code jvs replay}: a capture through the data path, offline, with a report of what each server got.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description = {
        "Runs a pcap or pcapng capture through the data path, offline.",
        "Every frame goes through jvs's data path (the daemon's parser, connection",
        "tables, schedulers, NAT/DR/tunnel rewriting) on a clock taken from the",
        "capture. It writes the forwarded frames and reports frames",
        "in/forwarded/passed/dropped by reason, each service's and real server's",
        "connections, packets, bytes and share against its weight, the pipeline's",
        "time per frame and the replay rate. The same capture and rules give the",
        "same output."},
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
        "as Ethernet; frames the capturing host sent itself are skipped. Exit",
        "status: 0 done; 2 bad rules, config, options or capture (nothing",
        "written); 1 an I/O error while replaying."})
public final class ReplayCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--rules", paramLabel = "RULES", description = "ipvsadm rules file (unless CONFIG gives the " +
        "services)")
    private Path rules;

    @Option(names = "--config", paramLabel = "CONFIG", description = "the box: ports, next hops, switches, " +
        "timeouts, perhaps the services (the daemon's file)")
    private Path config;

    @Option(names = "--in", required = true, paramLabel = "TRACE", description = "pcap or pcapng capture")
    private Path input;

    @Option(names = "--filter", paramLabel = "EXPR", description = "replay only records matching this tcpdump filter")
    private String filter;

    @Option(names = "--out", paramLabel = "FORWARDED", description = "pcap of the forwarded frames (pcapng with --all)")
    private Path output;

    @Option(names = "--all", description = "write passed and dropped frames too, each marked with its verdict")
    private boolean all;

    @Option(names = "--report", paramLabel = "REPORT.json", description = "the report as JSON")
    private Path report;

    @Option(names = "--svg", paramLabel = "REPORT.svg", description = "the report as pictures (share vs weight, " +
        "connections over time, pipeline time percentiles)")
    private Path svg;

    @Option(names = "--decisions", paramLabel = "DECISIONS.csv", description = "one line per new connection")
    private Path decisions;

    @Option(names = "--workers", defaultValue = "1", description = "pipelines, as the daemon's workers (default ${DEFAULT-VALUE})")
    private int workers;

    @Option(names = "--connections", defaultValue = "" + ReplayOptions.DEFAULT_CONNECTIONS,
        description = "connection table capacity per worker (default ${DEFAULT-VALUE})")
    private int connections;

    @Option(names = "--fwmark", defaultValue = "0", paramLabel = "MARK", description = "mark every frame, as an " +
        "iptables MARK rule matching everything would (for -f services)")
    private int firewallMark;

    @Option(names = "--quiet", description = "print nothing but errors")
    private boolean quiet;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final ReplayOptions options;
        final Replay replay;
        try
        {
            options = new ReplayOptions(rules, config, input, filter, output, all, decisions, workers, connections, firewallMark);
            if (!Files.isReadable(input))
            {
                throw new NoSuchFileException(input.toString(), null, "cannot be read");
            }
            replay = new Replay(options);
        }
        catch (final IllegalArgumentException ex)
        {
            return refuse(err, ex.getMessage());
        }
        catch (final RuleException ex)
        {
            return refuse(err, ex.getMessage());
        }
        catch (final IOException ex)
        {
            return refuse(err, "cannot read " + describe(ex));
        }
        final ReplayReport result;
        try
        {
            result = replay.run();
        }
        catch (final PcapFormatException ex)
        {
            return refuse(err, input + ": " + ex.getMessage());
        }
        catch (final IllegalArgumentException ex)
        {
            // A filter libpcap cannot compile for a link type first met part-way through the capture.
            err.println("jvs replay: " + ex.getMessage());
            err.println("jvs replay: stopped part-way; the output files are incomplete");
            err.flush();
            return 2;
        }
        catch (final IOException ex)
        {
            err.println("jvs replay: " + describe(ex));
            err.flush();
            return 1;
        }
        try
        {
            if (report != null)
            {
                Files.writeString(report, ReplayReportFormat.json(result), StandardCharsets.UTF_8);
            }
            if (svg != null)
            {
                ReplaySvg.write(result, svg);
            }
        }
        catch (final IOException ex)
        {
            err.println("jvs replay: " + describe(ex));
            err.flush();
            return 1;
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

    private static int refuse(final PrintWriter err, final String message)
    {
        err.println("jvs replay: " + message);
        err.println("jvs replay: nothing was replayed");
        err.flush();
        return 2;
    }

    private static String describe(final IOException ex)
    {
        if (ex instanceof NoSuchFileException missing)
        {
            return missing.getFile() + ": " + (missing.getReason() == null ? "no such file" : missing.getReason());
        }
        return ex.getMessage();
    }
}
