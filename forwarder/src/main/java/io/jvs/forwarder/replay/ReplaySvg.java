package io.jvs.forwarder.replay;

import io.jvs.forwarder.report.Counts;
import io.jvs.forwarder.report.SvgReport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A replay's report as pictures: each server's share of its service's connections against its weight,
 * each server's connections over capture time, and the pipeline's time-per-frame percentiles.
 */
public final class ReplaySvg
{
    private ReplaySvg()
    {
    }

    /**
     * @return what the SVG shows.
     */
    public static SvgReport.Content content(final ReplayReport report)
    {
        final List<SvgReport.ServerShare> shares = new ArrayList<>();
        final List<SvgReport.ConnectionSeries> series = new ArrayList<>();
        final long[] times = report.sampleTimes();
        for (final ReplayReport.ServiceLine service : report.services())
        {
            for (final ReplayReport.ServerLine server : service.servers())
            {
                shares.add(new SvgReport.ServerShare(service.service(), server.server(), server.weight(),
                    server.connections(), server.packets(), server.bytes()));
                series.add(new SvgReport.ConnectionSeries(service.service(), server.server(), times,
                    report.samplesOf(server.slot())));
            }
        }
        final String subtitle = String.format(Locale.ROOT, "%s: %d frames in, %d forwarded, %d passed, %d dropped; " +
                "%s; rules %s", report.options.input().getFileName(), report.framesIn(), report.forwarded(),
            report.passed(), report.dropped(), Counts.of(report.connections(), "connection"),
            report.rulesSource().getFileName());
        return new SvgReport.Content("jvs replay", subtitle, shares, series, report.pipelineNs());
    }

    public static void write(final ReplayReport report, final Path file) throws IOException
    {
        SvgReport.write(content(report), file);
    }
}
