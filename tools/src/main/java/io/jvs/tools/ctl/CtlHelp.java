package io.jvs.tools.ctl;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;

/**
 * {@code ctl}'s entry in jvs's usage and its {@code --help}. The command itself does not go through picocli:
 * its arguments are ipvsadm's, which the daemon parses as ipvsadm 1.31 does ({@link CtlCommand}).
 */
@Command(
    name = "ctl",
    addMethodSubcommands = false,
    description = {
        "Controls a running daemon with ipvsadm's command line.",
        "Takes exactly ipvsadm's arguments (-A -E -D -C -R -S -a -e -d -L -Z --set",
        "and their options) and prints what ipvsadm 1.31 prints for the same state;",
        "the daemon checks and applies each change as the kernel would, as one new",
        "snapshot. -R reads rules from standard input. Called through a link named",
        "ipvsadm, it behaves the same, so IPVS scripts run unchanged."},
    footer = {
        "",
        "The socket is the config's control statement's, by default",
        "/run/jvs/jvs.sock (or JVS_CONTROL_SOCKET, as tools/jvs with-ipvs sets it).",
        "Exit status: ipvsadm's (0; 2 for ipvsadm's own option checks, or when no",
        "daemon answers on the socket; 255 for what the kernel would refuse; 1 for",
        "-L of a missing service)."})
public final class CtlHelp implements Runnable
{
    @Option(names = "--socket", paramLabel = "PATH", description = "The daemon's control socket.")
    private String socket;

    @Parameters(paramLabel = "IPVSADM-ARGS", arity = "0..*", description = "ipvsadm's arguments.")
    private List<String> arguments;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Override
    public void run()
    {
        throw new IllegalStateException("ctl runs through CtlCommand, not picocli");
    }
}
