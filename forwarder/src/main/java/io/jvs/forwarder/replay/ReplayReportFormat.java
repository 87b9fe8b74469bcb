package io.jvs.forwarder.replay;

import io.jvs.forwarder.report.Counts;
import org.HdrHistogram.Histogram;

import java.util.Locale;
import java.util.Map;

/**
 * A {@link ReplayReport} as a table for people and as JSON for scripts. The JSON keys are stable: scripts
 * and CI checks read them.
 */
public final class ReplayReportFormat
{
    private static final double[] PERCENTILES = {50, 90, 99, 99.9};
    /**
     * The locale the report's numbers are formatted in: none, so plain digits, a decimal point and a minus sign, as
     * Locale.ROOT gives them, without {@link java.util.Formatter} loading a locale's number symbols, which it does
     * for any locale at a run's first number with a fraction (milliseconds at the end of every replay).
     */
    static final Locale NUMBERS = null;

    private ReplayReportFormat()
    {
    }

    /**
     * @return the report as a readable table.
     */
    public static String table(final ReplayReport r)
    {
        final StringBuilder out = new StringBuilder(2048);
        final double spanSeconds = r.firstTimestampNs == Long.MIN_VALUE ? 0 :
            (r.lastTimestampNs - r.firstTimestampNs) / 1e9;
        out.append(String.format(NUMBERS, "jvs replay: %s (%s, %s", r.options.input(), r.format,
            Counts.of(r.records, "record")));
        r.linkTypes().forEach((type, count) -> out.append(", ").append(type).append(' ').append(count));
        out.append(String.format(NUMBERS, "), %s + %.3f s%n", r.timestamp(r.firstTimestampNs), spanSeconds));
        out.append("rules: ").append(r.rulesSource()).append(", config: ").append(r.config.source())
            .append(", workers: ").append(r.options.workers())
            .append(r.options.filter() == null ? "" : ", filter: " + r.options.filter()).append('\n');
        out.append('\n');
        out.append(String.format(NUMBERS, "frames in %d = forwarded %d + passed %d + dropped %d%n",
            r.framesIn(), r.forwarded(), r.passed(), r.dropped()));
        // The services' packets below count the frames scheduled or matched to a connection on the way to a
        // server; the rest of what was forwarded is said here, so the figures add up.
        long servicePackets = 0;
        for (final ReplayReport.ServiceLine service : r.services())
        {
            servicePackets += service.packets();
        }
        final long other = r.forwarded() - servicePackets - r.fragmentsFollowed() - r.icmpAnswers();
        out.append(String.format(NUMBERS, "  forwarded %d = the services' packets %d + later fragments %d%n" +
                "    + ICMP errors jvs answered with %d + other %d (relayed ICMP errors, servers' replies)%n",
            r.forwarded(), servicePackets, r.fragmentsFollowed(), r.icmpAnswers(), other));
        final Map<String, Long> drops = r.dropsByReason();
        if (!drops.isEmpty())
        {
            out.append("  drops by reason:");
            drops.forEach((reason, count) -> out.append(' ').append(reason).append(' ').append(count));
            out.append('\n');
        }
        if (r.fragmented > 0)
        {
            out.append(String.format(NUMBERS, "  sent in fragments: %d packets longer than their port's MTU " +
                "without DF, as %d fragments%n", r.fragmented, r.fragmentRecords));
        }
        out.append(String.format(NUMBERS, "  pipeline paths: fast loop %d (established connections, parser " +
            "verdicts), general path %d%n", r.fastPathFrames(), r.generalPathFrames()));
        out.append(String.format(NUMBERS, "records not replayed: filtered out %d, sent by the capturing host %d;" +
            " replayed as captured: snap-truncated %d, out of order %d (on the clock of the record before); %s%n",
            r.filteredOut, r.outgoingSkipped, r.snapTruncated, r.outOfOrder,
            r.endDetail == null ? "read to the end" : "stopped early: " + r.endDetail));
        out.append('\n');
        out.append(String.format(NUMBERS, "%-44s %-6s %6s %10s %7s %7s %12s %14s%n", "service / real server",
            "method", "weight", "conns", "share%", "weight%", "packets", "bytes"));
        for (final ReplayReport.ServiceLine service : r.services())
        {
            out.append(String.format(NUMBERS, "%-44s %-6s %6s %10d %7s %7s %12d %14d%n",
                service.service() + " " + service.scheduler(), "", "", service.connections(), "", "",
                service.packets(), service.bytes()));
            for (final ReplayReport.ServerLine server : service.servers())
            {
                out.append(String.format(NUMBERS, "  -> %-40s %-6s %6d %10d %7.1f %7.1f %12d %14d%n",
                    server.server(), server.method(), server.weight(), server.connections(), server.share(),
                    server.weightShare(), server.packets(), server.bytes()));
            }
        }
        out.append('\n');
        final Histogram latency = r.pipelineNs();
        out.append("pipeline time per frame:");
        if (latency.getTotalCount() == 0)
        {
            out.append(" no frames");
        }
        else
        {
            for (final double p : PERCENTILES)
            {
                out.append(String.format(NUMBERS, " p%s %s", trim(p), duration(latency.getValueAtPercentile(p))));
            }
            out.append(" max ").append(duration(latency.getMaxValue()));
        }
        out.append('\n');
        out.append(String.format(NUMBERS, "rate: %d frames in %.3f s = %.2f M frames/s (pipeline alone %.2f M)%n",
            r.framesIn(), r.wallSeconds(), r.framesPerSecond() / 1e6, r.pipelineFramesPerSecond() / 1e6));
        if (r.options.output() != null)
        {
            out.append(String.format(NUMBERS, "wrote %s to %s%n", Counts.of(r.written, "frame"),
                r.options.output()));
        }
        if (r.options.decisions() != null)
        {
            out.append(String.format(NUMBERS, "wrote %s to %s%n", Counts.of(r.decisionLines, "decision"),
                r.options.decisions()));
        }
        return out.toString();
    }

    /**
     * @return the report as one JSON object.
     */
    public static String json(final ReplayReport r)
    {
        final StringBuilder out = new StringBuilder(4096);
        out.append("{\n");
        out.append("  \"input\": {\"file\": ").append(quote(r.options.input().toString()))
            .append(", \"format\": ").append(quote(r.format))
            .append(", \"records\": ").append(r.records)
            .append(", \"link_types\": {");
        appendCounts(out, r.linkTypes());
        out.append("}, \"first_timestamp\": ").append(quote(r.timestamp(r.firstTimestampNs)))
            .append(", \"last_timestamp\": ").append(quote(r.timestamp(r.lastTimestampNs)))
            .append(", \"snap_truncated\": ").append(r.snapTruncated)
            .append(", \"out_of_order\": ").append(r.outOfOrder)
            .append(", \"filtered_out\": ").append(r.filteredOut)
            .append(", \"outgoing_skipped\": ").append(r.outgoingSkipped)
            .append(", \"end\": ").append(quote(r.endReason))
            .append(", \"end_detail\": ").append(r.endDetail == null ? "null" : quote(r.endDetail))
            .append("},\n");
        out.append("  \"rules\": ").append(quote(r.rulesSource().toString()))
            .append(", \"config\": ").append(quote(r.config.source()))
            .append(", \"filter\": ").append(r.options.filter() == null ? "null" : quote(r.options.filter()))
            .append(", \"workers\": ").append(r.options.workers()).append(",\n");
        out.append("  \"frames\": {\"in\": ").append(r.framesIn())
            .append(", \"forwarded\": ").append(r.forwarded())
            .append(", \"passed\": ").append(r.passed())
            .append(", \"dropped\": ").append(r.dropped())
            .append(", \"icmp_answers\": ").append(r.icmpAnswers())
            .append(", \"connections\": ").append(r.connections())
            .append(", \"fast_path\": ").append(r.fastPathFrames())
            .append(", \"general_path\": ").append(r.generalPathFrames())
            .append(", \"fragmented\": ").append(r.fragmented)
            .append(", \"fragments\": ").append(r.fragmentRecords)
            .append(", \"drops\": {");
        appendCounts(out, r.dropsByReason());
        out.append("}},\n");
        out.append("  \"services\": [");
        boolean firstService = true;
        for (final ReplayReport.ServiceLine service : r.services())
        {
            out.append(firstService ? "\n" : ",\n");
            firstService = false;
            out.append("    {\"service\": ").append(quote(service.service()))
                .append(", \"scheduler\": ").append(quote(service.scheduler()))
                .append(", \"connections\": ").append(service.connections())
                .append(", \"packets\": ").append(service.packets())
                .append(", \"bytes\": ").append(service.bytes())
                .append(", \"servers\": [");
            boolean firstServer = true;
            for (final ReplayReport.ServerLine server : service.servers())
            {
                out.append(firstServer ? "\n" : ",\n");
                firstServer = false;
                out.append("      {\"server\": ").append(quote(server.server()))
                    .append(", \"method\": ").append(quote(server.method()))
                    .append(", \"weight\": ").append(server.weight())
                    .append(", \"connections\": ").append(server.connections())
                    .append(", \"packets\": ").append(server.packets())
                    .append(", \"bytes\": ").append(server.bytes())
                    .append(", \"share_percent\": ").append(ReplayReport.percent(server.share()))
                    .append(", \"weight_percent\": ").append(ReplayReport.percent(server.weightShare()))
                    .append('}');
            }
            out.append(service.servers().isEmpty() ? "]}" : "\n    ]}");
        }
        out.append(firstService ? "],\n" : "\n  ],\n");
        final Histogram latency = r.pipelineNs();
        out.append("  \"pipeline_ns_per_frame\": {\"count\": ").append(latency.getTotalCount());
        for (final double p : PERCENTILES)
        {
            out.append(", \"p").append(trim(p).replace('.', '_')).append("\": ")
                .append(latency.getTotalCount() == 0 ? 0 : latency.getValueAtPercentile(p));
        }
        out.append(", \"max\": ").append(latency.getMaxValue()).append("},\n");
        out.append(String.format(NUMBERS, "  \"rate\": {\"wall_seconds\": %.6f, \"frames_per_second\": %.0f, " +
                "\"pipeline_frames_per_second\": %.0f},%n", r.wallSeconds(), r.framesPerSecond(),
            r.pipelineFramesPerSecond()));
        out.append("  \"output\": {\"file\": ")
            .append(r.options.output() == null ? "null" : quote(r.options.output().toString()))
            .append(", \"frames\": ").append(r.written)
            .append(", \"decisions\": ")
            .append(r.options.decisions() == null ? "null" : quote(r.options.decisions().toString()))
            .append(", \"decision_lines\": ").append(r.decisionLines).append("}\n");
        out.append("}\n");
        return out.toString();
    }

    private static void appendCounts(final StringBuilder out, final Map<String, Long> counts)
    {
        boolean first = true;
        for (final Map.Entry<String, Long> entry : counts.entrySet())
        {
            out.append(first ? "" : ", ").append(quote(entry.getKey())).append(": ").append(entry.getValue());
            first = false;
        }
    }

    static String quote(final String text)
    {
        final StringBuilder out = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default ->
                {
                    if (c < 0x20)
                    {
                        out.append(String.format(NUMBERS, "\\u%04x", (int)c));
                    }
                    else
                    {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private static String trim(final double percentile)
    {
        return percentile == Math.rint(percentile) ? Long.toString((long)percentile) : Double.toString(percentile);
    }

    static String duration(final long ns)
    {
        if (ns < 10_000)
        {
            return ns + " ns";
        }
        if (ns < 10_000_000)
        {
            return String.format(NUMBERS, "%.1f us", ns / 1e3);
        }
        return String.format(NUMBERS, "%.1f ms", ns / 1e6);
    }
}
