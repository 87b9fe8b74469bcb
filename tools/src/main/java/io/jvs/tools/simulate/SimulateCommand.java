package io.jvs.tools.simulate;

import io.jvs.core.rules.RuleException;
import io.jvs.core.rules.RulesFile;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jvs simulate}: what the schedulers of a configuration decide for a list of new connections.
 */
@Command(
    name = "simulate",
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
        "FLOWS holds one new connection per line, `PROTO SRC_IP:SRC_PORT DST_IP:DST_PORT [fwmark=N]`",
        "(IPv6 as [addr]:port), `random:N[:SEED]` for N random clients over every service, or an",
        "ipvsadm command that changes the rules at that point. FLOWS may also be random:N[:SEED] itself.",
        "Output: `SRC_IP:SRC_PORT DST_IP:DST_PORT -> RIP:RPORT`, or `-> -` when no server can take it."})
public final class SimulateCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--rules", required = true, paramLabel = "RULES", description = "ipvsadm rules file")
    private Path rules;

    @Option(names = "--flows", required = true, paramLabel = "FLOWS", description = "flows file, or random:N[:SEED]")
    private String flows;

    @Option(names = "--summary", description = "add a table per service: server, weight, connections, share")
    private boolean summary;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        try
        {
            final List<String> ruleLines = read(rules);
            final List<RulesFile.Rule> parsedRules = RulesFile.parse(rules.toString(), ruleLines);
            final List<FlowScript.Step> steps = flowSteps();

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
            err.println("jvs simulate: " + ex.getMessage());
            err.println("jvs simulate: nothing was simulated");
            err.flush();
            return 2;
        }
        catch (final IOException ex)
        {
            err.println("jvs simulate: cannot read " + describe(ex));
            err.flush();
            return 2;
        }
    }

    private List<FlowScript.Step> flowSteps() throws IOException, RuleException
    {
        if (flows.startsWith("random:") && !Files.exists(Path.of(flows)))
        {
            try
            {
                return List.of(FlowScript.random(1, flows));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new RuleException("--flows", 1, ex.getMessage());
            }
        }
        return FlowScript.parse(flows, read(Path.of(flows)));
    }

    private ServiceTable load(final List<RulesFile.Rule> parsedRules) throws RuleException
    {
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        RulesFile.apply(rules.toString(), parsedRules, table);
        return table;
    }

    private static List<String> read(final Path path) throws IOException
    {
        return Files.readAllLines(path, StandardCharsets.UTF_8);
    }

    private static String describe(final IOException ex)
    {
        if (ex instanceof NoSuchFileException missing)
        {
            return missing.getFile() + ": no such file";
        }
        return ex.getMessage();
    }
}
