package io.jvs.tools.run;

import io.jvs.forwarder.daemon.Daemon;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code jvs run}: the load balancer daemon.
 */
@Command(
    name = "run",
    addMethodSubcommands = false,
    mixinStandardHelpOptions = true,
    description = {
        "Runs the load balancer daemon on the configured interfaces.",
        "Owns each interface of the config through AF_XDP (an XDP program steers",
        "jvs's traffic to it; the rest stays the kernel's) or AF_PACKET, schedules",
        "new connections with the IPVS schedulers and forwards by NAT, direct",
        "routing or tunnelling, following the kernel's routes and neighbours.",
        "Prints one 'ready' line when it forwards. SIGHUP reloads the config",
        "(only what changed; connections keep their servers); SIGTERM or SIGINT",
        "stops it cleanly. Logs go to standard error, one line per event."},
    footer = {
        "",
        "Needs root (CAP_NET_ADMIN, CAP_NET_RAW, CAP_BPF, CAP_IPC_LOCK), as",
        "tools/systemd/jvs.service grants. The config language is the README's",
        "(tools/examples/*.conf). Exit status: 0 after a clean stop; 2 a config",
        "refused before anything was touched (file:line: reason); 1 when starting",
        "failed (what was opened is undone)."})
public final class RunCommand implements Callable<Integer>
{
    @Option(names = "--config", required = true, paramLabel = "FILE", description = "The configuration file.")
    private Path config;

    @Override
    public Integer call()
    {
        return Daemon.run(config);
    }
}
