package io.jvs.tools.demo;

import java.util.List;
import java.util.Locale;

/**
 * The live demo's report: each real server's connections and share against its weight and the requests it
 * answered, then the packets per second through jvs and the requests' latency as the client saw it.
 */
final class LiveReport
{
    private LiveReport()
    {
    }

    /**
     * A real server's line.
     *
     * @param name        its name ({@code rs1}), which its HTTP server answers with.
     * @param address     its address and port, as the daemon's status names it.
     * @param weight      its weight.
     * @param connections the connections jvs gave it during the drive (the daemon's count).
     * @param requests    the requests it answered (the client's count).
     */
    record Server(String name, String address, long weight, long connections, long requests)
    {
    }

    /**
     * @param servers the real servers, in order.
     * @param frames  the frames jvs took during the drive (both directions).
     * @param dropped the frames it dropped.
     * @param seconds how long the drive took, between the two status readings.
     * @param client  what the client saw.
     * @param packetLatency jvs's own time per packet (receive to transmit) since it started, p50, p90, p99, p99.9
     *                      and max in ns, from its status.
     * @return the report, lines ended by a newline.
     */
    static String format(final List<Server> servers, final long frames, final long dropped, final double seconds,
        final DemoClientResult client, final long[] packetLatency)
    {
        final long weights = servers.stream().mapToLong(Server::weight).sum();
        final long connections = servers.stream().mapToLong(Server::connections).sum();
        final long requests = servers.stream().mapToLong(Server::requests).sum();
        final int addressWidth = Math.max("address".length(),
            servers.stream().mapToInt(server -> server.address().length()).max().orElse(0));
        final String row = "%-6s  %-" + addressWidth + "s  %6s  %11s  %7s  %12s  %8s%n";
        final StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, row, "server", "address", "weight", "connections", "share",
            "weight share", "requests"));
        for (final Server server : servers)
        {
            out.append(String.format(Locale.ROOT, row, server.name(), server.address(), server.weight(),
                server.connections(), percent(server.connections(), connections), percent(server.weight(), weights),
                server.requests()));
        }
        out.append(String.format(Locale.ROOT, row, "all", "", weights, connections, percent(connections, connections),
            percent(weights, weights), requests));
        out.append('\n');
        out.append(String.format(Locale.ROOT, "through jvs: %d packets in %.2f s, %.0f packets/s (both directions" +
            "), %d dropped%n", frames, seconds, seconds > 0 ? frames / seconds : 0.0, dropped));
        out.append(String.format(Locale.ROOT, "time per packet inside jvs (receive to transmit): p50 %s, p90 %s, p99 %s, " +
            "p99.9 %s, max %s%n", micros(packetLatency[0]), micros(packetLatency[1]), micros(packetLatency[2]),
            micros(packetLatency[3]), micros(packetLatency[4])));
        final long[] latency = client.latencyNanos();
        out.append(String.format(Locale.ROOT, "request latency as the client measured it: p50 %s, p90 %s, p99 %s, " +
            "max %s%n", millis(latency[0]), millis(latency[1]), millis(latency[2]), millis(latency[3])));
        out.append("  (an HTTP request's round trip: the client's and the server's JVMs, their TCP stacks, and jvs)\n");
        out.append(String.format(Locale.ROOT, "%d requests answered, %d failed%s, over %d connections from the " +
            "client%n", client.requests(), client.failed(),
            client.firstError() == null ? "" : " (the first: " + client.firstError() + ")", client.connections()));
        return out.toString();
    }

    /** @return {@code part} as a percentage of {@code whole}, "12.3 %", or "-" of nothing. */
    static String percent(final long part, final long whole)
    {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.1f %%", 100.0 * part / whole);
    }

    /** @return nanoseconds as microseconds: "3.2 µs", "412 µs". */
    static String micros(final long nanos)
    {
        final double us = nanos / 1e3;
        return us < 10 ? String.format(Locale.ROOT, "%.1f µs", us) : String.format(Locale.ROOT, "%.0f µs", us);
    }

    /** @return nanoseconds as milliseconds with three significant digits or more: "0.412 ms", "12.3 ms". */
    static String millis(final long nanos)
    {
        final double ms = nanos / 1e6;
        final String digits = ms < 1 ? "%.3f" : ms < 10 ? "%.2f" : ms < 100 ? "%.1f" : "%.0f";
        return String.format(Locale.ROOT, digits + " ms", ms);
    }
}
