package io.jvs.tools;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * One run of the jvs command line through its real entry point, with its output captured.
 *
 * @param status the exit status.
 * @param out    what it printed on standard output.
 * @param err    what it printed on standard error.
 */
public record CommandRun(int status, String out, String err)
{
    /**
     * Runs the arguments through {@link JvsMain#commandLine(String...)}, as {@code main} does.
     */
    public static CommandRun of(final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = JvsMain.commandLine(args);
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        final int status = commandLine.execute(args);
        return new CommandRun(status, out.toString(), err.toString());
    }
}
