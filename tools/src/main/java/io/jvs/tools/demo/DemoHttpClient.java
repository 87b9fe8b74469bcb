package io.jvs.tools.demo;

import com.sun.net.httpserver.HttpServer;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The client of the live demo: the JDK's HttpClient keeping a number of requests in flight against the virtual
 * service for some seconds, each in-flight slot a sequence of fresh connections of a few requests each, so that
 * jvs schedules a stream of new connections. Run inside the client's namespace by {@link LiveDemo}:
 * {@code DemoHttpClient URL SECONDS IN_FLIGHT REQUESTS_PER_CONNECTION}. It warms up against a server of its own,
 * prints {@value #READY}, drives when it reads {@value #GO} on its standard input, then prints its results as
 * {@value #RESULT} lines (see {@link DemoClientResult}) and exits; it exits at once when its standard input closes
 * first.
 */
public final class DemoHttpClient
{
    /** The line it prints when it is ready to drive. */
    static final String READY = "ready";
    /** The line that starts the drive. */
    static final String GO = "go";
    /** What each result line starts with. */
    static final String RESULT = "result ";

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Duration WARM_UP = Duration.ofMillis(1500);
    private static final int WARM_UP_CONNECTIONS = 20;
    private static final int WARM_UP_REQUESTS = 50;

    private final URI uri;
    private final long nanos;
    private final int inFlight;
    private final int perConnection;
    private final AtomicReference<String> firstError = new AtomicReference<>();

    private DemoHttpClient(final URI uri, final long nanos, final int inFlight, final int perConnection)
    {
        this.uri = uri;
        this.nanos = nanos;
        this.inFlight = inFlight;
        this.perConnection = perConnection;
    }

    /** What one in-flight slot did. */
    private static final class Slot
    {
        final Histogram latency = new Histogram(3);
        final Map<String, Long> answers = new TreeMap<>();
        long failed;
        long connections;
    }

    /**
     * @param args the URL, the seconds to drive for, the requests in flight, the requests per connection.
     */
    public static void main(final String[] args) throws IOException, InterruptedException
    {
        if (args.length != 4)
        {
            System.err.println("usage: DemoHttpClient URL SECONDS IN_FLIGHT REQUESTS_PER_CONNECTION");
            System.exit(2);
        }
        final DemoHttpClient client = new DemoHttpClient(URI.create(args[0]),
            Duration.ofMillis((long)(Double.parseDouble(args[1]) * 1000)).toNanos(), Integer.parseInt(args[2]),
            Integer.parseInt(args[3]));
        warmUp();
        System.out.println(READY);
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !line.strip().equals(GO))
        {
            // Waiting for the word.
        }
        if (line == null)
        {
            System.exit(1);
        }
        client.drive().lines().forEach(System.out::println);
        System.out.flush();
        System.exit(0);
    }

    /**
     * Sends requests to an HTTP server of its own on the loopback device for a moment, so that the classes the
     * requests need are loaded and their code compiled before the drive: the latencies measured are then jvs's
     * and the servers', not this JVM's start-up. Nothing goes through jvs.
     */
    private static void warmUp() throws IOException, InterruptedException
    {
        final HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        final byte[] answer = "warm-up\n".getBytes(StandardCharsets.US_ASCII);
        server.createContext("/", exchange ->
        {
            try (exchange)
            {
                exchange.sendResponseHeaders(200, answer.length);
                exchange.getResponseBody().write(answer);
            }
        });
        server.start();
        try
        {
            final URI local = URI.create("http://" + InetAddress.getLoopbackAddress().getHostAddress() + ":" +
                server.getAddress().getPort() + "/");
            final HttpRequest request = HttpRequest.newBuilder(local).timeout(TIMEOUT).GET().build();
            final long end = System.nanoTime() + WARM_UP.toNanos();
            for (int c = 0; c < WARM_UP_CONNECTIONS && System.nanoTime() < end; c++)
            {
                try (HttpClient client = newClient())
                {
                    for (int i = 0; i < WARM_UP_REQUESTS && System.nanoTime() < end; i++)
                    {
                        client.send(request, HttpResponse.BodyHandlers.ofString());
                    }
                }
            }
        }
        finally
        {
            server.stop(0);
        }
    }

    private static HttpClient newClient()
    {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();
    }

    private DemoClientResult drive() throws InterruptedException
    {
        final long start = System.nanoTime();
        final long end = start + nanos;
        final List<Slot> slots = new ArrayList<>();
        final List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < inFlight; i++)
        {
            final Slot slot = new Slot();
            slots.add(slot);
            threads.add(Thread.ofPlatform().name("slot-" + i).start(() -> run(slot, end)));
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        final long elapsed = System.nanoTime() - start;
        final Histogram latency = new Histogram(3);
        final Map<String, Long> answers = new TreeMap<>();
        long failed = 0;
        long connections = 0;
        for (final Slot slot : slots)
        {
            latency.add(slot.latency);
            slot.answers.forEach((name, count) -> answers.merge(name, count, Long::sum));
            failed += slot.failed;
            connections += slot.connections;
        }
        return new DemoClientResult(answers, failed, firstError.get(), connections, elapsed,
            latency.getTotalCount() == 0 ? new long[4] : new long[] {latency.getValueAtPercentile(50),
                latency.getValueAtPercentile(90), latency.getValueAtPercentile(99), latency.getMaxValue()});
    }

    private void run(final Slot slot, final long end)
    {
        final HttpRequest request = HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build();
        while (System.nanoTime() < end)
        {
            // A client of its own: its one pooled connection carries this slot's next few requests, and closing
            // it closes that connection, so the next round is a new connection for jvs to schedule.
            try (HttpClient client = newClient())
            {
                slot.connections++;
                for (int i = 0; i < perConnection && System.nanoTime() < end; i++)
                {
                    final long sent = System.nanoTime();
                    final HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                    final long took = System.nanoTime() - sent;
                    if (response.statusCode() != 200)
                    {
                        fail(slot, "HTTP status " + response.statusCode());
                        break;
                    }
                    slot.latency.recordValue(took);
                    slot.answers.merge(response.body().strip(), 1L, Long::sum);
                }
            }
            catch (final IOException ex)
            {
                fail(slot, ex.getClass().getSimpleName() + (ex.getMessage() == null ? "" : ": " + ex.getMessage()));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void fail(final Slot slot, final String why)
    {
        slot.failed++;
        firstError.compareAndSet(null, why);
    }
}
