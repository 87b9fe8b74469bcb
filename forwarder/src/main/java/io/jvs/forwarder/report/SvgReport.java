package io.jvs.forwarder.report;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report of {@code tools/jvs replay} as one SVG document that a browser opens by itself: no scripts,
 * fonts, style sheets or images outside it. Three panels, one under the other: each real server's share
 * of its service's connections beside the share its weight asks for (is the scheduler fair?), every
 * server's connections over the trace's time (did it drain, did it spike?), and the latency percentile
 * curve with its table (how long did the balancer hold a packet?).
 * <p>
 * The same content always renders to the same string (no clock, no hash order), so reports can be
 * compared with diff and checked into tests. Empty or degenerate content renders a valid document whose
 * panels say there was nothing to draw; nothing here throws for data.
 */
public final class SvgReport
{
    /** Width of the document in pixels; every panel uses all of it. */
    static final int WIDTH = 960;

    private static final int HEADER_HEIGHT = 64;
    private static final int PANEL_GAP = 16;

    /**
     * One real server of one virtual service: what it got against what its weight asks for.
     *
     * @param service     the virtual service, e.g. "TCP 10.0.0.100:80".
     * @param server      the real server, e.g. "192.168.1.1:80".
     * @param weight      its weight; 0 (quiesced) means it should get nothing.
     * @param connections connections the balancer sent it.
     * @param packets     packets the balancer sent it.
     * @param bytes       bytes the balancer sent it.
     */
    public record ServerShare(String service, String server, int weight, long connections, long packets, long bytes)
    {
    }

    /**
     * A server's connections over time: at timesNs[i] (ns since the epoch, ascending) it held values[i].
     *
     * @param service the virtual service.
     * @param server  the real server.
     * @param timesNs sample times, ascending; only as many as there are values are read.
     * @param values  connections held at each time.
     */
    public record ConnectionSeries(String service, String server, long[] timesNs, long[] values)
    {
    }

    /**
     * The report's content. latency may be null or empty (then that panel says "no samples").
     *
     * @param title     the document's heading, e.g. the trace's file name.
     * @param subtitle  a line under it, e.g. the rules and the replay's options.
     * @param shares    one entry per real server, grouped by service in their order here.
     * @param series    one line per server in panel two, coloured in this order.
     * @param latencyNs per-packet processing latency in nanoseconds, or null.
     */
    public record Content(String title, String subtitle, List<ServerShare> shares, List<ConnectionSeries> series,
        Histogram latencyNs)
    {
    }

    private SvgReport()
    {
    }

    /**
     * @param content what to show; null lists and a null histogram are read as empty.
     * @return the whole SVG document, XML declaration included.
     */
    public static String render(final Content content)
    {
        final SharePanel shares = new SharePanel(content.shares() == null ? List.of() : content.shares());
        final List<SeriesPanel> seriesPanels = seriesPanels(content.series() == null ? List.of() : content.series());
        final LatencyPanel latency = new LatencyPanel(content.latencyNs());
        final int sharesTop = HEADER_HEIGHT;
        int latencyTop = sharesTop + shares.height() + PANEL_GAP;
        final int[] seriesTops = new int[seriesPanels.size()];
        for (int i = 0; i < seriesPanels.size(); i++)
        {
            seriesTops[i] = latencyTop;
            latencyTop += seriesPanels.get(i).height() + PANEL_GAP;
        }
        final int height = latencyTop + latency.height() + PANEL_GAP;

        final SvgBuilder svg = new SvgBuilder();
        svg.raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            .raw("<svg xmlns=\"" + SvgBuilder.NAMESPACE + "\" width=\"" + WIDTH + "\" height=\"" + height +
                "\" viewBox=\"0 0 " + WIDTH + " " + height + "\" font-family=\"sans-serif\" font-size=\"12\">\n")
            .raw(STYLE)
            .rect("background", 0, 0, WIDTH, height, "fill=\"#ffffff\"", null)
            .text("title", 20, 28, "start", content.title())
            .text("subtitle", 20, 50, "start", content.subtitle());
        svg.openGroup(0, sharesTop, "panel shares");
        shares.draw(svg);
        svg.closeGroup();
        for (int i = 0; i < seriesPanels.size(); i++)
        {
            svg.openGroup(0, seriesTops[i], "panel series");
            seriesPanels.get(i).draw(svg);
            svg.closeGroup();
        }
        svg.openGroup(0, latencyTop, "panel latency");
        latency.draw(svg);
        svg.closeGroup().raw("</svg>\n");
        return svg.toString();
    }

    /**
     * One panel of every server's connections, or, with more lines than {@link SeriesPanel#MAX_LINES}, a small
     * panel per service (in the order the services first appear).
     */
    private static List<SeriesPanel> seriesPanels(final List<ConnectionSeries> series)
    {
        if (series.size() <= SeriesPanel.MAX_LINES)
        {
            return List.of(new SeriesPanel(series));
        }
        final Map<String, List<ConnectionSeries>> byService = new LinkedHashMap<>();
        for (final ConnectionSeries one : series)
        {
            if (one != null)
            {
                byService.computeIfAbsent(String.valueOf(one.service()), service -> new ArrayList<>()).add(one);
            }
        }
        final List<SeriesPanel> panels = new ArrayList<>();
        byService.forEach((service, servers) -> panels.add(SeriesPanel.ofService(service, servers)));
        return panels;
    }

    /**
     * Renders the content into a file, replacing it.
     *
     * @param content what to show.
     * @param file    where; written as UTF-8 (the document's declared encoding).
     * @throws IOException if the file cannot be written.
     */
    public static void write(final Content content, final Path file) throws IOException
    {
        Files.writeString(file, render(content), StandardCharsets.UTF_8);
    }

    /** Classes shared by the panels: one place to restyle the whole report. */
    private static final String STYLE = """
        <style>
        .title { font-size: 20px; font-weight: bold; fill: #222222; }
        .subtitle { font-size: 13px; fill: #555555; }
        .heading { font-size: 15px; font-weight: bold; fill: #222222; }
        .service { font-size: 13px; font-weight: bold; fill: #333333; }
        .label, .tick, .legend, .cell { fill: #333333; }
        .tick, .legend { font-size: 11px; }
        .note { fill: #888888; font-style: italic; }
        .axis { stroke: #444444; stroke-width: 1; }
        .grid { stroke: #dddddd; stroke-width: 1; }
        </style>
        """;
}
