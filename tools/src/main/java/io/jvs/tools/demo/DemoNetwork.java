package io.jvs.tools.demo;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live demo's network namespaces, made with iproute2 and named {@code jvsdemo<pid>-<role>}, so that a run
 * never meets another one and whatever a killed run left behind is recognised by the next: {@link #removeStale()}
 * removes the namespaces of demos whose process is gone. {@link #close()} removes this run's namespaces; it may
 * be called more than once, from a shutdown hook too.
 */
final class DemoNetwork implements AutoCloseable
{
    /** What every demo namespace's name starts with. */
    static final String PREFIX = "jvsdemo";

    /** A line of {@code ip netns list}: "name" or "name (id: 3)". */
    private static final Pattern LISTED = Pattern.compile("([^\\s:]+)(?: \\(id: \\d+\\))?");
    private static final Pattern DEMO_NAMESPACE = Pattern.compile(PREFIX + "(\\d+)-\\S+");
    private static final long COMMAND_TIMEOUT_SECONDS = 30;

    private final String prefix;
    private final List<String> namespaces = new ArrayList<>();
    private boolean closed;

    /**
     * @param pid the process whose namespaces these are (this one's, but for tests).
     */
    DemoNetwork(final long pid)
    {
        this.prefix = PREFIX + pid + "-";
    }

    /** @return the prefix of this run's namespaces, {@code jvsdemo<pid>-}. */
    String prefix()
    {
        return prefix;
    }

    /**
     * Creates a namespace with its loopback up.
     *
     * @param role what it is for ({@code client}, {@code jvs}, {@code rs1}...): the name's last part.
     * @return its name.
     */
    synchronized String namespace(final String role)
    {
        // Under the lock that close() takes: a namespace is either made before the cleaning or refused.
        if (closed)
        {
            throw new IllegalStateException("interrupted");
        }
        final String name = prefix + role;
        namespaces.add(name);
        run("ip", "netns", "add", name);
        run("ip", "-n", name, "link", "set", "dev", "lo", "up");
        return name;
    }

    /**
     * Runs {@code ip} commands (each without the leading {@code ip}) in one process inside a namespace
     * ({@code ip -n NS -batch -}); it stops at the first that fails.
     *
     * @throws IllegalStateException naming the namespace and with ip's output when one fails.
     */
    static void ip(final String namespace, final List<String> commands)
    {
        final Result result = execute(List.of("ip", "-n", namespace, "-batch", "-"),
            String.join("\n", commands) + "\n");
        if (result.status() != 0)
        {
            throw new IllegalStateException("ip -batch in " + namespace + " failed: " + oneLine(result.output()));
        }
    }

    /**
     * Runs a command inside a namespace ({@code ip netns exec}).
     *
     * @return its output (standard output and error).
     * @throws IllegalStateException with its output when it fails.
     */
    static String exec(final String namespace, final String... command)
    {
        final List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        full.addAll(Arrays.asList(command));
        return run(full.toArray(String[]::new));
    }

    /**
     * @return the names of the namespaces {@code ip netns list} shows.
     */
    static List<String> list()
    {
        final List<String> names = new ArrayList<>();
        // Its status is not looked at: while a namespace is being torn down it may also print an error about
        // that one ("Peer netns reference is invalid") and still list the others.
        for (final String line : tryRun("ip", "netns", "list").output().split("\n"))
        {
            final Matcher matcher = LISTED.matcher(line.strip());
            if (matcher.matches())
            {
                names.add(matcher.group(1));
            }
        }
        return names;
    }

    /**
     * @return the process a demo namespace name belongs to, or empty for a name that is not a demo's.
     */
    static Optional<Long> owner(final String namespace)
    {
        final Matcher matcher = DEMO_NAMESPACE.matcher(namespace);
        if (!matcher.matches())
        {
            return Optional.empty();
        }
        try
        {
            return Optional.of(Long.parseLong(matcher.group(1)));
        }
        catch (final NumberFormatException ex)
        {
            return Optional.empty();
        }
    }

    /**
     * Removes the namespaces of demos whose process no longer runs (one killed with SIGKILL, say) and ends the
     * processes still inside them (its daemon, its servers), which would otherwise keep the devices alive.
     *
     * @return the namespaces removed.
     */
    static List<String> removeStale()
    {
        final List<String> removed = new ArrayList<>();
        for (final String name : list())
        {
            final Optional<Long> owner = owner(name);
            if (owner.isPresent() && !ProcessHandle.of(owner.get()).map(ProcessHandle::isAlive).orElse(false))
            {
                for (final String pid : tryRun("ip", "netns", "pids", name).output().split("\\s+"))
                {
                    if (pid.matches("\\d+"))
                    {
                        ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
                    }
                }
                tryRun("ip", "netns", "delete", name);
                removed.add(name);
            }
        }
        return removed;
    }

    /**
     * Removes this run's namespaces, latest first (deleting a namespace deletes the veth ends in it and so
     * their peers), and refuses to make more. Harmless when called again.
     */
    @Override
    public synchronized void close()
    {
        closed = true;
        for (int i = namespaces.size() - 1; i >= 0; i--)
        {
            tryRun("ip", "netns", "delete", namespaces.get(i));
        }
        namespaces.clear();
    }

    /**
     * Runs a command.
     *
     * @return its output (standard output and error).
     * @throws IllegalStateException with the command and its output when it fails.
     */
    static String run(final String... command)
    {
        final Result result = tryRun(command);
        if (result.status() != 0)
        {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + oneLine(result.output()));
        }
        return result.output();
    }

    /** Runs a command whose failure the caller looks at itself. */
    static Result tryRun(final String... command)
    {
        return execute(List.of(command), null);
    }

    /** What a command did: its exit status and its output. */
    record Result(int status, String output)
    {
    }

    private static Result execute(final List<String> command, final String input)
    {
        try
        {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            try (OutputStream stdin = process.getOutputStream())
            {
                if (input != null)
                {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " +
                    COMMAND_TIMEOUT_SECONDS + " s");
            }
            return new Result(process.exitValue(), output);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot run " + command.getFirst() + ": " + ex.getMessage(), ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", command), ex);
        }
    }

    private static String oneLine(final String output)
    {
        return output.strip().replace('\n', ';');
    }
}
