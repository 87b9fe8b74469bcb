package io.jvs.tools.demo;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the demo's HTTP client saw, as it prints it ({@link #lines()}) and as the demo reads it back
 * ({@link #parse}): one {@code result NAME VALUE...} line each, ending with {@code result end}.
 *
 * @param answered       requests answered, by the name of the server that answered.
 * @param failed         requests that failed (timed out, refused, reset, a status other than 200).
 * @param firstError     what the first failure was; null when none failed.
 * @param connections    connections opened.
 * @param elapsedNanos   how long the drive took.
 * @param latencyNanos   the request latency's 50th, 90th and 99th percentiles and maximum, in nanoseconds.
 */
record DemoClientResult(Map<String, Long> answered, long failed, String firstError, long connections,
                        long elapsedNanos, long[] latencyNanos)
{
    private static final String PREFIX = DemoHttpClient.RESULT;

    DemoClientResult
    {
        answered = Map.copyOf(answered);
        if (latencyNanos.length != 4)
        {
            throw new IllegalArgumentException("latency: p50, p90, p99 and max, not " + Arrays.toString(latencyNanos));
        }
        latencyNanos = latencyNanos.clone();
    }

    /** @return the requests answered, over all servers. */
    long requests()
    {
        return answered.values().stream().mapToLong(Long::longValue).sum();
    }

    @Override
    public long[] latencyNanos()
    {
        return latencyNanos.clone();
    }

    /** @return the lines the client prints. */
    List<String> lines()
    {
        final List<String> lines = new ArrayList<>();
        new TreeMap<>(answered).forEach((name, count) -> lines.add(PREFIX + "answered " + name + " " + count));
        lines.add(PREFIX + "failed " + failed);
        if (firstError != null)
        {
            lines.add(PREFIX + "error " + firstError.replace('\n', ' '));
        }
        lines.add(PREFIX + "connections " + connections);
        lines.add(PREFIX + "elapsed-ns " + elapsedNanos);
        lines.add(PREFIX + "latency-ns " + latencyNanos[0] + " " + latencyNanos[1] + " " + latencyNanos[2] + " " +
            latencyNanos[3]);
        lines.add(PREFIX + "end");
        return lines;
    }

    /**
     * Reads the result lines out of the client's output (other lines, a JVM warning say, are skipped).
     *
     * @throws IllegalArgumentException when the lines are incomplete or malformed.
     */
    static DemoClientResult parse(final List<String> output)
    {
        final Map<String, Long> answered = new TreeMap<>();
        long failed = -1;
        String error = null;
        long connections = -1;
        long elapsed = -1;
        long[] latency = null;
        boolean end = false;
        for (final String line : output)
        {
            if (!line.startsWith(PREFIX))
            {
                continue;
            }
            final String[] words = line.substring(PREFIX.length()).split(" ");
            try
            {
                switch (words[0])
                {
                    case "answered" -> answered.put(words[1], Long.parseLong(words[2]));
                    case "failed" -> failed = Long.parseLong(words[1]);
                    case "error" -> error = line.substring(PREFIX.length() + "error ".length());
                    case "connections" -> connections = Long.parseLong(words[1]);
                    case "elapsed-ns" -> elapsed = Long.parseLong(words[1]);
                    case "latency-ns" -> latency = new long[] {Long.parseLong(words[1]), Long.parseLong(words[2]),
                        Long.parseLong(words[3]), Long.parseLong(words[4])};
                    case "end" -> end = true;
                    default -> throw new IllegalArgumentException("the client's result has an unknown line: " + line);
                }
            }
            catch (final ArrayIndexOutOfBoundsException | NumberFormatException ex)
            {
                throw new IllegalArgumentException("the client's result has a malformed line: " + line, ex);
            }
        }
        if (!end || failed < 0 || connections < 0 || elapsed < 0 || latency == null)
        {
            throw new IllegalArgumentException("the client's result is incomplete");
        }
        return new DemoClientResult(answered, failed, error, connections, elapsed, latency);
    }
}
