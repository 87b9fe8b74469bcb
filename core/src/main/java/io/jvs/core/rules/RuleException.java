package io.jvs.core.rules;

/**
 * A rule that was refused, with where it came from.
 */
public final class RuleException extends Exception
{
    private final String source;
    private final int line;
    private final String reason;

    /**
     * @param source the file name, or another label such as "stdin".
     * @param line   1-based line number.
     * @param reason why the line was refused.
     */
    public RuleException(final String source, final int line, final String reason)
    {
        super(source + ":" + line + ": " + reason);
        this.source = source;
        this.line = line;
        this.reason = reason;
    }

    public String source()
    {
        return source;
    }

    public int line()
    {
        return line;
    }

    public String reason()
    {
        return reason;
    }
}
