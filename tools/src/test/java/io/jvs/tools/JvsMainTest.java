package io.jvs.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The top level of the jvs command line: what it says about words that are not its subcommands, and the
 * one-line summaries its usage lists.
 */
class JvsMainTest
{
    @Test
    void shouldRefuseAnUnknownSubcommandInOneLine()
    {
        final CommandRun run = CommandRun.of("nosuch", "--help");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs: unknown subcommand 'nosuch'; try 'tools/jvs --help'\n");
    }

    @Test
    void shouldRefuseAnUnknownOptionInOneLine()
    {
        final CommandRun run = CommandRun.of("--nosuch");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs: unknown option '--nosuch'; try 'tools/jvs --help'\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"stat"})
    void shouldSayAnUnfinishedSubcommandIsNotWrittenYetEvenWhenAskedForItsHelp(final String name)
    {
        final CommandRun run = CommandRun.of(name, "--help");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo(
            "jvs: " + name + " is not written yet (a running daemon's counters: tools/jvs ctl -L -n --stats); " +
                "try 'tools/jvs --help'\n");
    }

    @Test
    void shouldNameASubcommandsUnknownOptionInOneLine()
    {
        final CommandRun run = CommandRun.of("simulate", "--rules", "r", "--flows", "f", "--nosuch");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs simulate: unknown option '--nosuch'; try 'tools/jvs simulate --help'\n");
    }

    @Test
    void shouldStillPrintTheUsageForHelpAndForNoArguments()
    {
        final CommandRun help = CommandRun.of("--help");
        final CommandRun none = CommandRun.of();

        assertThat(help.status()).isZero();
        assertThat(none.status()).isZero();
        assertThat(help.out()).startsWith("Usage: jvs ").contains("Commands:").isEqualTo(none.out());
    }

    /**
     * picocli lists a subcommand by the first element of its description only: that element must be a whole
     * sentence which fits the list's line, or the list shows a fragment cut mid-sentence.
     */
    @Test
    void shouldListEverySubcommandWithAWholeOneLineSummary()
    {
        final List<CommandLine> parents = withSubcommands(JvsMain.commandLine(), new ArrayList<>());
        assertThat(parents).extracting(CommandLine::getCommandName).contains("jvs", "bench");

        for (final CommandLine parent : parents)
        {
            final List<String> entries = parent.getHelp().commandList().lines().toList();
            assertThat(entries).as("the command list of %s", parent.getCommandName())
                .hasSize(parent.getSubcommands().size())
                .allSatisfy(entry -> assertThat(entry).matches("  [a-z0-9]+ +[A-Z].*[a-z)]\\."));
        }
    }

    private static List<CommandLine> withSubcommands(final CommandLine commandLine, final List<CommandLine> found)
    {
        if (!commandLine.getSubcommands().isEmpty())
        {
            found.add(commandLine);
        }
        for (final CommandLine subcommand : commandLine.getSubcommands().values())
        {
            withSubcommands(subcommand, found);
        }
        return found;
    }
}
