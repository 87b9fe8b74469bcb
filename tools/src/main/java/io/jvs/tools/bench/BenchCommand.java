package io.jvs.tools.bench;

import picocli.CommandLine.Command;

/**
 * {@code jvs bench}: performance measurements an operator can run without knowing JMH.
 */
@Command(
    name = "bench",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    description = {
        "Measures packets per second and latency of the data path.",
        "For the JMH figures: java -jar perf/target/benchmarks.jar."},
    subcommands = {PipelineBenchCommand.class, L2fwdBenchCommand.class, TxgenBenchCommand.class})
public final class BenchCommand implements Runnable
{
    @picocli.CommandLine.Spec
    private picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
