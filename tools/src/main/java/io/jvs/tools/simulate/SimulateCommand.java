package io.jvs.tools.simulate;

import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;
import io.jvs.tools.CommandError;
import io.jvs.tools.JvsMain;
import io.jvs.tools.io.InputFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jvs simulate}: what the schedulers of a configuration decide for a list of new connections.
 */
@Command(
    name = "simulate",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    description = {
        "Shows which real server each new connection would get.",
        "Run it before deploying a configuration. Every scheduled flow stays open on",
        "its server (TCP active, UDP inactive), so least-connection schedulers see",
        "the load grow; one worker; time does not advance."},
    footer = {
        "",
        "RULES holds ipvsadm commands as `ipvsadm -S -n` prints them, e.g.",
        "  -A -t 10.0.0.100:80 -s wrr",
        "  -a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 4",
        "FLOWS holds one new connection per line,",
        "  PROTO SRC_IP:SRC_PORT DST_IP:DST_PORT [fwmark=N]",
        "(IPv6 as [addr]:port), `random:N[:SEED]` for N random clients over every",
        "service, or an ipvsadm command that changes the rules at that point. FLOWS",
        "may also be random:N[:SEED] itself. Each flow gives one line of output,",
        "  SRC_IP:SRC_PORT DST_IP:DST_PORT -> RIP:RPORT",
        "or `-> -` when no server can take it. Exit status: 0 done; 2 bad options,",
        "rules or flows (nothing printed on standard output)."})
public final class SimulateCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--rules", required = true, paramLabel = "RULES", description = "The ipvsadm rules.")
    private Path rules;

    @Option(names = "--flows", required = true, paramLabel = "FLOWS",
        description = "The flows: a file, or random:N[:SEED].")
    private String flows;

    @Option(names = "--summary", description = "Adds a table per service: server, weight, " +
        "connections, share.")
    private boolean summary;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final String prefix = JvsMain.prefix(spec.commandLine());
        try
        {
            // The flows first: a malformed random:N is a usage error, reported before any file is read.
            final List<FlowScript.Step> steps = flowSteps();
            final List<String> ruleLines = InputFiles.lines(rules);
            final List<RulesFile.Rule> parsedRules = RulesFile.parse(rules.toString(), ruleLines);
            if (InputFiles.holdsNothing(ruleLines))
            {
                err.println(prefix + "warning: " + rules + " holds no rules: no flow gets a server");
            }
            if (steps.isEmpty())
            {
                err.println(prefix + "warning: " + flows + " holds no flows: nothing to show");
            }
            err.flush();

            // A dry run first, so that a refused rule change stops everything before any output.
            new Simulator(load(parsedRules), null).run(flows, steps);

            final Simulator simulator = new Simulator(load(parsedRules), out);
            simulator.run(flows, steps);
            if (summary)
            {
                Summary.print(simulator, out);
            }
            out.flush();
            return 0;
        }
        catch (final RuleException ex)
        {
            throw new CommandError(CommandError.REFUSED, ex.getMessage());
        }
    }

    private List<FlowScript.Step> flowSteps() throws RuleException
    {
        if (flows.startsWith("random:") && !Files.exists(Path.of(flows)))
        {
            try
            {
                return List.of(FlowScript.random(1, flows));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ParameterException(spec.commandLine(), "--flows: " + ex.getMessage());
            }
        }
        return FlowScript.parse(flows, InputFiles.lines(Path.of(flows)));
    }

    private ServiceTable load(final List<RulesFile.Rule> parsedRules) throws RuleException
    {
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        RulesFile.apply(rules.toString(), parsedRules, table);
        return table;
    }
}
