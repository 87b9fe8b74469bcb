package io.jvs.forwarder.daemon;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The control socket: a request line gets the handler's answer and an empty line; a client that never sends
 * is dropped after the time limit while others are served; an over-long request is refused; the socket file
 * is mode 0660 with the configured group and goes away on close; a running daemon's socket is never taken
 * over, a stale one is.
 */
class ControlServerTest
{
    private static final Function<String, String> ECHO = request -> "answer to [" + request + "]";
    /** The clients' reads: not the common pool, which has one thread on two cores and would queue them. */
    private static final ExecutorService THREADS = Executors.newVirtualThreadPerTaskExecutor();

    @TempDir
    Path dir;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception
    {
        for (int i = open.size() - 1; i >= 0; i--)
        {
            open.get(i).close();
        }
    }

    @Test
    void shouldAnswerARequestLineAndEndTheAnswerWithAnEmptyLine() throws Exception
    {
        final Path path = dir.resolve("run/jvs/control");
        final ControlServer server = open(path, null, request -> switch (request)
        {
            case "status" -> "forwarding\nworkers 2";
            case "reload" -> "reloaded\n";
            default -> ECHO.apply(request);
        });
        assertThat(server.path()).isEqualTo(path);

        assertThat(ask(path, "status\n")).isEqualTo("forwarding\nworkers 2\n\n");
        assertThat(ask(path, "reload\n")).isEqualTo("reloaded\n\n");
        // The line is trimmed, and only the first line is the request.
        assertThat(ask(path, "  spaced out \r\nsecond line\n")).isEqualTo("answer to [spaced out]\n\n");
        assertThat(ask(path, "\n")).isEqualTo("answer to []\n\n");
    }

    @Test
    void shouldTakeARequestThatArrivesInPieces() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, ECHO);
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            write(client, "sta");
            Thread.sleep(50);
            write(client, "tus\n");
            assertThat(readAll(client, 5_000)).isEqualTo("answer to [status]\n\n");
        }
    }

    @Test
    void shouldDropASilentClientAfterTheTimeLimitWhileServingOthers() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, ECHO);
        try (SocketChannel silent = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            final long connected = System.nanoTime();
            final CompletableFuture<String> silentAnswer = CompletableFuture.supplyAsync(() -> readAll(silent, 30_000),
                THREADS);
            for (int i = 0; i < 3; i++)
            {
                final long start = System.nanoTime();
                assertThat(ask(path, "status " + i + "\n")).isEqualTo("answer to [status " + i + "]\n\n");
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("ms for an answer")
                    .isLessThan(ControlServer.REQUEST_TIMEOUT_MS / 2);
            }
            assertThat(silentAnswer).isNotDone();

            final String answer = silentAnswer.get(ControlServer.REQUEST_TIMEOUT_MS + 10_000, TimeUnit.MILLISECONDS);
            final long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - connected);
            assertThat(answer).startsWith("error: no request line within " + ControlServer.REQUEST_TIMEOUT_MS + " ms")
                .endsWith("\n\n");
            assertThat(waitedMs).isBetween(ControlServer.REQUEST_TIMEOUT_MS - 100, ControlServer.REQUEST_TIMEOUT_MS +
                5_000);
        }
    }

    @Test
    void shouldRefuseARequestLongerThanTheLimitAtOnce() throws Exception
    {
        final Path path = dir.resolve("control");
        final List<String> handled = new ArrayList<>();
        open(path, request ->
        {
            handled.add(request);
            return "handled";
        });
        final long start = System.nanoTime();
        final String answer = ask(path, "x".repeat(ControlServer.MAX_REQUEST + 100) + "\n");
        assertThat(answer).startsWith("error:").contains("at most " + ControlServer.MAX_REQUEST + " bytes");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(
            ControlServer.REQUEST_TIMEOUT_MS / 2);
        assertThat(handled).isEmpty();
        // The longest request that fits is taken.
        final String longest = "y".repeat(ControlServer.MAX_REQUEST - 1);
        assertThat(ask(path, longest + "\n")).isEqualTo("handled\n\n");
        assertThat(handled).containsExactly(longest);
    }

    @Test
    void shouldCreateTheSocketWithMode0660AndRemoveItOnClose() throws Exception
    {
        final Path path = dir.resolve("control");
        final ControlServer server = ControlServer.open(path, null, ECHO);
        try
        {
            assertThat(Files.getPosixFilePermissions(path)).isEqualTo(PosixFilePermissions.fromString("rw-rw----"));
            assertThat(Files.readAttributes(path, PosixFileAttributes.class).isOther()).as("a socket").isTrue();
        }
        finally
        {
            server.close();
        }
        assertThat(path).doesNotExist();
        assertThatThrownBy(() -> SocketChannel.open(UnixDomainSocketAddress.of(path))).isInstanceOf(IOException.class);
    }

    @Test
    void shouldGiveTheSocketTheConfiguredGroup() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, "daemon", ECHO);
        assertThat(Files.readAttributes(path, PosixFileAttributes.class).group().getName()).isEqualTo("daemon");
    }

    @Test
    void shouldRefuseAnUnknownGroupAndLeaveNoSocketBehind()
    {
        final Path path = dir.resolve("control");
        assertThatThrownBy(() -> ControlServer.open(path, "no-such-group-jvs", ECHO)).isInstanceOf(IOException.class);
        assertThat(path).doesNotExist();
    }

    @Test
    void shouldRefuseASecondServerOnASocketThatAnswers() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, request -> "first");

        assertThatThrownBy(() -> ControlServer.open(path, null, request -> "second")).isInstanceOf(IOException.class)
            .hasMessageContaining(path.toString()).hasMessageContaining("another jvs daemon");

        assertThat(path).exists();
        assertThat(ask(path, "status\n")).isEqualTo("first\n\n");
    }

    @Test
    void shouldDropAClientThatClosesWithoutARequestWithoutAWarning() throws Exception
    {
        final Path path = dir.resolve("control");
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        DaemonLog.redirect(new PrintStream(log, true, StandardCharsets.UTF_8));
        try
        {
            open(path, null, ECHO);
            // What a second daemon's start does to see whether this one answers.
            SocketChannel.open(UnixDomainSocketAddress.of(path)).close();
            assertThatThrownBy(() -> ControlServer.open(path, null, ECHO)).isInstanceOf(IOException.class);
            Thread.sleep(200);
            assertThat(ask(path, "status\n")).isEqualTo("answer to [status]\n\n");
        }
        finally
        {
            DaemonLog.redirect(System.err);
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain("control client");
    }

    @Test
    void shouldReplaceAStaleSocketThatNoOneListensOn() throws Exception
    {
        final Path path = dir.resolve("control");
        // A killed daemon's socket: bound, then closed without removing the file.
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            dead.bind(UnixDomainSocketAddress.of(path));
        }
        assertThat(path).exists();

        open(path, null, request -> "new daemon");

        assertThat(ask(path, "status\n")).isEqualTo("new daemon\n\n");
    }

    @Test
    void shouldServeManyClientsAtOnce() throws Exception
    {
        final Path path = dir.resolve("control");
        open(path, null, ECHO);
        final List<CompletableFuture<String>> answers = new ArrayList<>();
        for (int i = 0; i < 50; i++)
        {
            final String request = "request " + i;
            answers.add(CompletableFuture.supplyAsync(() -> askUnchecked(path, request + "\n"), THREADS));
        }
        for (int i = 0; i < answers.size(); i++)
        {
            assertThat(answers.get(i).get(30, TimeUnit.SECONDS)).isEqualTo("answer to [request " + i + "]\n\n");
        }
    }

    // -----------------------------------------------------------------------------------------------------

    private ControlServer open(final Path path, final Function<String, String> handler) throws IOException
    {
        return open(path, null, handler);
    }

    private ControlServer open(final Path path, final String group, final Function<String, String> handler)
        throws IOException
    {
        final ControlServer server = ControlServer.open(path, group, handler);
        open.add(server);
        return server;
    }

    private static String ask(final Path path, final String request) throws IOException
    {
        try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path)))
        {
            write(client, request);
            return readAll(client, 10_000);
        }
    }

    private static String askUnchecked(final Path path, final String request)
    {
        try
        {
            return ask(path, request);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static void write(final SocketChannel client, final String text) throws IOException
    {
        final ByteBuffer out = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        while (out.hasRemaining())
        {
            client.write(out);
        }
    }

    /**
     * Reads until the server closes (or resets: it may close with part of an over-long request unread), at most
     * {@code timeoutMs}.
     */
    private static String readAll(final SocketChannel client, final long timeoutMs)
    {
        final StringBuilder text = new StringBuilder();
        final CompletableFuture<Void> done = CompletableFuture.runAsync(() ->
        {
            final ByteBuffer in = ByteBuffer.allocate(8192);
            try
            {
                while (client.read(in) >= 0)
                {
                    in.flip();
                    synchronized (text)
                    {
                        text.append(StandardCharsets.UTF_8.decode(in));
                    }
                    in.clear();
                }
            }
            catch (final IOException ex)
            {
                // Connection reset after the answer: what was read is the answer.
            }
        }, THREADS);
        try
        {
            done.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final Exception ex)
        {
            throw new AssertionError("no whole answer within " + timeoutMs + " ms; so far: " + text, ex);
        }
        synchronized (text)
        {
            return text.toString();
        }
    }
}
