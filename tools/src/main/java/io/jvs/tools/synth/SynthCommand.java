package io.jvs.tools.synth;

import io.jvs.core.service.ForwardMethod;
import io.jvs.forwarder.synth.SynthSettings;
import io.jvs.forwarder.synth.SynthSummary;
import io.jvs.forwarder.synth.TraceSynthesizer;
import io.jvs.core.sched.SchedulerKind;
import io.jvs.tools.CommandError;
import io.jvs.tools.Schedulers;
import io.jvs.tools.io.OutputFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jvs synth}: a seeded, reproducible capture of what a balancer in front of a server farm receives,
 * and the rules that set a balancer up for it, for {@code jvs replay} and for tests.
 */
@Command(
    name = "synth",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
        "Writes a seeded pcap of farm traffic, and its ipvsadm rules.",
        "The traffic goes to a farm of virtual services, as the balancer's",
        "client-facing port sees it: TCP connections (SYN, ACK, data, FIN or RST;",
        "the client's side only, as a direct-routing balancer sees it), UDP requests",
        "to port 53, some in IPv4 or IPv6 fragments, ICMP errors from routers about",
        "open connections, VLAN-tagged and IPv6 clients, and a few malformed frames.",
        "Same options and seed, same bytes. --rules-out writes the matching ipvsadm",
        "rules (ipvsadm -S -n form)."},
    footer = {
        "",
        "Every frame goes from the router MAC 02:00:00:00:00:fe",
        "to the balancer MAC 02:00:00:00:00:10.",
        "Service s (from 0) is TCP port 80 on 10.0.0.100+s and fd00:6a76::100+s;",
        "service 0 also has UDP port 53. Its real servers are 192.168.(10+s).(1+r)",
        "and fd00:5e::s:(1+r). Clients come from 100.64.0.0/10 and fd00:c1::/64,",
        "ICMP errors from 198.18.0.1 and fd00:ee::1.",
        "Exit status: 0 done (the files in place); 2 bad options or output paths;",
        "1 an I/O error while writing. Only 0 writes anything."})
public final class SynthCommand implements Callable<Integer>
{
    /** What every record of a trace takes at the least: its 16-byte header (a malformed frame may be shorter still). */
    private static final long SMALLEST_RECORD = 16;

    @Spec
    private CommandSpec spec;

    @Option(names = "--out", required = true, paramLabel = "FILE", description = "The pcap file to write.")
    private Path out;

    @Option(names = "--rules-out", paramLabel = "FILE", description = "Where the matching ipvsadm rules go.")
    private Path rulesOut;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "1",
        description = "The seed (default ${DEFAULT-VALUE}).")
    private long seed;

    @Option(names = "--packets", paramLabel = "N", description = "The packets to write (instead of --duration).")
    private Long packets;

    @Option(names = "--duration", paramLabel = "SECONDS",
        description = "Seconds of traffic at --rate (default 1 when --packets is not given).")
    private Double duration;

    @Option(names = "--rate", paramLabel = "PPS", defaultValue = "100000",
        description = "Packets per second (default ${DEFAULT-VALUE}).")
    private long rate;

    @Option(names = "--start", paramLabel = "TIME", defaultValue = "2026-01-01T00:00:00Z",
        description = "The first packet's time, ISO-8601 UTC (default ${DEFAULT-VALUE}).")
    private String start;

    @Option(names = "--nanos", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Nanosecond timestamps; --no-nanos for a microsecond pcap (default ${DEFAULT-VALUE}).")
    private boolean nanos;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "10000",
        description = "Client addresses (default ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--services", paramLabel = "N", defaultValue = "4",
        description = "Dual-stack TCP services on port 80 (default ${DEFAULT-VALUE}).")
    private int services;

    @Option(names = "--servers-per-service", paramLabel = "N", defaultValue = "4",
        description = "Real servers per service (default ${DEFAULT-VALUE}).")
    private int serversPerService;

    @Option(names = "--scheduler", paramLabel = "NAME", defaultValue = "wlc",
        description = "The scheduler in the rules (default ${DEFAULT-VALUE}).")
    private String scheduler;

    @Option(names = "--method", paramLabel = "METHOD", defaultValue = "nat",
        description = "The forwarding method in the rules: nat, dr or tun (default ${DEFAULT-VALUE}).")
    private String method;

    @Option(names = "--weights", split = ",", paramLabel = "W",
        description = "Real server weights, repeated over a service's servers (default 1,2,3,4).")
    private List<Integer> weights = List.of();

    @Option(names = "--zipf", paramLabel = "S", defaultValue = "1.0",
        description = "The Zipf exponent of service and client popularity, 0 for uniform (default ${DEFAULT-VALUE}).")
    private double zipf;

    @Option(names = "--ipv6-share", paramLabel = "SHARE", defaultValue = "0.2",
        description = "The share of IPv6 clients (default ${DEFAULT-VALUE}).")
    private double ipv6Share;

    @Option(names = "--vlan-share", paramLabel = "SHARE", defaultValue = "0.1",
        description = "The share of clients behind an 802.1Q tag (default ${DEFAULT-VALUE}).")
    private double vlanShare;

    @Option(names = "--udp-share", paramLabel = "SHARE", defaultValue = "0.2",
        description = "The share of new flows that are UDP to port 53 (default ${DEFAULT-VALUE}).")
    private double udpShare;

    @Option(names = "--fragment-share", paramLabel = "SHARE", defaultValue = "0.05",
        description = "The share of UDP datagrams sent as 3000-byte fragmented ones (default ${DEFAULT-VALUE}).")
    private double fragmentShare;

    @Option(names = "--icmp-error-share", paramLabel = "SHARE", defaultValue = "0.002",
        description = "The share of packets that are ICMP too-big errors about a connection " +
            "(default ${DEFAULT-VALUE}).")
    private double icmpErrorShare;

    @Option(names = "--malformed-share", paramLabel = "SHARE", defaultValue = "0.005",
        description = "The share of packets that are malformed (default ${DEFAULT-VALUE}).")
    private double malformedShare;

    @Option(names = "--rst-share", paramLabel = "SHARE", defaultValue = "0.1",
        description = "The share of TCP connections ended by RST instead of FIN (default ${DEFAULT-VALUE}).")
    private double rstShare;

    @Option(names = "--concurrent-flows", paramLabel = "N", defaultValue = "1000",
        description = "Flows open at once (default ${DEFAULT-VALUE}).")
    private int concurrentFlows;

    @Override
    public Integer call()
    {
        final SynthSettings settings;
        try
        {
            settings = settings();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), ex.getMessage());
        }
        try (OutputFiles files = OutputFiles.prepare(List.of(), List.of(new OutputFiles.NamedPath("--out", out),
            new OutputFiles.NamedPath("--rules-out", rulesOut))))
        {
            requireRoom(settings.totalPackets(), files.temporary(out));
            final long started = System.nanoTime();
            final SynthSummary summary;
            try
            {
                summary = TraceSynthesizer.synthesize(settings, files.temporary(out));
            }
            catch (final IOException ex)
            {
                throw new CommandError(CommandError.FAILED, "cannot write " + files.describe(out, ex) +
                    "; nothing written");
            }
            try
            {
                if (rulesOut != null)
                {
                    Files.writeString(files.temporary(rulesOut), TraceSynthesizer.rules(settings),
                        StandardCharsets.UTF_8);
                }
            }
            catch (final IOException ex)
            {
                throw new CommandError(CommandError.FAILED, "cannot write " + files.describe(rulesOut, ex) +
                    "; nothing written");
            }
            try
            {
                files.commit();
            }
            catch (final IOException ex)
            {
                throw new CommandError(CommandError.FAILED, "cannot write " + files.describe(ex) +
                    "; nothing written");
            }
            final double seconds = (System.nanoTime() - started) / 1e9;
            SummaryPrinter.print(spec.commandLine().getOut(), out, rulesOut, settings, summary, seconds);
            return 0;
        }
    }

    /**
     * Refuses, before writing, a trace whose records' headers alone would not fit in the space left where it goes:
     * otherwise only a full disk, much later, would stop it.
     */
    private void requireRoom(final long frames, final Path written)
    {
        if (!Files.isRegularFile(written))
        {
            return;
        }
        final long free;
        try
        {
            free = Files.getFileStore(written).getUsableSpace();
        }
        catch (final IOException ex)
        {
            return;
        }
        final long atLeast = frames > Long.MAX_VALUE / SMALLEST_RECORD ? Long.MAX_VALUE : frames * SMALLEST_RECORD;
        if (atLeast > free)
        {
            throw new CommandError(CommandError.REFUSED, String.format(Locale.ROOT, "%d packets need at least %.1f " +
                "GB and the file system of %s has %.1f GB free; nothing written", frames, atLeast / 1e9, out,
                free / 1e9));
        }
    }

    /**
     * @throws IllegalArgumentException naming the option at fault, with its dashes.
     */
    private SynthSettings settings()
    {
        if (packets != null && duration != null)
        {
            throw new IllegalArgumentException("give --packets or --duration, not both");
        }
        if (packets != null && packets < 1)
        {
            throw new IllegalArgumentException("--packets must be 1 or more, not " + packets);
        }
        if (SchedulerKind.byName(scheduler) == null)
        {
            throw new IllegalArgumentException("--scheduler must be one of " + Schedulers.names() + ", not '" +
                scheduler + "'");
        }
        final ForwardMethod forwardMethod = switch (method.toLowerCase(Locale.ROOT))
        {
            case "nat" -> ForwardMethod.NAT;
            case "dr" -> ForwardMethod.DR;
            case "tun" -> ForwardMethod.TUN;
            default -> throw new IllegalArgumentException("--method must be nat, dr or tun, not " + method);
        };
        final Instant startTime;
        try
        {
            startTime = Instant.parse(start);
        }
        catch (final DateTimeParseException ex)
        {
            throw new IllegalArgumentException("--start must be an ISO-8601 UTC time such as 2026-01-01T00:00:00Z, " +
                "not " + start, ex);
        }
        if (startTime.isBefore(Instant.EPOCH) || startTime.getEpochSecond() > 0xFFFF_FFFFL)
        {
            throw new IllegalArgumentException("--start must be in 1970..2106, not " + start);
        }
        try
        {
            return SynthSettings.builder()
                .seed(seed).clients(clients).services(services).serversPerService(serversPerService)
                .scheduler(scheduler).method(forwardMethod).weights(weights).ratePps(rate)
                .packets(packets == null ? 0 : packets).durationSeconds(duration == null ? 1 : duration)
                .ipv6Share(ipv6Share).vlanShare(vlanShare).udpShare(udpShare).icmpErrorShare(icmpErrorShare)
                .fragmentShare(fragmentShare).malformedShare(malformedShare).rstShare(rstShare).zipfExponent(zipf)
                .nanosecondTimestamps(nanos).startEpochNs(startTime.getEpochSecond() * 1_000_000_000L +
                    startTime.getNano())
                .concurrentFlows(concurrentFlows)
                .build();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("--" + ex.getMessage(), ex);
        }
    }
}
