package io.jvs.core.rules;

import io.jvs.core.control.IpvsadmRequest;
import io.jvs.core.control.IpvsadmCommandLine;
import io.jvs.core.control.IpvsadmException;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses one line of ipvsadm's language, as {@code ipvsadm -S -n} writes it and {@code ipvsadm -R}
 * reads it: {@code -A -t 10.0.0.100:80 -s wrr}, {@code -a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 4}.
 * <p>
 * The line goes through {@link IpvsadmCommandLine}, ipvsadm 1.31's own grammar and checks (popt option syntax,
 * the command first, defaults: scheduler wlc on -E too, direct routing, weight 1, persistence 360 s, a server
 * without a port takes the service's, a DR or TUN server always the service's), so a rules file means what it
 * means to {@code ipvsadm -R}. Errors carry ipvsadm's wording. Only changes are rules: a listing command is
 * refused. Unlike ipvsadm, a line starting with {@code #} is a comment, and {@code --pe} is refused here (jvs
 * has no persistence engine) rather than by the kernel checks.
 */
public final class RuleParser
{
    private static final String COMMANDS = "a rules line is -A, -E, -D, -C, -a, -e, -d or --set";

    private RuleParser()
    {
    }

    /**
     * @param line one line of a rules file.
     * @return the command, or null for a blank or comment line.
     * @throws IllegalArgumentException naming what is wrong with the line.
     */
    public static RuleCommand parse(final String line)
    {
        final List<String> words = new ArrayList<>();
        for (final String word : line.trim().split("\\s+"))
        {
            if (!word.isEmpty() && !"ipvsadm".equals(word))
            {
                words.add(word);
            }
        }
        if (words.isEmpty() || words.get(0).startsWith("#"))
        {
            return null;
        }
        final IpvsadmRequest request;
        try
        {
            request = IpvsadmCommandLine.parse(words, true);
        }
        catch (final IpvsadmException ex)
        {
            if (ex.kind() == IpvsadmException.Kind.TRY_HELP)
            {
                final String first = words.get(0);
                throw new IllegalArgumentException(first.startsWith("-") ? "invalid command `" + first +
                    "': a rules line starts with -A, -E, -D, -C, -a, -e, -d or --set" : "unexpected argument " + first);
            }
            throw new IllegalArgumentException(ex.getMessage().strip());
        }
        if (!(request instanceof IpvsadmRequest.Change change) || change.command() instanceof RuleCommand.Zero)
        {
            throw new IllegalArgumentException("'" + words.get(0) + "' does not change the configuration: " + COMMANDS);
        }
        // Tests rather than a switch over the types: such a switch is linked at its first run through invokedynamic
        // (SwitchBootstraps.typeSwitch), which spins method handles at every start (the start-up cache does not hold
        // them), and the first rule of every command's rules paid for it.
        final RuleCommand command = change.command();
        final String engine = command instanceof final RuleCommand.AddService add ? add.persistenceEngine() :
            command instanceof final RuleCommand.EditService edit ? edit.persistenceEngine() : "";
        if (!engine.isEmpty())
        {
            throw new IllegalArgumentException("persistence engine `" + engine + "' is not supported by jvs");
        }
        return change.command();
    }
}
