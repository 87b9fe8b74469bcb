package io.jvs.forwarder.daemon.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A long-lived IPVS netlink client under the preload library, as keepalived is one: src/test/c/preload-session.c
 * opens one generic netlink socket at its start and keeps it, and runs the commands it is given one at a time
 * ({@code family}, {@code add ADDR PORT}, {@code dump}, {@code send-dump}, {@code recv}, {@code flags}; see its
 * comment), each answered with lines. Killed on {@link #close()}.
 */
public final class PreloadSession implements AutoCloseable
{
    private static final String END = "end";
    private static final long ANSWER_TIMEOUT_S = 30;

    private final Process process;
    private final OutputStream commands;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final StringBuffer errors = new StringBuffer();

    private PreloadSession(final Process process)
    {
        this.process = process;
        this.commands = process.getOutputStream();
        Thread.ofPlatform().daemon().name("preload-session-out").start(() -> pump(process, false));
        Thread.ofPlatform().daemon().name("preload-session-err").start(() -> pump(process, true));
    }

    /**
     * Compiles the client when it is missing or older than its source.
     *
     * @return the program.
     */
    public static Path build() throws Exception
    {
        final Path module = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        final Path source = module.resolve("src/test/c/preload-session.c");
        final Path program = module.resolve("target/preload-session");
        if (!program.toFile().exists() || program.toFile().lastModified() < source.toFile().lastModified())
        {
            final Process compile = new ProcessBuilder("cc", "-O2", "-Wall", "-Wextra", "-Werror", "-o",
                program.toString(), source.toString()).redirectErrorStream(true).start();
            final String output = new String(compile.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(compile.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(compile.exitValue()).as(output).isZero();
        }
        return program;
    }

    /**
     * Starts the client under the library, its socket opened to the control socket, and waits for it to say so.
     *
     * @param library the preload library.
     * @param control the control socket.
     */
    public static PreloadSession start(final Path program, final Path library, final Path control) throws Exception
    {
        final ProcessBuilder builder = new ProcessBuilder(program.toString());
        builder.environment().put("LD_PRELOAD", library.toString());
        builder.environment().put("JVS_CONTROL_SOCKET", control.toString());
        final PreloadSession session = new PreloadSession(builder.start());
        assertThat(session.read()).containsExactly("open");
        return session;
    }

    private void pump(final Process source, final boolean error)
    {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(
            error ? source.getErrorStream() : source.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                if (error)
                {
                    errors.append(line).append('\n');
                }
                else
                {
                    lines.add(line);
                }
            }
        }
        catch (final IOException ignored)
        {
            // The process is gone.
        }
    }

    /** Gives the client a command without waiting for its answer (it may wait for a server's). */
    public void send(final String command) throws IOException
    {
        commands.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        commands.flush();
    }

    /** @return the lines of the answer to the command given last, without its end. */
    public List<String> read() throws InterruptedException
    {
        final List<String> answer = new ArrayList<>();
        while (true)
        {
            final String line = lines.poll(ANSWER_TIMEOUT_S, TimeUnit.SECONDS);
            if (line == null)
            {
                throw new AssertionError("no answer within " + ANSWER_TIMEOUT_S + " s; so far " + answer +
                    "; standard error: " + errors);
            }
            if (line.equals(END))
            {
                return answer;
            }
            answer.add(line);
        }
    }

    /** @return the answer to the command. */
    public List<String> command(final String command) throws Exception
    {
        send(command);
        return read();
    }

    /** @return what the client (the library, that is) wrote on its standard error so far. */
    public String errors()
    {
        return errors.toString();
    }

    /**
     * The client's standard error once it holds {@code expected}: the library writes it before it answers, but the
     * two streams are read by two threads, so the answer may be read first.
     *
     * @return what it wrote so far, as soon as that holds {@code expected}, or after {@link #ANSWER_TIMEOUT_S}.
     */
    public String errorsOnceThey(final String expected) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_TIMEOUT_S);
        while (!errors.toString().contains(expected) && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(10);
        }
        return errors.toString();
    }

    @Override
    public void close()
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
