package io.jvs.tools;

/**
 * A command's failure that is no bug: a refused input, an output that cannot be written, a system call that
 * failed. {@link JvsMain}'s handler prints its message as one line, {@code jvs CMD: MESSAGE}, and exits with
 * its status, without a stack trace. The message names the file or option at fault and the reason, once.
 * A mistake on the command line is a {@link picocli.CommandLine.ParameterException} instead, which adds the
 * {@code try 'tools/jvs CMD --help'} hint.
 */
public class CommandError extends RuntimeException
{
    /** Refused before anything was done: bad rules, config, capture or output path. */
    public static final int REFUSED = 2;
    /** Failed part-way: an I/O error while running. */
    public static final int FAILED = 1;

    private final int status;

    /**
     * @param status  the exit status, {@link #REFUSED} or {@link #FAILED}.
     * @param message one line: what and why, without the "jvs CMD: " prefix.
     */
    public CommandError(final int status, final String message)
    {
        super(message, null, false, false);
        this.status = status;
    }

    /**
     * @return the exit status.
     */
    public int status()
    {
        return status;
    }
}
