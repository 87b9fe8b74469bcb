package io.jvs.core.control;

import io.jvs.core.rules.RuleCommand;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;

/**
 * ipvsadm's {@code main} and {@code process_options} over a {@link Backend}: parses the arguments, asks the backend,
 * prints what ipvsadm prints and returns its exit status. {@code tools/jvs ctl} runs it with a backend that talks to
 * the daemon's control socket; tests run it with {@link InMemoryBackend}.
 * <p>
 * Exit statuses are ipvsadm's: 0; 2 for its own option checks ({@code fail}); 255 for a change the kernel refuses
 * (the -1 of {@code process_options}), for a popt error and for the "Try ... -h" hint; 1 for {@code -L} of a missing
 * service. {@code -R} reads lines from {@code in} and runs each as its own command line: a refused change is
 * reported and the next line runs, a failed option check ends the restore, and the status is the last line's.
 * <p>
 * ipvsadm names itself in messages by {@code argv[0]} as called (the "Try `%s -h'" hint and the usage text), so
 * the caller passes the program name it was called by: "ipvsadm" through a link of that name, else what it likes.
 * The {@code -h} text is jvs's own wording of the same synopsis; {@code -v} says what jvs is compatible with.
 */
public final class Ipvsadm
{
    /**
     * Where requests go: the daemon (through its control socket) or an {@link IpvsModel}.
     */
    public interface Backend
    {
        /**
         * Applies one change, whole or not at all.
         *
         * @param command the change.
         * @return null when applied, else the kernel's refusal.
         */
        KernelError apply(RuleCommand command);

        /**
         * @param withConnections true when the connection entries are wanted ({@code -L -c}); otherwise the view's
         *                        connection list may be empty.
         * @return the current state.
         */
        IpvsView view(boolean withConnections);

        /**
         * --start-daemon or --stop-daemon: jvs has no connection synchronisation, so by default starting is refused
         * as the kernel refuses an unavailable protocol and stopping says no daemon runs.
         *
         * @param start  true to start.
         * @param master master or backup.
         * @return null when done, else the refusal.
         */
        default KernelError syncDaemon(final boolean start, final boolean master)
        {
            return start ? KernelError.NOT_AVAILABLE : KernelError.NO_DAEMON;
        }
    }

    /**
     * A backend over an {@link IpvsModel}, for tests and for a ctl with no daemon behind it.
     */
    public static final class InMemoryBackend implements Backend
    {
        private final IpvsModel model;

        /**
         * @param model the configuration to change.
         */
        public InMemoryBackend(final IpvsModel model)
        {
            this.model = model;
        }

        public IpvsModel model()
        {
            return model;
        }

        @Override
        public KernelError apply(final RuleCommand command)
        {
            return model.apply(command);
        }

        @Override
        public IpvsView view(final boolean withConnections)
        {
            return model.view();
        }
    }

    /** exit() inside process_options. */
    private static final class Exit extends RuntimeException
    {
        final int status;

        Exit(final int status)
        {
            super(null, null, false, false);
            this.status = status;
        }
    }

    private final String program;
    private final Reader in;
    private final PrintStream out;
    private final PrintStream err;
    private final Backend backend;
    private final Names names;

    private Ipvsadm(
        final String program, final Reader in, final PrintStream out, final PrintStream err, final Backend backend,
        final Names names)
    {
        this.program = program;
        this.in = in;
        this.out = out;
        this.err = err;
        this.backend = backend;
        this.names = names;
    }

    /**
     * Runs one ipvsadm command line as the program "ipvsadm", with no name lookups.
     *
     * @param args    the arguments after the program name.
     * @param in      standard input, for -R.
     * @param out     standard output.
     * @param err     standard error.
     * @param backend where requests go.
     * @return ipvsadm's exit status.
     */
    public static int run(
        final String[] args, final Reader in, final PrintStream out, final PrintStream err, final Backend backend)
    {
        return run("ipvsadm", args, in, out, err, backend, Names.NUMERIC);
    }

    /**
     * Runs one ipvsadm command line.
     *
     * @param program the program name as called, for messages.
     * @param args    the arguments after the program name.
     * @param in      standard input, for -R.
     * @param out     standard output.
     * @param err     standard error.
     * @param backend where requests go.
     * @param names   name lookups for listings without -n and for names in arguments.
     * @return ipvsadm's exit status.
     */
    public static int run(
        final String program, final String[] args, final Reader in, final PrintStream out, final PrintStream err,
        final Backend backend, final Names names)
    {
        final Ipvsadm ipvsadm = new Ipvsadm(program, in, out, err, backend, names);
        try
        {
            return ipvsadm.process(Arrays.asList(args), false) == 0 ? 0 : KernelError.EXIT_STATUS;
        }
        catch (final Exit exit)
        {
            return exit.status;
        }
        finally
        {
            out.flush();
            err.flush();
        }
    }

    /** @return 0, or -1 for a refused change or a popt error. */
    private int process(final List<String> args, final boolean readingStdin)
    {
        final IpvsadmRequest request;
        try
        {
            request = IpvsadmCommandLine.parse(args, readingStdin, names);
        }
        catch (final IpvsadmException ex)
        {
            err.print(ex.errorText(program));
            if (ex.kind() == IpvsadmException.Kind.POPT)
            {
                return -1;
            }
            throw new Exit(ex.exitStatus());
        }
        switch (request)
        {
            case IpvsadmRequest.Change change ->
            {
                return report(backend.apply(change.command()));
            }
            case IpvsadmRequest.ListServices list ->
            {
                final IpvsView view = backend.view(false);
                if (list.service() != null && view.service(list.service()) == null)
                {
                    // list_service: ipvs_get_service fails with ESRCH.
                    err.print(KernelError.NO_SUCH_SERVICE.message() + "\n");
                    throw new Exit(1);
                }
                out.print(IpvsadmFormatter.list(view, list.service(), list.format(), names));
                return 0;
            }
            case IpvsadmRequest.ListConnections list ->
            {
                IpvsadmFormatter.connections(backend.view(true), list.format(), names, out);
                return 0;
            }
            case IpvsadmRequest.ListTimeouts timeouts ->
            {
                out.print(IpvsadmFormatter.timeouts(backend.view(false)));
                return 0;
            }
            case IpvsadmRequest.ListDaemon daemon ->
            {
                // No sync daemon runs, so list_daemon prints nothing.
                return 0;
            }
            case IpvsadmRequest.Save save ->
            {
                out.print(IpvsadmFormatter.save(backend.view(false), save.numeric(), names));
                return 0;
            }
            case IpvsadmRequest.Restore restore ->
            {
                return restore();
            }
            case IpvsadmRequest.SyncDaemon daemon ->
            {
                return report(backend.syncDaemon(daemon.start(), daemon.master()));
            }
            case IpvsadmRequest.Help help ->
            {
                out.print(usage(program));
                throw new Exit(0);
            }
            case IpvsadmRequest.Version version ->
            {
                out.print(version());
                throw new Exit(0);
            }
        }
    }

    private int report(final KernelError error)
    {
        if (error == null)
        {
            return 0;
        }
        err.print(error.message() + "\n");
        return -1;
    }

    private int restore()
    {
        final RestoreReader reader = new RestoreReader(in);
        int result = 0;
        try
        {
            for (List<String> line = reader.nextLine(); line != null; line = reader.nextLine())
            {
                if (!line.isEmpty())
                {
                    result = process(line, true);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("reading the rules of -R", ex);
        }
        return result;
    }

    /**
     * @return the -v line: what jvs is compatible with.
     */
    static String version()
    {
        return "jvs ctl, compatible with ipvsadm v1.31 (popt option syntax, IPVS v1.2.1)\n";
    }

    /**
     * @param program the name called by.
     * @return the -h text, jvs's own words for ipvsadm's synopsis.
     */
    static String usage(final String program)
    {
        return version() +
            "Usage:\n" +
            "  " + program + " -A|-E SERVICE [-s SCHEDULER] [-p [SECONDS]] [-M NETMASK] [-b FLAGS] [-o]\n" +
            "  " + program + " -D SERVICE\n" +
            "  " + program + " -C\n" +
            "  " + program + " -R < RULES\n" +
            "  " + program + " -S [-n]\n" +
            "  " + program + " -a|-e SERVICE -r SERVER[:PORT] [-g|-i|-m] [-w WEIGHT] [-x UPPER] [-y LOWER]\n" +
            "  " + program + " -d SERVICE -r SERVER[:PORT]\n" +
            "  " + program + " -L|-l [SERVICE] [-n] [--stats|--rate|--thresholds|--persistent-conn] [--exact] " +
            "[--nosort]\n" +
            "  " + program + " -L|-l -c [-n] | --timeout\n" +
            "  " + program + " -Z [SERVICE]\n" +
            "  " + program + " --set TCP TCPFIN UDP\n" +
            "  " + program + " -h | -v\n" +
            "\n" +
            "SERVICE is -t|--tcp-service ADDRESS:PORT, -u|--udp-service ADDRESS:PORT, --sctp-service ADDRESS:PORT\n" +
            "or -f|--fwmark-service MARK [-6]; an IPv6 address with a port is written [ADDRESS]:PORT.\n" +
            "Schedulers: rr wrr lc wlc lblc lblcr dh sh sed nq fo ovf mh twos (default wlc).\n" +
            "Forwarding: -g direct routing (default), -i IP-in-IP tunnel (--tun-type ipip), -m NAT.\n" +
            "Long options are spelled out in full: --add-service, --edit-service, --delete-service, --clear,\n" +
            "--restore, --save, --add-server, --edit-server, --delete-server, --list, --zero, --scheduler,\n" +
            "--persistent, --netmask, --sched-flags, --ops, --real-server, --gatewaying, --ipip, --masquerading,\n" +
            "--weight, --u-threshold, --l-threshold, --numeric, --connection, --exact, --sort, --ipv6.\n";
    }
}
