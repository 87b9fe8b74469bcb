package io.jvs.tools;

import io.jvs.tools.bench.BenchCommand;
import io.jvs.tools.demo.DemoCommand;
import io.jvs.tools.replay.ReplayCommand;
import io.jvs.tools.simulate.SimulateCommand;
import io.jvs.tools.synth.SynthCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The entry point behind {@code tools/jvs}: one subcommand per tool.
 */
@Command(
    name = "jvs",
    mixinStandardHelpOptions = true,
    version = "jvs 0.1.0",
    description = "jvs (Java Virtual Server): an LVS-style layer-4 load balancer.",
    subcommands = {DemoCommand.class, SimulateCommand.class, ReplayCommand.class, SynthCommand.class,
        BenchCommand.class, CommandLine.HelpCommand.class})
public final class JvsMain implements Runnable
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * @return the command line that {@link #main} executes, for callers that set its output writers.
     */
    public static CommandLine commandLine()
    {
        return new CommandLine(new JvsMain());
    }

    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }
}
