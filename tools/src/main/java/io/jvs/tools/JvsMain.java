package io.jvs.tools;

import io.jvs.tools.bench.BenchCommand;
import io.jvs.tools.demo.DemoCommand;
import io.jvs.tools.replay.ReplayCommand;
import io.jvs.tools.run.RunCommand;
import io.jvs.tools.simulate.SimulateCommand;
import io.jvs.tools.synth.SynthCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.Set;

/**
 * The entry point behind {@code tools/jvs}: one subcommand per tool.
 */
@Command(
    name = "jvs",
    mixinStandardHelpOptions = true,
    version = "jvs 0.1.0",
    description = "jvs (Java Virtual Server): an LVS-style layer-4 load balancer.",
    subcommands = {RunCommand.class, DemoCommand.class, SimulateCommand.class, ReplayCommand.class, SynthCommand.class,
        BenchCommand.class, CommandLine.HelpCommand.class})
public final class JvsMain implements Runnable
{
    /**
     * The subcommands the project will have but has not written yet: naming one is refused in one line
     * rather than reported as unknown. A subcommand registered above is matched first, so writing one
     * needs only its removal from here.
     */
    static final Set<String> UNFINISHED = Set.of("ctl", "stat");

    /**
     * The exit status of a command line mistake, as every subcommand uses.
     */
    static final int USAGE_ERROR = 2;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run()
    {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /**
     * The one line for a first argument that is no subcommand of jvs.
     *
     * @param word the argument.
     * @return the line, starting "jvs: ".
     */
    static String complaint(final String word)
    {
        if (UNFINISHED.contains(word))
        {
            return "jvs: " + word + " is not written yet (the forwarder daemon is coming); try 'tools/jvs --help'";
        }
        if (word.startsWith("-"))
        {
            return "jvs: unknown option '" + word + "'; try 'tools/jvs --help'";
        }
        return "jvs: unknown subcommand '" + word + "'; try 'tools/jvs --help'";
    }

    /**
     * @return the command line that {@link #main} executes, for callers that set its output writers.
     */
    public static CommandLine commandLine()
    {
        final CommandLine commandLine = new CommandLine(new JvsMain());
        // Only the top level stops at its first unmatched argument: then `jvs ctl --help` is refused as ctl,
        // where the parser would otherwise go on to --help and print this command's help with status 0. The
        // subcommands copied the parser settings when the constructor added them, so they are unaffected.
        commandLine.getCommandSpec().parser().stopAtUnmatched(true);
        final CommandLine.IParameterExceptionHandler standard = commandLine.getParameterExceptionHandler();
        // One line for what the top level does not know, instead of picocli's message, a guess and the whole
        // usage; the subcommands (which get this handler too) keep the standard report of their own options.
        commandLine.setParameterExceptionHandler((exception, args) ->
        {
            if (exception instanceof final CommandLine.UnmatchedArgumentException unmatched &&
                exception.getCommandLine() == commandLine && !unmatched.getUnmatched().isEmpty())
            {
                commandLine.getErr().println(complaint(unmatched.getUnmatched().getFirst()));
                return USAGE_ERROR;
            }
            return standard.handleParseException(exception, args);
        });
        return commandLine;
    }

    public static void main(final String[] args)
    {
        System.exit(commandLine().execute(args));
    }
}
