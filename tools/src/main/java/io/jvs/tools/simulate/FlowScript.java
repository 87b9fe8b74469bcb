package io.jvs.tools.simulate;

import io.jvs.core.rules.RuleCommand;
import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RuleParser;

import java.util.ArrayList;
import java.util.List;

/**
 * A parsed flows file: new connections, {@code random:N[:SEED]} lines, and ipvsadm commands that
 * change the rules at that point of the sequence (for example {@code -e -t 10.0.0.100:80 -r
 * 192.168.1.3:80 -m -w 0} to quiesce a server half way). {@code #} starts a comment.
 */
final class FlowScript
{
    /** One step of the script. */
    sealed interface Step
    {
        int line();
    }

    /** A new connection. */
    record Connect(int line, FlowSpec flow) implements Step
    {
    }

    /** N random clients spread over every service. */
    record Random(int line, int count, long seed) implements Step
    {
    }

    /** A rule change. */
    record Change(int line, RuleCommand command) implements Step
    {
    }

    /** The largest random:N accepted. */
    static final int MAX_RANDOM_FLOWS = 100_000_000;

    private FlowScript()
    {
    }

    /**
     * @param source a label for messages, the file name.
     * @param lines  the lines.
     * @return the steps.
     * @throws RuleException for the first line that cannot be parsed.
     */
    static List<Step> parse(final String source, final List<String> lines) throws RuleException
    {
        final List<Step> steps = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++)
        {
            final int number = i + 1;
            String text = lines.get(i);
            final int hash = text.indexOf('#');
            if (hash >= 0)
            {
                text = text.substring(0, hash);
            }
            text = text.trim();
            if (text.isEmpty())
            {
                continue;
            }
            try
            {
                if (text.startsWith("-") || text.startsWith("ipvsadm"))
                {
                    steps.add(new Change(number, RuleParser.parse(text)));
                }
                else if (text.startsWith("random:"))
                {
                    steps.add(random(number, text));
                }
                else
                {
                    steps.add(new Connect(number, FlowSpec.parse(text)));
                }
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RuleException(source, number, ex.getMessage());
            }
        }
        return steps;
    }

    /**
     * @param line the line number.
     * @param text {@code random:N} or {@code random:N:SEED}.
     * @return the step.
     */
    static Random random(final int line, final String text)
    {
        final String[] parts = text.split(":", -1);
        if (parts.length < 2 || parts.length > 3)
        {
            throw new IllegalArgumentException("expected random:N or random:N:SEED, got `" + text + "'");
        }
        final int count;
        final long seed;
        try
        {
            count = Integer.parseInt(parts[1]);
            seed = parts.length == 3 ? Long.parseLong(parts[2]) : 1L;
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("expected random:N or random:N:SEED with numbers, got `" + text + "'");
        }
        if (count < 1 || count > MAX_RANDOM_FLOWS)
        {
            throw new IllegalArgumentException("random:N needs 1 <= N <= " + MAX_RANDOM_FLOWS + ", got " + count);
        }
        return new Random(line, count, seed);
    }
}
