package io.jvs.forwarder.daemon.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A jvs daemon started as a child process inside a namespace ({@code ip netns exec NS java ... Daemon --config
 * FILE}) with the test JVM's own class path, as an operator would run it; its log lines are collected. Killed on
 * {@link #close()} if still alive, so a failing test leaves no daemon (and, with it, no XDP program) behind.
 */
public final class DaemonProcess implements AutoCloseable
{
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final Process process;
    private final Path control;
    private final List<String> log = new ArrayList<>();
    private final Thread reader;

    private DaemonProcess(final Process process, final Path control)
    {
        this.process = process;
        this.control = control;
        this.reader = Thread.ofPlatform().daemon().name("daemon-log").start(this::readLog);
    }

    /**
     * Writes the config (its {@code control} statement is added), starts the daemon and waits for its ready line.
     *
     * @param directory where to put the config and the control socket.
     * @param config    the statements, without {@code control}.
     * @throws IllegalStateException with the log when it exits or is not ready in time.
     */
    public static DaemonProcess start(final String namespace, final Path directory, final String config)
    {
        final DaemonProcess daemon = launch(namespace, directory, config);
        daemon.awaitReady();
        return daemon;
    }

    /** As {@link #start}, the daemon started under {@code nohup}: with SIGHUP ignored, as it inherits it then. */
    public static DaemonProcess startUnderNohup(final String namespace, final Path directory, final String config)
    {
        final DaemonProcess daemon = launch(namespace, directory, config, List.of("nohup"));
        daemon.awaitReady();
        return daemon;
    }

    /** Starts it without waiting (for tests of refusals). */
    public static DaemonProcess launch(final String namespace, final Path directory, final String config)
    {
        return launch(namespace, directory, config, List.of());
    }

    private static DaemonProcess launch(final String namespace, final Path directory, final String config,
        final List<String> wrapper)
    {
        try
        {
            final Path control = directory.resolve("jvs.sock");
            final Path file = directory.resolve("jvs.conf");
            Files.writeString(file, "control " + control + "\n" + config);
            final List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
            command.addAll(wrapper);
            command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-XX:+UseParallelGC", "-Xmx1g", "-cp", System.getProperty("java.class.path"),
                "io.jvs.forwarder.daemon.Daemon", "--config", file.toString()));
            final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            return new DaemonProcess(process, control);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot start the daemon", ex);
        }
    }

    /** Rewrites the config (a reload reads it on SIGHUP). */
    public void rewrite(final Path directory, final String config) throws IOException
    {
        Files.writeString(directory.resolve("jvs.conf"), "control " + control + "\n" + config);
    }

    private void readLog()
    {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = lines.readLine()) != null)
            {
                synchronized (log)
                {
                    log.add(line);
                    log.notifyAll();
                }
            }
        }
        catch (final IOException ignored)
        {
            // The process is gone.
        }
    }

    private void awaitReady()
    {
        final long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        synchronized (log)
        {
            while (log.stream().noneMatch(line -> line.contains(" info ready: ")))
            {
                final long left = deadline - System.nanoTime();
                if (left <= 0 || !process.isAlive() && !reader.isAlive())
                {
                    close();
                    throw new IllegalStateException("the daemon did not get ready: " + String.join("\n", log));
                }
                try
                {
                    log.wait(Math.max(1, Math.min(200, TimeUnit.NANOSECONDS.toMillis(left))));
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", ex);
                }
            }
        }
    }

    /** @return the log lines so far. */
    public List<String> log()
    {
        synchronized (log)
        {
            return List.copyOf(log);
        }
    }

    /** @return the control socket's answer to one request. */
    public String request(final String request)
    {
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX))
        {
            channel.connect(UnixDomainSocketAddress.of(control));
            channel.write(ByteBuffer.wrap((request + "\n").getBytes(StandardCharsets.UTF_8)));
            final ByteBuffer in = ByteBuffer.allocate(1 << 20);
            while (channel.read(in) >= 0)
            {
                if (in.position() >= 2 && in.get(in.position() - 1) == '\n' && in.get(in.position() - 2) == '\n')
                {
                    break;
                }
            }
            return new String(in.array(), 0, in.position(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("control socket " + control + ": " + ex.getMessage() + "\n" +
                String.join("\n", log()), ex);
        }
    }

    /** @return the status counters by name. */
    public Map<String, Long> status()
    {
        final Map<String, Long> values = new HashMap<>();
        for (final String line : request("status").split("\n"))
        {
            final int space = line.lastIndexOf(' ');
            if (space > 0)
            {
                values.put(line.substring(0, space), Long.parseLong(line.substring(space + 1)));
            }
        }
        return values;
    }

    public long pid()
    {
        return process.pid();
    }

    public Path control()
    {
        return control;
    }

    /** Sends a signal by name (HUP, TERM, KILL). */
    public void signal(final String name)
    {
        try
        {
            new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("kill -" + name, ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the exit status, waiting at most the given time; -1 if it is still running. */
    public int awaitExit(final Duration timeout)
    {
        try
        {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS))
            {
                reader.join(2000);
                return process.exitValue();
            }
            return -1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Waits for a log line containing the text. */
    public String awaitLog(final String text, final Duration timeout)
    {
        final long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (log)
        {
            while (true)
            {
                for (final String line : log)
                {
                    if (line.contains(text))
                    {
                        return line;
                    }
                }
                final long left = deadline - System.nanoTime();
                if (left <= 0)
                {
                    throw new IllegalStateException("no log line with \"" + text + "\": " + String.join("\n", log));
                }
                try
                {
                    log.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", ex);
                }
            }
        }
    }

    @Override
    public void close()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
            try
            {
                process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
