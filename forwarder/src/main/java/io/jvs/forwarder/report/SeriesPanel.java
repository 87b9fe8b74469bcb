package io.jvs.forwarder.report;

import io.jvs.forwarder.report.SvgReport.ConnectionSeries;

import java.util.ArrayList;
import java.util.List;

/**
 * Panel two: the connections each real server held over the trace, one line per server on a shared time
 * axis (seconds from the earliest sample of any server) and a shared connection axis from 0, so a server
 * that drained, lagged or spiked stands out against its neighbours. Long series are thinned by
 * {@link Downsampler}, keeping their peaks; the legend on the right names the lines in their order.
 * <p>
 * With more lines than the palette tells apart, {@link SvgReport} draws one small panel per service
 * instead ({@link #ofService}), its legend naming the servers alone.
 */
final class SeriesPanel
{
    static final double PLOT_LEFT = 70;
    static final double PLOT_TOP = 50;
    static final double PLOT_WIDTH = 620;
    static final double PLOT_HEIGHT = 220;
    /** The plot's height in a panel of one service's servers, several of which stack up. */
    static final double SMALL_PLOT_HEIGHT = 110;
    /** Lines one panel draws before the report splits it by service: the palette's colours. */
    static final int MAX_LINES = 10;

    private static final double LEGEND_LEFT = PLOT_LEFT + PLOT_WIDTH + 24;
    private static final double LEGEND_ROW = 16;
    private static final int LEGEND_CHARS = 40;
    private static final double AXIS_ROOM = 44;
    private static final double NANOS_PER_SECOND = 1e9;

    private final List<ConnectionSeries> series = new ArrayList<>();
    private final long startNs;
    private final Ticks time;
    private final Ticks connections;
    private final int height;
    private final String heading;
    private final boolean serviceInLegend;
    private final double plotHeight;

    SeriesPanel(final List<ConnectionSeries> all)
    {
        this(all, "Connections per real server over time", true, PLOT_HEIGHT);
    }

    /**
     * @param service the service's name, for the heading.
     * @param servers its servers' series.
     * @return a small panel of one service's servers, the legend naming the servers alone.
     */
    static SeriesPanel ofService(final String service, final List<ConnectionSeries> servers)
    {
        return new SeriesPanel(servers, "Connections per real server over time: " + service, false,
            SMALL_PLOT_HEIGHT);
    }

    private SeriesPanel(final List<ConnectionSeries> all, final String heading, final boolean serviceInLegend,
        final double plotHeight)
    {
        this.heading = heading;
        this.serviceInLegend = serviceInLegend;
        this.plotHeight = plotHeight;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        long most = 0;
        for (final ConnectionSeries one : all)
        {
            if (one == null)
            {
                continue;
            }
            series.add(one);
            final int count = length(one);
            if (count > 0)
            {
                first = Math.min(first, one.timesNs()[0]);
                last = Math.max(last, one.timesNs()[count - 1]);
                for (int i = 0; i < count; i++)
                {
                    most = Math.max(most, one.values()[i]);
                }
            }
        }
        this.startNs = first == Long.MAX_VALUE ? 0 : first;
        this.time = Ticks.upTo(last > first ? (last - first) / NANOS_PER_SECOND : 0, 8, false);
        this.connections = Ticks.upTo(most, 5, true);
        final double legend = PLOT_TOP + series.size() * LEGEND_ROW + 8;
        this.height = (int)Math.ceil(Math.max(PLOT_TOP + plotHeight + AXIS_ROOM, legend));
    }

    /** Samples readable from both arrays of a series: a null array or a shorter one limits it. */
    private static int length(final ConnectionSeries one)
    {
        return one.timesNs() == null || one.values() == null ? 0 : Math.min(one.timesNs().length,
            one.values().length);
    }

    int height()
    {
        return height;
    }

    void draw(final SvgBuilder svg)
    {
        svg.text("heading", 20, 20, "start", heading);
        drawAxes(svg);
        if (series.stream().allMatch(one -> length(one) == 0))
        {
            svg.text("note", PLOT_LEFT + PLOT_WIDTH / 2, PLOT_TOP + plotHeight / 2, "middle",
                "no data: no connection samples");
        }
        else if (series.stream().allMatch(one -> length(one) <= 1))
        {
            svg.text("note", PLOT_LEFT + PLOT_WIDTH / 2, PLOT_TOP + plotHeight / 2, "middle",
                "one sample only: the trace is shorter than the sampling period");
        }
        for (int i = 0; i < series.size(); i++)
        {
            final ConnectionSeries one = series.get(i);
            final String name = String.valueOf(one.service()) + " / " + one.server();
            final String label = serviceInLegend ? name : String.valueOf(one.server());
            final String colour = SvgBuilder.colour(i);
            drawLine(svg, one, name, colour);
            final double y = PLOT_TOP + i * LEGEND_ROW;
            svg.rect("key", LEGEND_LEFT, y + 2, 14, 3, "fill=\"" + colour + "\"", null)
                .text("legend", LEGEND_LEFT + 20, y + 8, "start", fit(label));
        }
    }

    private void drawAxes(final SvgBuilder svg)
    {
        final double bottom = PLOT_TOP + plotHeight;
        for (int i = 0; i < connections.count(); i++)
        {
            final double y = y(connections.value(i));
            svg.line("grid", PLOT_LEFT, y, PLOT_LEFT + PLOT_WIDTH, y)
                .text("tick", PLOT_LEFT - 6, y + 4, "end", connections.label(connections.value(i)));
        }
        for (int i = 0; i < time.count(); i++)
        {
            final double x = PLOT_LEFT + PLOT_WIDTH * time.value(i) / time.max();
            svg.line("axis", x, bottom, x, bottom + 4)
                .text("tick", x, bottom + 16, "middle", time.label(time.value(i)) + " s");
        }
        svg.line("axis", PLOT_LEFT, PLOT_TOP, PLOT_LEFT, bottom)
            .line("axis", PLOT_LEFT, bottom, PLOT_LEFT + PLOT_WIDTH, bottom)
            .text("label", PLOT_LEFT + PLOT_WIDTH / 2, bottom + 34, "middle", "time since the first sample (s)")
            .text("label", PLOT_LEFT, PLOT_TOP - 12, "middle", "connections");
    }

    private void drawLine(final SvgBuilder svg, final ConnectionSeries one, final String name, final String colour)
    {
        final int count = length(one);
        final int[] kept = Downsampler.keep(one.timesNs(), one.values(), count);
        final double[] xy = new double[2 * kept.length];
        for (int i = 0; i < kept.length; i++)
        {
            final double seconds = (one.timesNs()[kept[i]] - startNs) / NANOS_PER_SECOND;
            xy[2 * i] = PLOT_LEFT + PLOT_WIDTH * Math.clamp(seconds / time.max(), 0.0, 1.0);
            xy[2 * i + 1] = y(one.values()[kept[i]]);
        }
        svg.polyline("series", xy, kept.length, colour, name + (count == kept.length ? "" :
            SvgBuilder.format(" (%d of %d samples drawn)", kept.length, count)));
    }

    /** The y of a number of connections, clamped to the plot (negative counts are not drawn below it). */
    private double y(final double value)
    {
        return PLOT_TOP + plotHeight * (1 - Math.clamp(value / connections.max(), 0.0, 1.0));
    }

    /** Cut at the end, as a reader expects of a cut label; the whole name stays in the line's tooltip. */
    private static String fit(final String name)
    {
        return name.length() <= LEGEND_CHARS ? name : name.substring(0, LEGEND_CHARS - 1) + "…";
    }
}
