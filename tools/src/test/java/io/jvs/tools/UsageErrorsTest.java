package io.jvs.tools;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every command line mistake, through the real entry point: one line naming the option at fault (and the
 * values it takes), then the hint, status 2; never the whole help, never a stack trace.
 */
class UsageErrorsTest
{
    private static final String SCHEDULERS = "rr, wrr, lc, wlc, sed, nq, fo, ovf, twos, lblc, lblcr, dh, sh, mh";

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "bench pipeline --burst 0|jvs bench pipeline: --burst must be 1..256, not 0; " +
            "try 'tools/jvs bench pipeline --help'",
        "bench pipeline --burst 257|jvs bench pipeline: --burst must be 1..256, not 257; " +
            "try 'tools/jvs bench pipeline --help'",
        "bench pipeline --flows 0|jvs bench pipeline: --flows must be 1 or more, not 0; " +
            "try 'tools/jvs bench pipeline --help'",
        "bench pipeline --seconds 0|jvs bench pipeline: --seconds must be 1 or more, not 0; " +
            "try 'tools/jvs bench pipeline --help'",
        "bench pipeline --scheduler bogus|jvs bench pipeline: --scheduler must be one of " + SCHEDULERS +
            ", not 'bogus'; try 'tools/jvs bench pipeline --help'",
        "bench pipeline --mode tun|jvs bench pipeline: --mode must be nat or dr, not 'tun'; " +
            "try 'tools/jvs bench pipeline --help'",
        "bench pipeline --burst x|jvs bench pipeline: invalid value for option '--burst': 'x' is not an int; " +
            "try 'tools/jvs bench pipeline --help'",
        "bench pipeline --weights 0,0|jvs bench pipeline: --weights: one weight at least must be above 0, or no " +
            "server takes a connection; try 'tools/jvs bench pipeline --help'",
        "bench pipeline --weights 1,-2|jvs bench pipeline: --weights: a weight is 0 to 2147483647, not -2; " +
            "try 'tools/jvs bench pipeline --help'",
        "bench pipeline --weights 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17|jvs bench pipeline: --weights: 1 to 16 " +
            "weights (one a server, repeated over the 16), not 17; try 'tools/jvs bench pipeline --help'",
        "bench pipeline --replies --mode dr|jvs bench pipeline: --replies needs --mode nat, established flows (not " +
            "--new-flows) and a --burst of 2 or more: only NAT's real servers answer through jvs; " +
            "try 'tools/jvs bench pipeline --help'",
        "bench nosuch|jvs bench: unexpected argument 'nosuch'; try 'tools/jvs bench --help'",
        "simulate --bogus|jvs simulate: unknown option '--bogus'; try 'tools/jvs simulate --help'",
        "simulate --rules r --bogus=1|jvs simulate: unknown option '--bogus'; try 'tools/jvs simulate --help'",
        "simulate --rules r|jvs simulate: missing required option --flows=FLOWS; try 'tools/jvs simulate --help'",
        "simulate|jvs simulate: missing required options --rules=RULES, --flows=FLOWS; " +
            "try 'tools/jvs simulate --help'",
        "simulate --rules r --flows random:x|jvs simulate: --flows: expected random:N or random:N:SEED with " +
            "numbers, got `random:x'; try 'tools/jvs simulate --help'",
        "synth --out x.pcap --scheduler bogus|jvs synth: --scheduler must be one of " + SCHEDULERS +
            ", not 'bogus'; try 'tools/jvs synth --help'",
        "replay --in x.pcap|jvs replay: a replay needs services: --rules FILE, or a --config that gives them; " +
            "try 'tools/jvs replay --help'",
        "replay --in x.pcap --rules r --workers 0|jvs replay: --workers must be 1..64, not 0; " +
            "try 'tools/jvs replay --help'",
        "demo --scheduler bogus|jvs demo: --scheduler must be one of " + SCHEDULERS +
            ", not 'bogus'; try 'tools/jvs demo --help'",
        "demo --offline --dir /etc/hostname|jvs demo: --dir /etc/hostname: not a directory; " +
            "try 'tools/jvs demo --help'",
        "synth --out=|jvs synth: --out needs a file name, not an empty one",
        "run|jvs run: missing required option --config=FILE; try 'tools/jvs run --help'",
        "help bogus|jvs: unknown subcommand 'bogus'; try 'tools/jvs --help'",
        "bogus|jvs: unknown subcommand 'bogus'; try 'tools/jvs --help'",
        "stat|jvs: stat is not written yet (a running daemon's counters: tools/jvs ctl -L -n --stats); try " +
            "'tools/jvs --help'"})
    void shouldSayWhatIsWrongInOneLineWithStatusTwo(final String args, final String line)
    {
        final CommandRun run = CommandRun.of(args.split(" "));

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo(line + "\n");
    }

    @Test
    void shouldShowASubcommandsHelpThroughHelp()
    {
        final CommandRun help = CommandRun.of("help", "simulate");
        final CommandRun direct = CommandRun.of("simulate", "--help");

        assertThat(help.status()).isZero();
        assertThat(help.out()).startsWith("Usage: jvs simulate ").isEqualTo(direct.out());
    }

    @ParameterizedTest
    @CsvSource({"simulate", "replay", "synth", "demo", "bench", "run"})
    void shouldPrintTheVersionOnEverySubcommand(final String name)
    {
        final CommandRun run = CommandRun.of(name, "-V");

        assertThat(run.status()).isZero();
        assertThat(run.out()).isEqualTo(JvsMain.VERSION + "\n");
    }

    @Test
    void shouldPrintAFailureInOneLineWithItsStatusAndABugWithStatusOne()
    {
        final StringWriter err = new StringWriter();
        final CommandLine failing = JvsMain.withSubcommand("fail", new Failing());
        failing.setErr(new PrintWriter(err, true));
        final CommandLine buggy = JvsMain.withSubcommand("bug", new Buggy());
        buggy.setErr(new PrintWriter(err, true));

        assertThat(failing.execute("fail")).isEqualTo(1);
        assertThat(buggy.execute("bug")).isEqualTo(1);
        assertThat(err.toString()).isEqualTo("jvs fail: x.pcap: no space left on device\n" +
            "jvs bug: internal error: java.lang.IllegalStateException: a bug " +
            "(JVS_STACK_TRACES=1 prints the stack trace)\n");
    }

    @Command(name = "fail")
    private static final class Failing implements Callable<Integer>
    {
        @Override
        public Integer call()
        {
            throw new CommandError(CommandError.FAILED, "x.pcap: no space left on device");
        }
    }

    @Command(name = "bug")
    private static final class Buggy implements Callable<Integer>
    {
        @Override
        public Integer call()
        {
            throw new IllegalStateException("a bug");
        }
    }
}
