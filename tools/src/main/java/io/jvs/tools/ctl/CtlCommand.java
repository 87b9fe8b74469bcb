package io.jvs.tools.ctl;

import io.jvs.forwarder.control.ControlClient;
import io.jvs.forwarder.control.ControlRequest;
import io.jvs.forwarder.control.ControlResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code tools/jvs ctl [--socket PATH] ARGS…}: ipvsadm's command line, run by the daemon against its live state.
 * The arguments go to the daemon unparsed, so its checks and messages are the same for every client; this side
 * only carries them, with standard input for {@code -R}, and prints the answer's output, error and exit status as
 * they come. Called as {@code ipvsadm} (a link to the launcher), it behaves the same, for scripts written for
 * IPVS.
 */
public final class CtlCommand
{
    /** How long the daemon may take to answer one command line (a restore of many rules included). */
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** ipvsadm's status when it cannot reach IPVS ({@code fail(2, "Can't initialize ipvs: …")}). */
    static final int CANNOT_INITIALIZE = 2;
    /** The launcher's first argument when it was called through a link named ipvsadm. */
    static final String AS_IPVSADM = "--as-ipvsadm";

    private CtlCommand()
    {
    }

    /**
     * @param arguments {@code [--socket PATH]} then ipvsadm's arguments.
     * @return the exit status to end with.
     */
    public static int run(final String[] arguments, final InputStream in, final PrintStream out,
        final PrintStream err)
    {
        // JVS_CONTROL_SOCKET, as the with-ipvs wrapper sets it, for scripts that call ipvsadm with no --socket.
        final String fromEnvironment = System.getenv("JVS_CONTROL_SOCKET");
        Path socket = fromEnvironment == null || fromEnvironment.isEmpty() ? ControlClient.DEFAULT_SOCKET :
            Path.of(fromEnvironment);
        // The launcher's mark for a call through the ipvsadm link: nothing else to do with it.
        int first = arguments.length > 0 && arguments[0].equals(AS_IPVSADM) ? 1 : 0;
        while (first < arguments.length && (arguments[first].equals("--socket") ||
            arguments[first].startsWith("--socket=")))
        {
            if (arguments[first].startsWith("--socket="))
            {
                socket = Path.of(arguments[first].substring("--socket=".length()));
                first++;
            }
            else if (first + 1 < arguments.length)
            {
                socket = Path.of(arguments[first + 1]);
                first += 2;
            }
            else
            {
                err.println("jvs ctl: --socket needs the control socket's path; try 'tools/jvs ctl --help'");
                return 2;
            }
        }
        final List<String> ipvsadm = new ArrayList<>(List.of(arguments).subList(first, arguments.length));
        final byte[] input;
        try
        {
            input = readsInput(ipvsadm) ? in.readAllBytes() : new byte[0];
        }
        catch (final IOException ex)
        {
            err.println("jvs ctl: standard input: " + ex.getMessage());
            return 2;
        }
        final ControlResponse response;
        try
        {
            response = ControlClient.exchange(socket, new ControlRequest.Ipvsadm(ipvsadm, input), TIMEOUT);
        }
        catch (final IOException ex)
        {
            err.println("Can't initialize ipvs: " + ex.getMessage());
            err.println("Are you sure that the jvs daemon is running and " + socket + " is its control socket?");
            return CANNOT_INITIALIZE;
        }
        return switch (response)
        {
            case ControlResponse.Result result ->
            {
                out.writeBytes(result.output());
                out.flush();
                err.writeBytes(result.error());
                err.flush();
                yield result.status();
            }
            case ControlResponse.Refused refused ->
            {
                err.println("jvs ctl: the daemon refused the request: " + refused.reason());
                yield CANNOT_INITIALIZE;
            }
        };
    }

    /** @return whether the command reads rules from standard input ({@code -R}, {@code --restore}). */
    static boolean readsInput(final List<String> arguments)
    {
        for (final String argument : arguments)
        {
            if (argument.equals("-R") || argument.equals("--restore") ||
                (argument.startsWith("-") && !argument.startsWith("--") && argument.indexOf('R') > 0 &&
                    argument.chars().skip(1).allMatch(Character::isLetter)))
            {
                return true;
            }
        }
        return false;
    }
}
