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
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jvs demo}: until the forwarder daemon exists, the data path shown offline: a realistic trace is
 * synthesised, replayed through the pipeline, and the report printed, with the pictures written beside it.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
        "Synthesises a farm trace, replays it and prints the report.",
        "The trace: clients opening TCP connections and UDP flows to two dual-stack",
        "services, with VLAN tags, fragments, ICMP errors and malformed frames. It",
        "goes through jvs's data path; the trace, rules, forwarded frames, JSON and",
        "SVG reports stay in --dir."})
public final class DemoCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", defaultValue = "${java.io.tmpdir}/jvs-demo", description = "where the files go (default ${DEFAULT-VALUE})")
    private Path dir;

    @Option(names = "--packets", defaultValue = "500000", description = "frames in the trace (default ${DEFAULT-VALUE})")
    private long packets;

    @Option(names = "--scheduler", defaultValue = "wlc", description = "the services' scheduler (default ${DEFAULT-VALUE})")
    private String scheduler;

    @Option(names = "--seed", defaultValue = "1", description = "the trace's seed (default ${DEFAULT-VALUE})")
    private long seed;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        if (SchedulerKind.byName(scheduler) == null || packets < 1)
        {
            err.println("jvs demo: need a known --scheduler and --packets >= 1");
            err.flush();
            return 2;
        }
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
            out.println("jvs demo: the forwarder daemon is still to come, so this shows its data path offline.");
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
        catch (final IOException | RuleException | IllegalArgumentException ex)
        {
            err.println("jvs demo: " + ex.getMessage());
            err.flush();
            return 1;
        }
    }
}
