package io.jvs.forwarder.report;

import org.HdrHistogram.Histogram;

/**
 * Panel three: the pipeline's time per frame by percentile, as HdrHistogram's plotter draws it,
 * percentiles spread on a log scale of 1 / (1 - p) so each "nine" (90 %, 99 %, 99.9 %...) gets the same
 * width and the tail, where a balancer's trouble shows, is not squeezed into the right edge. The time is on
 * a log scale too, a decade per grid line: a maximum a thousand times the median would otherwise flatten
 * p50 to p99.9 against the bottom. A table beside it gives the figures people quote: p50, p90, p99, p99.9,
 * max and the sample count, each in the unit that suits it.
 * <p>
 * The curve is sampled at evenly spaced points of that log scale up to the last percentile the count
 * can tell apart (1 - 1/count, at most 99.999 %), then steps up to the maximum.
 */
final class LatencyPanel
{
    static final double PLOT_LEFT = 80;
    static final double PLOT_TOP = 50;
    static final double PLOT_WIDTH = 560;
    static final double PLOT_HEIGHT = 220;

    /** Nines on the percentile axis: 0 %, 90 % ... 99.999 %. */
    private static final int DECADES = 5;
    private static final int SAMPLES_PER_DECADE = 40;
    private static final String[] PERCENTILE_LABELS = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
    private static final double TABLE_LEFT = PLOT_LEFT + PLOT_WIDTH + 50;
    private static final double TABLE_ROW = 18;
    private static final double AXIS_ROOM = 44;

    private final Histogram histogram;
    /** The time axis runs from 10^lowDecade to 10^highDecade nanoseconds. */
    private final int lowDecade;
    private final int highDecade;

    LatencyPanel(final Histogram histogram)
    {
        this.histogram = histogram == null || histogram.getTotalCount() == 0 ? null : histogram;
        if (this.histogram == null)
        {
            lowDecade = 0;
            highDecade = 3;
        }
        else
        {
            lowDecade = (int)Math.floor(Math.log10(Math.max(1, this.histogram.getMinValue())));
            highDecade = Math.max(lowDecade + 1,
                (int)Math.ceil(Math.log10(Math.max(1, this.histogram.getMaxValue())) - 1e-9));
        }
    }

    int height()
    {
        return (int)(PLOT_TOP + PLOT_HEIGHT + AXIS_ROOM);
    }

    void draw(final SvgBuilder svg)
    {
        svg.text("heading", 20, 20, "start", "Pipeline time per frame, by percentile");
        drawAxes(svg);
        if (histogram == null)
        {
            svg.text("note", PLOT_LEFT + PLOT_WIDTH / 2, PLOT_TOP + PLOT_HEIGHT / 2, "middle",
                "no samples");
            return;
        }
        drawCurve(svg);
        drawTable(svg);
    }

    private void drawAxes(final SvgBuilder svg)
    {
        final double bottom = PLOT_TOP + PLOT_HEIGHT;
        for (int decade = lowDecade; decade <= highDecade; decade++)
        {
            final double y = y(Math.pow(10, decade));
            svg.line("grid", PLOT_LEFT, y, PLOT_LEFT + PLOT_WIDTH, y)
                .text("tick", PLOT_LEFT - 6, y + 4, "end", decadeLabel(decade));
        }
        for (int decade = 0; decade <= DECADES; decade++)
        {
            final double x = x(decade);
            svg.line("grid", x, PLOT_TOP, x, bottom)
                .text("tick", x, bottom + 16, "middle", PERCENTILE_LABELS[decade]);
        }
        svg.line("axis", PLOT_LEFT, PLOT_TOP, PLOT_LEFT, bottom)
            .line("axis", PLOT_LEFT, bottom, PLOT_LEFT + PLOT_WIDTH, bottom)
            .text("label", PLOT_LEFT + PLOT_WIDTH / 2, bottom + 34, "middle", "percentile")
            .text("label", PLOT_LEFT, PLOT_TOP - 12, "middle", "time per frame (log scale)");
    }

    /** 10^decade nanoseconds in the unit that makes it a whole number: "100 ns", "1 µs", "10 ms". */
    static String decadeLabel(final int decade)
    {
        final String[] units = {"ns", "µs", "ms", "s"};
        final int unit = Math.min(decade / 3, units.length - 1);
        return (long)Math.pow(10, decade - 3 * unit) + " " + units[unit];
    }

    private void drawCurve(final SvgBuilder svg)
    {
        final long count = histogram.getTotalCount();
        final double end = Math.clamp(Math.log10(count), 1.0, DECADES);
        final int samples = (int)Math.ceil(end * SAMPLES_PER_DECADE);
        final double[] xy = new double[2 * (samples + 2)];
        int points = 0;
        for (int i = 0; i <= samples; i++)
        {
            final double decades = end * i / samples;
            final double percentile = 100 * (1 - Math.pow(10, -decades));
            xy[2 * points] = x(decades);
            xy[2 * points + 1] = y(histogram.getValueAtPercentile(percentile));
            points++;
        }
        xy[2 * points] = x(end);
        xy[2 * points + 1] = y(histogram.getMaxValue());
        points++;
        svg.polyline("latency", xy, points, SvgBuilder.colour(0), "pipeline time per frame by percentile, " +
            count + " samples");
    }

    private void drawTable(final SvgBuilder svg)
    {
        final String[][] rows = {
            {"p50", cell(histogram.getValueAtPercentile(50))},
            {"p90", cell(histogram.getValueAtPercentile(90))},
            {"p99", cell(histogram.getValueAtPercentile(99))},
            {"p99.9", cell(histogram.getValueAtPercentile(99.9))},
            {"max", cell(histogram.getMaxValue())},
            {"count", Long.toString(histogram.getTotalCount())},
        };
        double y = PLOT_TOP + 10;
        for (final String[] row : rows)
        {
            svg.text("cell", TABLE_LEFT, y, "start", row[0])
                .text("cell", TABLE_LEFT + 150, y, "end", row[1]);
            y += TABLE_ROW;
        }
    }

    /** Each figure in its own unit: "2.00 µs" reads better than the axis's "0.00 ms". */
    private static String cell(final long valueNs)
    {
        return LatencyUnit.forMaximum(valueNs).format(valueNs);
    }

    /** The x of a number of nines: 0 for 0 %, 1 for 90 %, 2 for 99 %... */
    private static double x(final double decades)
    {
        return PLOT_LEFT + PLOT_WIDTH * decades / DECADES;
    }

    /** The y of a time in nanoseconds on the log axis, clamped to the plot. */
    private double y(final double valueNs)
    {
        final double position = (Math.log10(Math.max(1, valueNs)) - lowDecade) / (highDecade - lowDecade);
        return PLOT_TOP + PLOT_HEIGHT * (1 - Math.clamp(position, 0.0, 1.0));
    }
}
