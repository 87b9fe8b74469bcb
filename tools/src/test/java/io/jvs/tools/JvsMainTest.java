package io.jvs.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
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
    void shouldLookForNoSubcommandsAmongTheCommandsMethods()
    {
        // Each command that let picocli look would have every one of its methods' annotations read at each start.
        // jvs's own commands, not picocli's help command (added only to a command line that asks for help).
        final List<CommandLine> commands = new ArrayList<>();
        final List<CommandLine> pending = new ArrayList<>(List.of(JvsMain.commandLine()));
        while (!pending.isEmpty())
        {
            final CommandLine command = pending.removeLast();
            if (!(command.getCommandSpec().userObject() instanceof CommandLine.HelpCommand))
            {
                commands.add(command);
            }
            pending.addAll(command.getSubcommands().values());
        }
        assertThat(commands).hasSizeGreaterThan(8).allSatisfy(command ->
            assertThat(command.getCommandSpec().isAddMethodSubcommands()).as(command.getCommandName()).isFalse());
    }

    @Test
    void shouldRefuseAnUnknownSubcommandInOneLine()
    {
        final CommandRun run = CommandRun.of("nosuch", "--help");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs: unknown subcommand 'nosuch'; try 'tools/jvs --help'\n");
    }

    @Test
    void shouldPrintARefusalThatQuotesHugeOrInvisibleInputAsOneShortReadableLine(@TempDir final Path dir)
        throws Exception
    {
        // A rules file whose second line ends in a 100 000-character word that starts with a NUL.
        final Path rules = Files.writeString(dir.resolve("bad.rules"), "-A -t 10.0.0.1:80 -s rr\n" +
            "-A -t 10.0.0.2:80 -s rr \u0000" + "x".repeat(100_000) + "\n");
        final Path flows = Files.writeString(dir.resolve("flows"), "tcp 10.1.0.1:1000 10.0.0.1:80\n");
        final CommandRun run = CommandRun.of("simulate", "--rules", rules.toString(), "--flows", flows.toString());
        // A byte-order mark before the first rule: invisible unless shown.
        final Path marked = Files.writeString(dir.resolve("bom.rules"), "\ufeff-A -t 10.0.0.1:80 -s rr\n");
        final CommandRun bom = CommandRun.of("simulate", "--rules", marked.toString(), "--flows", flows.toString());

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).hasLineCount(1).contains(":2: ").contains("\\x00xxx").doesNotContain("\u0000")
            .contains("characters left out").endsWith("xxxxxxxxxx\n");
        assertThat(run.err().length()).isLessThan(JvsMain.MAX_LINE + 100);
        assertThat(bom.status()).isEqualTo(2);
        assertThat(bom.err()).contains(":1: unexpected argument \\ufeff-A").doesNotContain("\ufeff");
        assertThat(JvsMain.oneLine("a\u0000b\tc\ufeffd")).isEqualTo("a\\x00b\\x09c\\ufeffd");
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
