package io.jvs.core.control;

/**
 * ipvsadm's own refusal of a command line, before anything reaches the kernel: the message its {@code fail()}
 * prints (exit status 2), a popt error (status 255), or the "Try ... -h" hint of {@code tryhelp_exit} (status 255),
 * which names the program as it was called.
 */
public final class IpvsadmException extends RuntimeException
{
    /** The status of ipvsadm's {@code fail(2, ...)}. */
    public static final int FAIL_STATUS = 2;
    /** The status of {@code tryhelp_exit(argv[0], -1)} and of a popt error. */
    public static final int USAGE_STATUS = 255;

    /** What kind of refusal. */
    public enum Kind
    {
        /** fail(): the message, exit 2, and a restore stops there. */
        FAIL,
        /** A popt error: "option: reason", this line's result is -1 and a restore goes on. */
        POPT,
        /** tryhelp_exit(): the hint naming the program, exit 255, and a restore stops there. */
        TRY_HELP
    }

    private final Kind kind;

    /**
     * @param kind    what kind of refusal.
     * @param message the text without its final newline (unused for TRY_HELP).
     */
    public IpvsadmException(final Kind kind, final String message)
    {
        super(message);
        this.kind = kind;
    }

    static IpvsadmException fail(final String message)
    {
        return new IpvsadmException(Kind.FAIL, message);
    }

    static IpvsadmException tryHelp()
    {
        return new IpvsadmException(Kind.TRY_HELP, "the first option must be a command: -A, -E, -D, -C, -R, -S, " +
            "-a, -e, -d, -L, -Z, --set, --start-daemon, --stop-daemon, -h or -v");
    }

    public Kind kind()
    {
        return kind;
    }

    /**
     * @return 2 for fail(), 255 otherwise.
     */
    public int exitStatus()
    {
        return kind == Kind.FAIL ? FAIL_STATUS : USAGE_STATUS;
    }

    /**
     * What ipvsadm writes on standard error, with its final newline.
     *
     * @param program the program name as called (argv[0]), which tryhelp_exit prints.
     * @return the text.
     */
    public String errorText(final String program)
    {
        if (kind == Kind.TRY_HELP)
        {
            return "Try `" + program + " -h' or '" + program + " --help' for more information.\n";
        }
        return getMessage() + "\n";
    }
}
