package io.jvs.tools.bench;

import io.jvs.core.sched.SchedulerKind;
import io.jvs.forwarder.bench.PipelineWorkload;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.tools.Schedulers;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jvs bench pipeline}: the full data path on one core, 64-byte frames in bursts, from memory.
 */
@Command(
    name = "pipeline",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    description = {
        "Measures the packet pipeline on this thread, from memory.",
        "Runs the pipeline over synthetic 64-byte TCP frames written into memory (no",
        "NIC, no syscalls) and prints one line: pipeline mode=... scheduler=...",
        "flows=... Mpps=... ns/packet=... B/op=... The frames are written anew for",
        "every burst, as a NIC would. A warm-up of a third of --seconds (at least",
        "2 s) comes first, so the JIT has compiled the pipeline before the",
        "measuring starts."})
public final class PipelineBenchCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--mode", defaultValue = "nat", paramLabel = "MODE",
        description = "The forwarding method: nat or dr (default ${DEFAULT-VALUE}).")
    private String mode;

    @Option(names = "--scheduler", defaultValue = "rr", paramLabel = "NAME",
        description = "The service's scheduler, as ipvsadm -s names it (default ${DEFAULT-VALUE}).")
    private String scheduler;

    @Option(names = "--flows", defaultValue = "1000000", paramLabel = "N",
        description = "Established flows the frames belong to (default ${DEFAULT-VALUE}).")
    private int flows;

    @Option(names = "--new-flows", description = "Makes every frame open a new connection, to measure the " +
        "connection rate.")
    private boolean newFlows;

    @Option(names = "--replies", description = "Makes every other frame a real server's reply, through jvs to its " +
        "client, to a frame of the burst before (NAT's return traffic; established flows only).")
    private boolean replies;

    @Option(names = "--seconds", defaultValue = "10", paramLabel = "N", description = "Seconds of measuring, after " +
        "a warm-up of a third as long, at least 2 s (default ${DEFAULT-VALUE}).")
    private int seconds;

    @Option(names = "--weights", split = ",", paramLabel = "W",
        description = "The 16 real servers' weights (ipvsadm -w), in order, repeated when fewer are given: " +
            "1,2,3,4 weighs them 1, 2, 3, 4, 1, 2... (default 1 each).")
    private int[] weights = {1};

    @Option(names = "--burst", defaultValue = "32", paramLabel = "N",
        description = "Frames per burst, 1 to 256 (default ${DEFAULT-VALUE}).")
    private int burst;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PipelineWorkload.Mode workloadMode;
        try
        {
            workloadMode = PipelineWorkload.Mode.valueOf(mode.toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), "--mode must be nat or dr, not '" + mode + "'");
        }
        if (SchedulerKind.byName(scheduler) == null)
        {
            throw new ParameterException(spec.commandLine(), "--scheduler must be one of " +
                Schedulers.names() + ", not '" + scheduler + "'");
        }
        if (flows < 1)
        {
            throw new ParameterException(spec.commandLine(), "--flows must be 1 or more, not " + flows);
        }
        if (seconds < 1)
        {
            throw new ParameterException(spec.commandLine(), "--seconds must be 1 or more, not " + seconds);
        }
        if (burst < 1 || burst > FrameBurst.MAX_FRAMES)
        {
            throw new ParameterException(spec.commandLine(), "--burst must be 1.." + FrameBurst.MAX_FRAMES +
                ", not " + burst);
        }
        if (replies && (workloadMode != PipelineWorkload.Mode.NAT || newFlows || burst < 2))
        {
            throw new ParameterException(spec.commandLine(), "--replies needs --mode nat, established flows (not " +
                "--new-flows) and a --burst of 2 or more: only NAT's real servers answer through jvs");
        }
        final String weightsProblem = PipelineWorkload.weightsProblem(weights);
        if (weightsProblem != null)
        {
            throw new ParameterException(spec.commandLine(), "--weights: " + weightsProblem);
        }
        final PipelineWorkload workload = replies ?
            PipelineWorkload.withReplies(scheduler.toLowerCase(Locale.ROOT), flows, burst, weights) :
            new PipelineWorkload(workloadMode, scheduler.toLowerCase(Locale.ROOT), flows, newFlows, burst, weights);
        final int warmUpSeconds = Math.max(2, seconds / 3);
        out.println("jvs bench pipeline: " + workload + "; setting up, then " + warmUpSeconds + " s of warm-up and " +
            seconds + " s of measuring...");
        out.flush();
        workload.setUp();
        run(workload, warmUpSeconds * 1_000_000_000L);

        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
        final long cpuBefore = threads.getCurrentThreadCpuTime();
        final long[] result = run(workload, seconds * 1_000_000_000L);
        final long cpuNs = threads.getCurrentThreadCpuTime() - cpuBefore;
        final long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
        final long packets = result[0];
        final long elapsedNs = result[1];
        final double mpps = packets * 1_000.0 / elapsedNs;
        out.printf(Locale.ROOT, "pipeline mode=%s scheduler=%s flows=%d%s Mpps=%.2f ns/packet=%.1f B/op=%.3f " +
                "cpu-ns/packet=%.1f bytes/connection=%.1f%n",
            mode.toLowerCase(Locale.ROOT), scheduler.toLowerCase(Locale.ROOT), flows,
            (newFlows ? " new-flows" : "") + (replies ? " replies" : "") + workload.weightsShown(),
            mpps, (double)elapsedNs / packets, (double)allocated / packets, (double)cpuNs / packets,
            workload.bytesPerConnection());
        out.flush();
        return 0;
    }

    /** @return {packets processed, nanoseconds}. */
    private static long[] run(final PipelineWorkload workload, final long durationNs)
    {
        final int burst = workload.burstSize();
        long packets = 0;
        final long start = System.nanoTime();
        long now = start;
        while (now - start < durationNs)
        {
            for (int i = 0; i < 256; i++)
            {
                workload.runBurst();
            }
            packets += 256L * burst;
            now = System.nanoTime();
        }
        return new long[] {packets, now - start};
    }
}
