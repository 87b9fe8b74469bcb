package io.jvs.tools;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One style of help for every command: option descriptions are sentences (a capital, a full stop), every
 * parameter has an upper-case placeholder ({@code --flows=N}), and no text is wrapped twice: the command
 * descriptions and footers, wrapped by hand, fit picocli's width, and picocli's own wrapping of an option's
 * description never cuts a word.
 */
class HelpStyleTest
{
    private static final int WIDTH = 80;

    @Test
    void shouldDescribeEveryOptionInOneSentenceWithAnUpperCasePlaceholder()
    {
        for (final CommandLine command : everyCommand())
        {
            for (final OptionSpec option : command.getCommandSpec().options())
            {
                if (option.usageHelp() || option.versionHelp())
                {
                    continue;
                }
                final String name = command.getCommandSpec().qualifiedName(" ") + " " + option.longestName();
                assertThat(option.description()).as(name).hasSize(1);
                assertThat(option.description()[0]).as(name).matches("[A-Z].*[.]");
                if (option.arity().max() > 0 && option.type() != boolean.class)
                {
                    assertThat(option.paramLabel()).as(name).matches("[A-Z][A-Z0-9_]*([.][a-z]+)?");
                }
            }
        }
    }

    @Test
    void shouldFitEveryHandWrappedLineInTheHelpsWidth()
    {
        for (final CommandLine command : everyCommand())
        {
            final List<String> lines = new ArrayList<>(List.of(command.getCommandSpec().usageMessage().description()));
            lines.addAll(List.of(command.getCommandSpec().usageMessage().footer()));
            assertThat(lines).as(command.getCommandSpec().qualifiedName(" "))
                .allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(WIDTH));
            assertThat(command.getUsageHelpWidth()).isEqualTo(WIDTH);
        }
    }

    @Test
    void shouldNeverCutAWordNorShowAnAngleBracketPlaceholder()
    {
        for (final CommandLine command : everyCommand())
        {
            final String help = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
            final String joined = help.replaceAll("\\s+", " ");
            assertThat(help).as(command.getCommandName()).doesNotContainPattern("=<[a-zA-Z]+>");
            for (final OptionSpec option : command.getCommandSpec().options())
            {
                for (final String word : option.description()[0].split("\\s+"))
                {
                    if (!word.contains("${") && word.length() < 30)
                    {
                        assertThat(joined).as(command.getCommandName() + " " + option.longestName()).contains(word);
                    }
                }
            }
        }
    }

    private static List<CommandLine> everyCommand()
    {
        final List<CommandLine> found = new ArrayList<>();
        collect(JvsMain.commandLine(), found);
        assertThat(found).hasSizeGreaterThan(8);
        return found;
    }

    private static void collect(final CommandLine command, final List<CommandLine> found)
    {
        found.add(command);
        command.getSubcommands().values().forEach(sub -> collect(sub, found));
    }
}
