package io.jvs.tools.demo;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A Java program of the live demo run as a child process inside a network namespace
 * ({@code ip netns exec NS java ... CLASS ARGS}, which becomes the JVM itself, so signals reach it), with this
 * JVM's class path and the launcher's JVM flags. Its output (standard output and error, merged) is kept line by
 * line and written to a log file as it comes; its standard input stays open, for commands, and closes with this
 * JVM, which the demo's own programs take as the signal to exit.
 */
final class DemoProcess implements AutoCloseable
{
    /** The flags {@code tools/jvs} gives the JVM (the forwarder's FFM downcalls and its Unsafe use). */
    static final List<String> JVM_FLAGS = List.of("--enable-native-access=ALL-UNNAMED", "--add-exports",
        "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED");

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final String name;
    private final Process process;
    private final OutputStream input;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private DemoProcess(final String name, final Process process, final Path log)
    {
        this.name = name;
        this.process = process;
        this.input = process.getOutputStream();
        this.reader = Thread.ofPlatform().daemon().name("demo-" + name).start(() -> read(log));
    }

    /**
     * Starts {@code java [options] -cp CLASS_PATH mainClass args...} in the namespace.
     *
     * @param name      what to call it in messages ({@code jvs}, {@code rs1}, {@code client}).
     * @param namespace where it runs.
     * @param options   JVM options beyond {@link #JVM_FLAGS}.
     * @param mainClass the class to run.
     * @param args      its arguments.
     * @param log       the file its output goes to (replaced).
     */
    static DemoProcess start(final String name, final String namespace, final List<String> options,
        final String mainClass, final List<String> args, final Path log)
    {
        final List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace,
            Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(JVM_FLAGS);
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(args);
        try
        {
            return new DemoProcess(name, new ProcessBuilder(command).redirectErrorStream(true).start(), log);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot start " + name + ": " + ex.getMessage(), ex);
        }
    }

    private void read(final Path log)
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8));
            BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                out.write(line);
                out.newLine();
                out.flush();
                synchronized (lines)
                {
                    lines.add(line);
                    lines.notifyAll();
                }
            }
        }
        catch (final IOException ignored)
        {
            // The process is gone, or the log cannot be written: the lines so far are kept.
        }
        finally
        {
            synchronized (lines)
            {
                lines.notifyAll();
            }
        }
    }

    /** @return its name in messages. */
    String name()
    {
        return name;
    }

    /** @return its process id (the JVM's: {@code ip netns exec} executes it in its place). */
    long pid()
    {
        return process.pid();
    }

    /** @return its output lines so far. */
    List<String> lines()
    {
        synchronized (lines)
        {
            return List.copyOf(lines);
        }
    }

    /**
     * Waits for an output line that matches.
     *
     * @param deadline a {@link System#nanoTime()} by which it must have come.
     * @param state    what the line says it is ({@code listening}, {@code ready}), for the messages.
     * @return the line.
     * @throws IllegalStateException saying so, with its last line, when it exits first or time runs out.
     */
    String awaitLine(final Predicate<String> match, final long deadline, final String state)
    {
        synchronized (lines)
        {
            while (true)
            {
                for (final String line : lines)
                {
                    if (match.test(line))
                    {
                        return line;
                    }
                }
                final long left = deadline - System.nanoTime();
                if (!reader.isAlive())
                {
                    throw new IllegalStateException(name + " exited" + status() + " before it was " + state +
                        lastLine());
                }
                if (left <= 0)
                {
                    throw new IllegalStateException(name + " was not " + state + " in time" + lastLine());
                }
                try
                {
                    lines.wait(Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(left))));
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + name, ex);
                }
            }
        }
    }

    private String status()
    {
        try
        {
            return process.waitFor(1, TimeUnit.SECONDS) ? " with status " + process.exitValue() : "";
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** @return ": " and the last non-empty output line, or nothing. */
    String lastLine()
    {
        final List<String> copy = lines();
        for (int i = copy.size() - 1; i >= 0; i--)
        {
            if (!copy.get(i).isBlank())
            {
                return ": " + copy.get(i).strip();
            }
        }
        return "";
    }

    /** Writes a line to its standard input. */
    void send(final String line)
    {
        try
        {
            input.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            input.flush();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot write to " + name + " (" + ex.getMessage() + ")" + lastLine(),
                ex);
        }
    }

    /** Closes its standard input: the demo's programs take that as the end. */
    void closeInput()
    {
        try
        {
            input.close();
        }
        catch (final IOException ignored)
        {
            // It has gone already.
        }
    }

    /** Asks it to stop: SIGTERM. */
    void terminate()
    {
        process.destroy();
    }

    /**
     * @return its exit status once it has exited and its output is all read, or -1 if it still runs after the
     *         timeout.
     */
    int awaitExit(final Duration timeout)
    {
        try
        {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
            {
                return -1;
            }
            reader.join(TimeUnit.SECONDS.toMillis(2));
            return process.exitValue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Stops it if it still runs: SIGTERM, and SIGKILL if that is not enough within ten seconds. */
    @Override
    public void close()
    {
        if (!process.isAlive())
        {
            return;
        }
        process.destroy();
        if (awaitExit(STOP_TIMEOUT) < 0)
        {
            process.destroyForcibly();
            awaitExit(STOP_TIMEOUT);
        }
    }
}
