package io.jvs.core.rules;

import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A file of ipvsadm rules, such as {@code ipvsadm -S -n} writes.
 */
public final class RulesFile
{
    /**
     * A parsed command and the line it came from.
     *
     * @param line    1-based line number.
     * @param text    the line as written.
     * @param command the command.
     */
    public record Rule(int line, String text, RuleCommand command)
    {
    }

    private RulesFile()
    {
    }

    /**
     * Parses every line. A line that is not a rule is refused; but when a rule before it is one the table would
     * refuse (a server of a service not defined, an unknown scheduler), that rule is the first refused and is
     * reported instead, as applying the rules would report it.
     *
     * @param source a label for messages, usually the file name.
     * @param lines  the lines.
     * @return the commands, in order.
     * @throws RuleException for the first line that is not a valid rule, or an earlier one a table refuses.
     */
    public static List<Rule> parse(final String source, final List<String> lines) throws RuleException
    {
        final List<Rule> rules = new ArrayList<>();
        try
        {
            parseInto(source, lines, rules);
        }
        catch (final RuleException refused)
        {
            apply(source, rules, new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE)));
            throw refused;
        }
        return rules;
    }

    /**
     * Parses every line into {@code rules}, which on a refusal holds the rules of the lines before the refused one
     * (for a caller that checks them against rules of its own that come first).
     *
     * @throws RuleException for the first line that is not a valid rule.
     */
    public static void parseInto(final String source, final List<String> lines, final List<Rule> rules)
        throws RuleException
    {
        for (int i = 0; i < lines.size(); i++)
        {
            final String text = lines.get(i);
            try
            {
                final RuleCommand command = RuleParser.parse(text);
                if (command != null)
                {
                    rules.add(new Rule(i + 1, text, command));
                }
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RuleException(source, i + 1, ex.getMessage());
            }
        }
    }

    /**
     * Applies commands in order to a table.
     *
     * @param source a label for messages.
     * @param rules  the commands.
     * @param table  the table; on error it holds the commands before the failing one, so build a fresh
     *               table when the running configuration must stay untouched.
     * @throws RuleException for the first command the table refuses.
     */
    public static void apply(final String source, final List<Rule> rules, final ServiceTable table) throws RuleException
    {
        for (final Rule rule : rules)
        {
            try
            {
                rule.command().applyTo(table);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RuleException(source, rule.line(), ex.getMessage());
            }
        }
    }

    /**
     * Reads, parses and applies a rules file to a fresh table.
     *
     * @param path  the file.
     * @param table an empty table to fill.
     * @throws RuleException naming file and line of the first refused rule.
     * @throws IOException   when the file cannot be read.
     */
    public static void load(final Path path, final ServiceTable table) throws RuleException, IOException
    {
        final String source = path.toString();
        apply(source, parse(source, Files.readAllLines(path, StandardCharsets.UTF_8)), table);
    }
}
