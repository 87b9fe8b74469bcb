package io.jvs.forwarder.report;

import io.jvs.forwarder.report.SvgReport.ConnectionSeries;
import io.jvs.forwarder.report.SvgReport.Content;
import io.jvs.forwarder.report.SvgReport.ServerShare;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The replay report is an SVG document a browser can open and it shows the numbers it was given: each
 * server's share and weight as bars of the right lengths, one line per series (thinned, peaks kept), and
 * the latency histogram's figures; user-chosen names cannot break it, and nothing in it varies between runs.
 */
class SvgReportTest
{
    private static final String WEB = "TCP 10.0.0.100:80";
    private static final String TLS = "TCP 10.0.0.100:443";

    @Test
    void shouldRenderAWellFormedSvgDocumentWithItsSizeAndViewBox() throws Exception
    {
        final SvgDom dom = SvgDom.parse(SvgReport.render(sixServers()));

        assertThat(dom.root().getNamespaceURI()).isEqualTo(SvgDom.SVG_NAMESPACE);
        assertThat(dom.root().getLocalName()).isEqualTo("svg");
        assertThat(dom.root().getAttribute("width")).isEqualTo("960");
        final String height = dom.root().getAttribute("height");
        assertThat(Integer.parseInt(height)).isGreaterThan(600);
        assertThat(dom.root().getAttribute("viewBox")).isEqualTo("0 0 960 " + height);
        assertThat(dom.texts("title")).containsExactly("replay of trace.pcap");
    }

    @Test
    void shouldLabelEveryServerWithItsConnectionsShareAndWeight() throws Exception
    {
        final SvgDom dom = SvgDom.parse(SvgReport.render(sixServers()));

        assertThat(dom.texts("label")).contains("web-a", "web-b", "web-c", "tls-d", "tls-e", "tls-f");
        assertThat(dom.texts("service")).containsExactly(
            WEB + " (400 connections, weights sum to 4)", TLS + " (800 connections, weights sum to 4)");
        assertThat(dom.texts("numbers")).containsExactly(
            "100 conn · 25.0 %", "weight 1 · 25.0 % · 1000 pkts · 1.5 KiB",
            "100 conn · 25.0 %", "weight 1 · 25.0 % · 1000 pkts · 1.5 KiB",
            "200 conn · 50.0 %", "weight 2 · 50.0 % · 2000 pkts · 3.0 MiB",
            "600 conn · 75.0 %", "weight 3 · 75.0 % · 6000 pkts · 0 B",
            "0 conn · 0.0 %", "weight 1 · 25.0 % · 0 pkts · 0 B",
            "200 conn · 25.0 %", "weight 0 · 0.0 % · 2000 pkts · 900 B");
    }

    @Test
    void shouldDrawBarsAsLongAsTheSharesTheyShow() throws Exception
    {
        final SvgDom dom = SvgDom.parse(SvgReport.render(sixServers()));

        final double full = SharePanel.BAR_FULL;
        assertThat(shareWidth(dom, "web-a")).isEqualTo(0.25 * full, within(0.01));
        assertThat(shareWidth(dom, "web-c")).isEqualTo(0.50 * full, within(0.01));
        assertThat(shareWidth(dom, "tls-d")).isEqualTo(0.75 * full, within(0.01));
        assertThat(shareWidth(dom, "tls-e")).isZero();
        assertThat(shareWidth(dom, "tls-f")).isEqualTo(0.25 * full, within(0.01));
        assertThat(weightWidth(dom, "tls-d")).isEqualTo(0.75 * full, within(0.01));
        assertThat(weightWidth(dom, "tls-e")).isEqualTo(0.25 * full, within(0.01));
        assertThat(weightWidth(dom, "tls-f")).as("weight 0 asks for nothing").isZero();
        assertThat(dom.elements("rect", "share")).allSatisfy(
            bar -> assertThat(SvgDom.number(bar, "x")).isEqualTo(SharePanel.BAR_LEFT));
    }

    @Test
    void shouldShowServicesWithoutConnectionsOrWeightsAsEmptyBars() throws Exception
    {
        final Content content = new Content("idle", "", List.of(
            new ServerShare(WEB, "idle-a", 0, 0, 0, 0), new ServerShare(WEB, "idle-b", 0, 0, 0, 0)),
            List.of(), null);

        final SvgDom dom = SvgDom.parse(SvgReport.render(content));

        assertThat(dom.texts("label")).contains("idle-a", "idle-b");
        assertThat(dom.elements("rect", "share")).hasSize(2).allSatisfy(
            bar -> assertThat(SvgDom.number(bar, "width")).isZero());
        assertThat(dom.texts("numbers")).contains("0 conn · 0.0 %", "weight 0 · 0.0 % · 0 pkts · 0 B");
    }

    @Test
    void shouldDrawOnePolylinePerSeriesAndThinLongOnesKeepingTheirPeak() throws Exception
    {
        final SvgDom dom = SvgDom.parse(SvgReport.render(sixServers()));

        final List<Element> lines = dom.elements("polyline", "series");
        assertThat(lines).hasSize(3);
        assertThat(dom.texts("legend")).contains(WEB + " / web-a", WEB + " / web-b", TLS + " / tls-d");
        final double[][] short1 = SvgDom.points(dom.titled("polyline", "series", WEB + " / web-a"));
        final double[][] reference = SvgDom.points(dom.titled("polyline", "series", WEB + " / web-b"));
        final double[][] thinned = SvgDom.points(dom.titled("polyline", "series", TLS + " / tls-d"));
        assertThat(short1).hasNumberOfRows(5);
        assertThat(reference).hasNumberOfRows(3);
        assertThat(thinned.length).isBetween(500, Downsampler.MAX_POINTS);
        // web-b holds 0, 2500, then 5000 connections: the thinned line reaches its top and its bottom.
        final double peakY = reference[2][1];
        final double zeroY = reference[0][1];
        assertThat(Arrays.stream(thinned).mapToDouble(point -> point[1]).min().orElseThrow()).isEqualTo(peakY);
        assertThat(Arrays.stream(thinned).mapToDouble(point -> point[1]).max().orElseThrow()).isEqualTo(zeroY);
        assertThat(reference[1][1]).isEqualTo((peakY + zeroY) / 2, within(0.01));
        // Times run left to right from the earliest sample, and the last sample is kept.
        assertThat(short1[0][0]).isEqualTo(SeriesPanel.PLOT_LEFT);
        assertThat(thinned[thinned.length - 1][0]).isEqualTo(SeriesPanel.PLOT_LEFT + SeriesPanel.PLOT_WIDTH);
        assertThat(Arrays.stream(thinned).mapToDouble(point -> point[0]).toArray()).isSorted();
        assertThat(dom.texts("tick")).contains("0 s", "10 s", "5000");
    }

    @Test
    void shouldTabulateTheHistogramsPercentilesInNanoseconds() throws Exception
    {
        final Histogram latency = new Histogram(3);
        for (int value = 1; value <= 100; value++)
        {
            latency.recordValue(value);
        }
        final SvgDom dom = SvgDom.parse(SvgReport.render(new Content("t", "s", List.of(), List.of(), latency)));

        assertThat(dom.texts("cell")).containsExactly(
            "p50", "50 ns", "p90", "90 ns", "p99", "99 ns", "p99.9", "100 ns", "max", "100 ns", "count", "100");
        assertThat(dom.texts("tick")).contains("0%", "90%", "99%", "99.9%", "99.99%", "99.999%");
        assertThat(dom.texts("label")).contains("time per frame (log scale)");
        assertThat(dom.texts("tick")).contains("1 ns", "10 ns", "100 ns");
        assertThat(dom.texts("heading")).contains("Pipeline time per frame, by percentile");
        final double[][] curve = SvgDom.points(dom.elements("polyline", "latency").getFirst());
        assertThat(Arrays.stream(curve).mapToDouble(point -> point[0]).toArray()).isSorted();
        assertThat(Arrays.stream(curve).mapToDouble(point -> -point[1]).toArray()).as("never falls").isSorted();
        assertThat(curve[curve.length - 1][1]).as("ends at the max, the axis's top")
            .isEqualTo(LatencyPanel.PLOT_TOP);
    }

    @Test
    void shouldScaleTheAxisToTheMaximumAndEachFigureToItself() throws Exception
    {
        final Histogram latency = new Histogram(3);
        latency.recordValueWithCount(2_000, 99);
        latency.recordValue(1_500_000);
        final SvgDom dom = SvgDom.parse(SvgReport.render(new Content("t", "s", List.of(), List.of(), latency)));

        assertThat(dom.texts("cell")).containsExactly(
            "p50", "2.00 µs", "p90", "2.00 µs", "p99", "2.00 µs", "p99.9", "1.50 ms", "max", "1.50 ms",
            "count", "100");
        assertThat(dom.texts("tick")).as("a decade per grid line, 2 µs to 1.5 ms")
            .contains("1 µs", "10 µs", "100 µs", "1 ms", "10 ms").doesNotContain("100 ns");
        // On a linear axis to 10 ms the 99 samples at 2 µs would lie on the bottom line; on the log axis
        // they sit a third of the way up.
        final double[][] curve = SvgDom.points(dom.elements("polyline", "latency").getFirst());
        final double bottom = LatencyPanel.PLOT_TOP + LatencyPanel.PLOT_HEIGHT;
        assertThat(bottom - curve[0][1]).isBetween(LatencyPanel.PLOT_HEIGHT * 0.05, LatencyPanel.PLOT_HEIGHT * 0.15);
    }

    @Test
    void shouldDrawOneSmallPanelPerServiceWhenThereAreMoreLinesThanColours() throws Exception
    {
        final List<ConnectionSeries> series = new java.util.ArrayList<>();
        for (int service = 0; service < 3; service++)
        {
            for (int server = 0; server < 5; server++)
            {
                series.add(new ConnectionSeries("service-" + service, "server-" + service + "-" + server,
                    new long[] {0, 1_000_000_000L}, new long[] {server, server + 1}));
            }
        }
        final SvgDom dom = SvgDom.parse(SvgReport.render(new Content("t", "s", List.of(), series, null)));

        assertThat(dom.texts("heading")).contains("Connections per real server over time: service-0",
            "Connections per real server over time: service-1", "Connections per real server over time: service-2");
        assertThat(dom.texts("legend")).as("the servers alone").contains("server-0-0", "server-2-4")
            .filteredOn(legend -> legend.contains("server-")).hasSize(15)
            .allMatch(legend -> legend.startsWith("server-"));
        assertThat(dom.elements("polyline", "series")).hasSize(15);
    }

    @Test
    void shouldSayWhenEverySeriesHasOneSampleOnly() throws Exception
    {
        final SvgDom dom = SvgDom.parse(SvgReport.render(new Content("t", "s", List.of(),
            List.of(new ConnectionSeries("s", "r", new long[] {5}, new long[] {3})), null)));

        assertThat(dom.texts("note")).contains("one sample only: the trace is shorter than the sampling period");
    }

    @Test
    void shouldEscapeNamesSoTheDocumentStillParses() throws Exception
    {
        final String nasty = "<b>&\"quoted\" 'x'</b>";
        final Content content = new Content(nasty, nasty + "\u0001",
            List.of(new ServerShare(nasty, nasty, 1, 10, 10, 10)),
            List.of(new ConnectionSeries(nasty, nasty, new long[] {0, 1}, new long[] {1, 2})), null);

        final String svg = SvgReport.render(content);
        final SvgDom dom = SvgDom.parse(svg);

        assertThat(svg).doesNotContain("<b>").contains("&lt;b&gt;&amp;&quot;quoted&quot; &apos;x&apos;");
        assertThat(dom.texts("title")).containsExactly(nasty);
        assertThat(dom.texts("label")).contains(nasty);
        assertThat(dom.texts("legend")).as("cut at the end")
            .contains((nasty + " / " + nasty).substring(0, 39) + "…");
        assertThat(SvgDom.title(dom.elements("polyline", "series").getFirst())).isEqualTo(nasty + " / " + nasty);
        assertThat(SvgDom.title(dom.elements("rect", "share").getFirst())).startsWith(nasty + ": 100.0 %");
    }

    @Test
    void shouldRenderEmptyContentAsADocumentSayingThereIsNoData() throws Exception
    {
        for (final Content empty : List.of(
            new Content("", "", List.of(), List.of(), null),
            new Content(null, null, null, null, new Histogram(3)),
            new Content("x", "y", List.of(), List.of(new ConnectionSeries("s", "r", new long[0], null)), null)))
        {
            final SvgDom dom = SvgDom.parse(SvgReport.render(empty));

            assertThat(dom.root().getLocalName()).isEqualTo("svg");
            assertThat(dom.texts("note")).containsExactly(
                "no data: no real servers", "no data: no connection samples", "no samples");
            assertThat(dom.elements("rect", "share")).isEmpty();
        }
    }

    @Test
    void shouldRenderTheSameContentToTheSameStringInAnyLocale()
    {
        final String first = SvgReport.render(sixServers());
        final Locale before = Locale.getDefault();
        try
        {
            Locale.setDefault(Locale.GERMANY);
            assertThat(SvgReport.render(sixServers())).isEqualTo(first);
        }
        finally
        {
            Locale.setDefault(before);
        }
        assertThat(first).contains("50.0 %").doesNotContain("50,0");
    }

    @Test
    void shouldWriteTheDocumentAsUtf8(@TempDir final Path directory) throws Exception
    {
        final Path file = directory.resolve("report.svg");

        SvgReport.write(sixServers(), file);

        assertThat(Files.readString(file, StandardCharsets.UTF_8)).isEqualTo(SvgReport.render(sixServers()));
    }

    /**
     * Two services of three servers each, with shares that differ from one to the next: 25/25/50 % on
     * weights 1/1/2, and 75/0/25 % on weights 3/1/0; three series, one of 100 000 samples; latency of
     * 1..1000 µs.
     */
    static Content sixServers()
    {
        final List<ServerShare> shares = List.of(
            new ServerShare(WEB, "web-a", 1, 100, 1000, 1536),
            new ServerShare(WEB, "web-b", 1, 100, 1000, 1536),
            new ServerShare(WEB, "web-c", 2, 200, 2000, 3L << 20),
            new ServerShare(TLS, "tls-d", 3, 600, 6000, 0),
            new ServerShare(TLS, "tls-e", 1, 0, 0, 0),
            new ServerShare(TLS, "tls-f", 0, 200, 2000, 900));
        final long start = 1_700_000_000_000_000_000L;
        final long second = 1_000_000_000L;
        final int samples = 100_000;
        final long[] times = new long[samples];
        final long[] values = new long[samples];
        for (int i = 0; i < samples; i++)
        {
            times[i] = start + i * (10 * second / (samples - 1));
            values[i] = 1000 + Math.round(500 * Math.sin(i / 500.0)) + (i % 7) * 10;
        }
        times[samples - 1] = start + 10 * second;
        values[54_321] = 5000;
        values[77_777] = 0;
        final List<ConnectionSeries> series = List.of(
            new ConnectionSeries(WEB, "web-a", new long[] {start, start + second, start + 2 * second,
                start + 3 * second, start + 4 * second}, new long[] {0, 10, 20, 15, 5}),
            new ConnectionSeries(WEB, "web-b", new long[] {start + second, start + 2 * second, start + 3 * second},
                new long[] {0, 2500, 5000}),
            new ConnectionSeries(TLS, "tls-d", times, values));
        final Histogram latency = new Histogram(3);
        for (long micros = 1; micros <= 1000; micros++)
        {
            latency.recordValue(micros * 1000);
        }
        return new Content("replay of trace.pcap", "rules: jvs.rules  scheduler wrr", shares, series, latency);
    }

    private static double shareWidth(final SvgDom dom, final String server)
    {
        return SvgDom.number(dom.titled("rect", "share", server + ":"), "width");
    }

    private static double weightWidth(final SvgDom dom, final String server)
    {
        return SvgDom.number(dom.titled("rect", "weight", server + ":"), "width");
    }
}
