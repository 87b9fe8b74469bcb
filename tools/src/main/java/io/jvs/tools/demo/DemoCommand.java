package io.jvs.tools.demo;

import io.jvs.core.rules.RuleException;
import io.jvs.core.sched.SchedulerKind;
import io.jvs.forwarder.replay.Replay;
import io.jvs.forwarder.replay.ReplayOptions;
import io.jvs.forwarder.replay.ReplayReport;
import io.jvs.forwarder.replay.ReplayReportFormat;
import io.jvs.forwarder.replay.ReplaySvg;
import io.jvs.forwarder.synth.SynthSettings;
import io.jvs.forwarder.synth.SynthSummary;
import io.jvs.forwarder.synth.TraceSynthesizer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import io.jvs.tools.CommandError;
import io.jvs.tools.Schedulers;
import io.jvs.core.io.IoMessages;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * {@code jvs demo}: as root, jvs live ({@link LiveDemo}): a client, the daemon and three HTTP servers in network
 * namespaces, real requests balanced by wrr, each server's share against its weight, the packets per second and
 * the latency. Otherwise, or with {@code --offline}, the data path offline: a realistic trace is synthesised,
 * replayed through the pipeline, and the report printed, with the pictures written beside it.
 */
@Command(
    name = "demo",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    description = {
        "Shows jvs at work: live as root, offline otherwise.",
        "Live: a client, jvs (the daemon: two-arm NAT over AF_XDP) and three HTTP",
        "servers with weights 1, 2 and 3 in network namespaces; the client sends",
        "HTTP requests for --seconds, then the demo prints each server's",
        "connections and share against its weight, the packets per second through",
        "jvs and the requests' latency, and removes everything it made.",
        "Offline (not root, or --offline): synthesises a farm trace, replays it",
        "through jvs's data path and prints the report. The trace: clients opening",
        "TCP connections and UDP flows to two dual-stack services, with VLAN tags,",
        "fragments, ICMP errors and malformed frames; the trace, rules, forwarded",
        "frames, JSON and SVG reports stay in --dir."})
public final class DemoCommand implements Callable<Integer>
{
    private static final double MAX_SECONDS = 60;

    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", defaultValue = "${java.io.tmpdir}/jvs-demo",
        paramLabel = "DIR", description = "Where the files go (default ${DEFAULT-VALUE}); live, the config and logs " +
        "go in DIR/live.")
    private Path dir;

    @Option(names = "--offline", description = "Runs the offline demo even as root.")
    private boolean offline;

    @Option(names = "--seconds", defaultValue = "5",
        paramLabel = "N", description = "Live, how many seconds the client sends requests (default ${DEFAULT-VALUE}).")
    private double seconds;

    @Option(names = "--packets", defaultValue = "500000",
        paramLabel = "N", description = "Offline, the frames in the trace (default ${DEFAULT-VALUE}).")
    private long packets;

    @Option(names = "--scheduler", defaultValue = "wlc",
        paramLabel = "NAME", description = "Offline, the services' scheduler (default ${DEFAULT-VALUE}).")
    private String scheduler;

    @Option(names = "--seed", defaultValue = "1", paramLabel = "SEED",
        description = "Offline, the trace's seed (default ${DEFAULT-VALUE}).")
    private long seed;

    private final BooleanSupplier root;

    /** The command as {@code tools/jvs demo} runs it: live when this process's effective user is root. */
    public DemoCommand()
    {
        this(DemoCommand::isRoot);
    }

    /**
     * @param root whether this process may build namespaces and run the daemon (tests choose).
     */
    DemoCommand(final BooleanSupplier root)
    {
        this.root = root;
    }

    /** @return whether this process's effective user id is 0, as /proc/self/status says. */
    static boolean isRoot()
    {
        try
        {
            return rootIn(Files.readString(Path.of("/proc/self/status"), StandardCharsets.US_ASCII));
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /**
     * @param status the text of /proc/PID/status.
     * @return whether its effective user id (the second of the {@code Uid:} line's real, effective, saved and
     *         file-system ids) is 0.
     */
    static boolean rootIn(final String status)
    {
        for (final String line : status.split("\n"))
        {
            if (line.startsWith("Uid:"))
            {
                final String[] ids = line.substring("Uid:".length()).strip().split("\\s+");
                return ids.length >= 2 && ids[1].equals("0");
            }
        }
        return false;
    }

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (SchedulerKind.byName(scheduler) == null)
        {
            throw new ParameterException(spec.commandLine(), "--scheduler must be one of " +
                Schedulers.names() + ", not '" + scheduler + "'");
        }
        if (packets < 1)
        {
            throw new ParameterException(spec.commandLine(), "--packets must be 1 or more, not " + packets);
        }
        if (!(seconds > 0 && seconds <= MAX_SECONDS))
        {
            throw new ParameterException(spec.commandLine(), "--seconds must be above 0 and at most " +
                (int)MAX_SECONDS + ", not " + seconds);
        }
        if (Files.exists(dir) && !Files.isDirectory(dir))
        {
            throw new ParameterException(spec.commandLine(), "--dir " + dir + ": not a directory");
        }
        if (!offline)
        {
            if (root.getAsBoolean())
            {
                return new LiveDemo(out, err, dir, seconds).run();
            }
            out.println("jvs demo: not root, so jvs's data path offline instead of live (the live demo makes " +
                "network namespaces and runs jvs on AF_XDP); for it: sudo tools/jvs demo");
            out.println();
        }
        return offline(out, err);
    }

    private int offline(final PrintWriter out, final PrintWriter err)
    {
        try
        {
            Files.createDirectories(dir);
            final SynthSettings settings = SynthSettings.builder().seed(seed).packets(packets).services(2)
                .serversPerService(4).scheduler(scheduler.toLowerCase(Locale.ROOT)).clients(5000).build();
            final Path trace = dir.resolve("demo.pcap");
            final Path rules = dir.resolve("demo.rules");
            final Path forwarded = dir.resolve("forwarded.pcap");
            final Path json = dir.resolve("report.json");
            final Path svg = dir.resolve("report.svg");
            final Path decisions = dir.resolve("decisions.csv");
            out.println("jvs demo, offline: a synthesised trace through jvs's data path.");
            out.println();
            final long synthStart = System.nanoTime();
            final SynthSummary summary = TraceSynthesizer.synthesize(settings, trace);
            Files.writeString(rules, TraceSynthesizer.rules(settings), StandardCharsets.UTF_8);
            out.printf(Locale.ROOT, "1. tools/jvs synth --packets %d --services 2 --servers-per-service 4 --clients 5000" +
                    " --scheduler %s --seed %d --out %s --rules-out %s%n", packets, scheduler, seed, trace, rules);
            out.printf(Locale.ROOT, "   %d frames (%d TCP connections, %d UDP flows, %d IPv6, %d VLAN-tagged, %d " +
                    "fragments, %d ICMP errors, %d malformed) in %.2f s%n", summary.packets(), summary.tcpConnections(),
                summary.udpFlows(), summary.ipv6Packets(), summary.vlanPackets(), summary.fragments(),
                summary.icmpErrors(), summary.malformedPackets(), (System.nanoTime() - synthStart) / 1e9);
            out.printf("2. tools/jvs replay --rules %s --in %s --out %s --report %s --svg %s --decisions %s%n%n",
                rules, trace, forwarded, json, svg, decisions);
            out.flush();
            final ReplayReport report = new Replay(new ReplayOptions(rules, null, trace, null, forwarded, false,
                decisions, 1, ReplayOptions.DEFAULT_CONNECTIONS, 0)).run();
            Files.writeString(json, ReplayReportFormat.json(report), StandardCharsets.UTF_8);
            ReplaySvg.write(report, svg);
            out.print(ReplayReportFormat.table(report));
            out.println();
            out.println("The pictures (share against weight, connections over time, pipeline time): " + svg);
            out.println("Open the forwarded frames in Wireshark or: tcpdump -nr " + forwarded + " | head");
            out.flush();
            return 0;
        }
        catch (final IOException ex)
        {
            throw new CommandError(CommandError.FAILED, IoMessages.describe(ex));
        }
        catch (final RuleException | IllegalArgumentException ex)
        {
            throw new CommandError(CommandError.FAILED, ex.getMessage());
        }
    }
}
