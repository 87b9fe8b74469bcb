package io.jvs.tools;

import io.jvs.tools.bench.BenchCommand;
import io.jvs.tools.demo.DemoCommand;
import io.jvs.core.io.IoMessages;
import io.jvs.tools.replay.ReplayCommand;
import io.jvs.tools.run.RunCommand;
import io.jvs.tools.simulate.SimulateCommand;
import io.jvs.tools.synth.SynthCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The entry point behind {@code tools/jvs}: one subcommand per tool, and the conventions every subcommand
 * shares (tools/doc/conventions.md): a mistake on the command line is one line naming the option, then
 * {@code try 'tools/jvs CMD --help'}, exit status 2, never the whole help; a {@link CommandError} is its one
 * line and its status; anything else is one line too, status 1, its stack trace only with
 * {@code JVS_STACK_TRACES=1}.
 * <p>
 * Every command says {@code addMethodSubcommands = false}: none has subcommands written as methods, and picocli
 * would otherwise read the annotations of each of a command's methods, looking for them, at every start.
 */
@Command(
    name = "jvs",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    version = JvsMain.VERSION,
    description = "jvs (Java Virtual Server): an LVS-style layer-4 load balancer.")
public final class JvsMain implements Runnable
{
    /** What {@code -V} prints, on every subcommand. */
    static final String VERSION = "jvs 0.1.0";

    /**
     * The subcommands the project will have but has not written yet: naming one is refused in one line
     * rather than reported as unknown. A subcommand registered below is matched first, so writing one
     * needs only its removal from here.
     */
    static final Set<String> UNFINISHED = Set.of("stat");

    /**
     * The exit status of a command line mistake, as every subcommand uses.
     */
    static final int USAGE_ERROR = 2;

    /**
     * The subcommands in the order the usage lists them. Each is built only when needed ({@link #create}): a
     * command line naming one builds that one's model alone, which is most of the start-up time saved.
     */
    private static final List<String> SUBCOMMANDS = List.of("run", "ctl", "demo", "simulate", "replay", "synth",
        "bench");

    /** A subcommand's object, by name; a switch rather than a map of lambdas, which cost start-up time. */
    private static Object create(final String name)
    {
        return switch (name)
        {
            case "run" -> new RunCommand();
            case "ctl" -> new io.jvs.tools.ctl.CtlHelp();
            case "demo" -> new DemoCommand();
            case "simulate" -> new SimulateCommand();
            case "replay" -> new ReplayCommand();
            case "synth" -> new SynthCommand();
            case "bench" -> new BenchCommand();
            default -> throw new IllegalArgumentException("no subcommand " + name);
        };
    }

    @CommandLine.Spec
    private CommandSpec spec;

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
            return "jvs: " + word + " is not written yet (a running daemon's counters: tools/jvs ctl -L -n --stats); " +
                "try 'tools/jvs --help'";
        }
        if (word.startsWith("-"))
        {
            return "jvs: unknown option '" + word + "'; try 'tools/jvs --help'";
        }
        return "jvs: unknown subcommand '" + word + "'; try 'tools/jvs --help'";
    }

    /**
     * @return the command line with every subcommand, for the usage and for tests that walk them all.
     */
    public static CommandLine commandLine()
    {
        return commandLine(SUBCOMMANDS, true);
    }

    /**
     * @param args the arguments about to be executed.
     * @return a command line holding only the subcommand {@code args} names (and {@code help} when they ask
     * for it), or every subcommand when they name none.
     */
    public static CommandLine commandLine(final String... args)
    {
        if (args.length == 0)
        {
            return commandLine();
        }
        final String first = args[0];
        if (SUBCOMMANDS.contains(first))
        {
            return commandLine(List.of(first), false);
        }
        if ("help".equals(first) && args.length > 1 && SUBCOMMANDS.contains(args[1]))
        {
            return commandLine(List.of(args[1]), true);
        }
        return commandLine();
    }

    /**
     * @param name    the subcommand's name.
     * @param command a subcommand object made by the caller (a test's, with its own collaborators).
     * @return the top level holding only that subcommand, with the shared conventions.
     */
    public static CommandLine withSubcommand(final String name, final Object command)
    {
        final CommandLine commandLine = new CommandLine(new JvsMain());
        commandLine.addSubcommand(name, command);
        return conventions(commandLine);
    }

    private static CommandLine commandLine(final Iterable<String> names, final boolean help)
    {
        final CommandLine commandLine = new CommandLine(new JvsMain());
        for (final String name : names)
        {
            commandLine.addSubcommand(name, create(name));
        }
        if (help)
        {
            commandLine.addSubcommand("help", new CommandLine.HelpCommand());
        }
        return conventions(commandLine);
    }

    private static CommandLine conventions(final CommandLine commandLine)
    {
        // Only the top level stops at its first unmatched argument: then `jvs ctl --help` is refused as ctl,
        // where the parser would otherwise go on to --help and print this command's help with status 0. The
        // subcommands copied the parser settings when they were added, so they are unaffected.
        commandLine.getCommandSpec().parser().stopAtUnmatched(true);
        giveVersion(commandLine);
        final Handlers handlers = new Handlers(commandLine);
        commandLine.setParameterExceptionHandler(handlers);
        commandLine.setExecutionExceptionHandler(handlers);
        return commandLine;
    }

    /** Every subcommand answers -V with the version of jvs, unless it says its own. */
    private static void giveVersion(final CommandLine commandLine)
    {
        for (final CommandLine sub : commandLine.getSubcommands().values())
        {
            if (sub.getCommandSpec().version().length == 0)
            {
                sub.getCommandSpec().version(VERSION);
            }
            giveVersion(sub);
        }
    }

    /** The two handlers, as a class rather than lambdas (whose bootstrap costs start-up time). */
    private static final class Handlers implements CommandLine.IParameterExceptionHandler,
        CommandLine.IExecutionExceptionHandler
    {
        private final CommandLine root;

        Handlers(final CommandLine root)
        {
            this.root = root;
        }

        @Override
        public int handleParseException(final CommandLine.ParameterException exception, final String[] args)
        {
            return usageError(root, exception, args);
        }

        @Override
        public int handleExecutionException(final Exception exception, final CommandLine failed,
            final CommandLine.ParseResult parseResult)
        {
            return failure(exception, failed);
        }
    }

    /**
     * A mistake on the command line, found by the parser or thrown by a command as a
     * {@link CommandLine.ParameterException}: one line and the hint, status 2.
     */
    private static int usageError(
        final CommandLine root, final CommandLine.ParameterException exception, final String[] args)
    {
        final CommandLine failed = exception.getCommandLine();
        final PrintWriter err = root.getErr();
        if (failed == root && exception instanceof final CommandLine.UnmatchedArgumentException unmatched &&
            !unmatched.getUnmatched().isEmpty())
        {
            err.println(oneLine(complaint(unmatched.getUnmatched().getFirst())));
            err.flush();
            return USAGE_ERROR;
        }
        final String name = qualifiedName(failed);
        err.println(oneLine(prefix(failed) + message(failed, exception, args)) + "; try 'tools/" + name + " --help'");
        err.flush();
        return USAGE_ERROR;
    }

    private static String message(
        final CommandLine failed, final CommandLine.ParameterException exception, final String[] args)
    {
        // An option the command does not know comes first: picocli reports missing required options before
        // unmatched ones, and a user who typed --bogus needs to hear about --bogus.
        final String unknown = unknownOption(failed, args);
        if (unknown != null)
        {
            return "unknown option '" + unknown + "'";
        }
        if (exception instanceof final CommandLine.UnmatchedArgumentException unmatched &&
            !unmatched.getUnmatched().isEmpty())
        {
            return "unexpected argument '" + unmatched.getUnmatched().getFirst() + "'";
        }
        if (exception instanceof final CommandLine.MissingParameterException missing &&
            exception.getMessage().startsWith("Missing required option") && !missing.getMissing().isEmpty())
        {
            final List<String> options = new ArrayList<>();
            for (final ArgSpec arg : missing.getMissing())
            {
                options.add(arg instanceof final OptionSpec option ?
                    option.longestName() + (option.arity().max() > 0 ? "=" + option.paramLabel() : "") :
                    arg.paramLabel());
            }
            return (options.size() == 1 ? "missing required option " : "missing required options ") +
                String.join(", ", options);
        }
        String message = exception.getMessage() == null ? "bad command line" : exception.getMessage();
        if (message.endsWith("."))
        {
            message = message.substring(0, message.length() - 1);
        }
        return IoMessages.lowerFirst(message);
    }

    /**
     * @return the first argument of {@code failed}'s part of the command line that looks like an option and is
     * none of its options (nor its parents'), or null.
     */
    static String unknownOption(final CommandLine failed, final String[] args)
    {
        final List<String> path = new ArrayList<>();
        for (CommandLine c = failed; c.getParent() != null; c = c.getParent())
        {
            path.addFirst(c.getCommandName());
        }
        int i = 0;
        for (final String name : path)
        {
            while (i < args.length && !args[i].equals(name))
            {
                i++;
            }
            i++;
        }
        final CommandSpec spec = failed.getCommandSpec();
        for (; i < args.length; i++)
        {
            final String arg = args[i];
            if ("--".equals(arg))
            {
                return null;
            }
            if (arg.length() < 2 || arg.charAt(0) != '-' || Character.isDigit(arg.charAt(1)))
            {
                continue;
            }
            final int equals = arg.indexOf('=');
            final String name = equals < 0 ? arg : arg.substring(0, equals);
            final OptionSpec option = spec.findOption(name);
            if (option == null && !clusteredShortOptions(spec, name))
            {
                return name;
            }
            if (option != null && equals < 0 && option.arity().min() > 0)
            {
                i++;
            }
        }
        return null;
    }

    private static boolean clusteredShortOptions(final CommandSpec spec, final String name)
    {
        if (name.startsWith("--") || name.length() < 3)
        {
            return false;
        }
        for (int c = 1; c < name.length(); c++)
        {
            if (spec.findOption(name.charAt(c)) == null)
            {
                return false;
            }
        }
        return true;
    }

    /** The longest message line printed whole; a longer one (a token of megabytes from an input) is cut. */
    static final int MAX_LINE = 400;

    /**
     * A message as one readable line, whatever input it quotes: control characters and a byte-order mark are shown
     * as escapes (a NUL as {@code \x00}), and a line longer than {@link #MAX_LINE} keeps its start and end around
     * how much was left out.
     *
     * @param line a message that may quote input.
     * @return the line to print.
     */
    static String oneLine(final String line)
    {
        final StringBuilder shown = new StringBuilder(Math.min(line.length(), MAX_LINE + 64));
        final int keepHead = MAX_LINE - 100;
        final int tailFrom = line.length() - 60;
        for (int i = 0; i < line.length(); i++)
        {
            if (line.length() > MAX_LINE && i == keepHead)
            {
                shown.append(" [... ").append(tailFrom - keepHead).append(" characters left out ...] ");
                i = tailFrom;
            }
            final char c = line.charAt(i);
            if (c < 0x20 || c == 0x7f)
            {
                shown.append(String.format("\\x%02x", (int)c));
            }
            else if (c == 0xfeff)
            {
                shown.append("\\ufeff");
            }
            else
            {
                shown.append(c);
            }
        }
        return shown.toString();
    }

    /**
     * What a command threw: a {@link CommandError}'s line and status, or one line and status 1 for anything
     * else (a bug: its stack trace with {@code JVS_STACK_TRACES=1}).
     */
    private static int failure(final Exception exception, final CommandLine failed)
    {
        final PrintWriter err = failed.getErr();
        if (exception instanceof final CommandError error)
        {
            err.println(oneLine(prefix(failed) + error.getMessage()));
            err.flush();
            return error.status();
        }
        err.println(prefix(failed) + "internal error: " + exception +
            " (JVS_STACK_TRACES=1 prints the stack trace)");
        if ("1".equals(System.getenv("JVS_STACK_TRACES")))
        {
            exception.printStackTrace(err);
        }
        err.flush();
        return CommandError.FAILED;
    }

    /**
     * @return "jvs bench pipeline" for that subcommand, "jvs" for the top level.
     */
    static String qualifiedName(final CommandLine commandLine)
    {
        return commandLine.getCommandSpec().qualifiedName(" ");
    }

    /**
     * @return the start of every line a command prints about a failure: "jvs bench pipeline: ".
     */
    public static String prefix(final CommandLine commandLine)
    {
        return qualifiedName(commandLine) + ": ";
    }

    /**
     * Runs the command line and exits with its status. An {@link Error} (out of memory, a class the JVM
     * cannot link), which picocli hands on rather than to the execution handler, is one line and status 1
     * too; its stack trace only with {@code JVS_STACK_TRACES=1}.
     */
    public static void main(final String[] args)
    {
        // ctl's arguments are ipvsadm's, parsed by the daemon: only `ctl --help` goes through picocli (jvs's help
        // of ctl); through the ipvsadm link (`ctl --as-ipvsadm ...`) even --help is ipvsadm's.
        if (args.length > 0 && args[0].equals("ctl") && !(args.length == 2 && args[1].equals("--help")))
        {
            System.exit(io.jvs.tools.ctl.CtlCommand.run(java.util.Arrays.copyOfRange(args, 1, args.length),
                System.in, System.out, System.err));
        }
        int status;
        try
        {
            status = commandLine(args).execute(args);
        }
        catch (final Error error)
        {
            System.err.println("jvs: " + error + " (JVS_STACK_TRACES=1 prints the stack trace)");
            if ("1".equals(System.getenv("JVS_STACK_TRACES")))
            {
                error.printStackTrace();
            }
            status = CommandError.FAILED;
        }
        System.exit(status);
    }
}
