package io.jvs.tools.demo;

import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
 * {@code DemoHttpClient URL SECONDS IN_FLIGHT REQUESTS_PER_CONNECTION}. It prints {@value #READY} when loaded,
 * drives when it reads {@value #GO} on its standard input, then prints its results as {@value #RESULT} lines
 * (see {@link DemoClientResult}) and exits; it exits at once when its standard input closes first.
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
        // Load the HTTP client's classes before the drive, not during it.
        newClient().close();
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
