package io.jvs.forwarder.report;

import io.jvs.forwarder.report.SvgReport.ServerShare;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Panel one: per service, each real server's share of the service's connections as a filled bar, and
 * under it, outlined, the share its weight asks for (weight / sum of the service's weights). A fair
 * scheduler makes each pair the same length; the numbers beside them say by how much it is not.
 * <p>
 * Bars run left to right on one percent axis (0 to 100 %) shared by every service, so lengths compare
 * across services too. Services keep the order of their first server in the list; servers keep theirs.
 */
final class SharePanel
{
    /** Where a bar of 0 % starts. */
    static final double BAR_LEFT = 210;
    /** Length of a bar of 100 %. */
    static final double BAR_FULL = 420;

    private static final double NAME_RIGHT = BAR_LEFT - 8;
    private static final double NUMBERS_LEFT = BAR_LEFT + BAR_FULL + 12;
    private static final double FIRST_ROW = 52;
    private static final double SERVICE_ROW = 22;
    private static final double SERVER_ROW = 32;
    private static final double SHARE_BAR = 13;
    private static final double WEIGHT_BAR = 6;
    private static final double AXIS_ROOM = 30;
    private static final int NAME_CHARS = 32;

    private final Map<String, List<ServerShare>> byService = new LinkedHashMap<>();
    private final int height;

    SharePanel(final List<ServerShare> shares)
    {
        for (final ServerShare share : shares)
        {
            if (share != null)
            {
                byService.computeIfAbsent(String.valueOf(share.service()), ignored -> new ArrayList<>()).add(share);
            }
        }
        final int servers = byService.values().stream().mapToInt(List::size).sum();
        final double rows = byService.isEmpty() ? SERVICE_ROW : byService.size() * SERVICE_ROW + servers * SERVER_ROW;
        this.height = (int)Math.ceil(FIRST_ROW + rows + AXIS_ROOM);
    }

    int height()
    {
        return height;
    }

    void draw(final SvgBuilder svg)
    {
        svg.text("heading", 20, 20, "start", "Share of connections against share of weight");
        svg.rect("key", BAR_LEFT, 30, 12, SHARE_BAR, "fill=\"" + SvgBuilder.colour(0) + "\"", null)
            .text("legend", BAR_LEFT + 16, 41, "start", "connections")
            .rect("key", BAR_LEFT + 110, 33, 12, WEIGHT_BAR, outlined(SvgBuilder.colour(0)), null)
            .text("legend", BAR_LEFT + 126, 41, "start", "weight (expected)");
        final double bottom = height - AXIS_ROOM;
        drawAxis(svg, bottom);
        if (byService.isEmpty())
        {
            svg.text("note", BAR_LEFT + BAR_FULL / 2, FIRST_ROW + 15, "middle", "no data: no real servers");
            return;
        }
        double y = FIRST_ROW;
        int serviceIndex = 0;
        for (final Map.Entry<String, List<ServerShare>> service : byService.entrySet())
        {
            y = drawService(svg, service.getKey(), service.getValue(), SvgBuilder.colour(serviceIndex++), y);
        }
    }

    private void drawAxis(final SvgBuilder svg, final double bottom)
    {
        final Ticks ticks = new Ticks(10, 100);
        for (int i = 0; i < ticks.count(); i++)
        {
            final double x = BAR_LEFT + BAR_FULL * ticks.value(i) / 100;
            svg.line("grid", x, FIRST_ROW - 4, x, bottom);
            svg.text("tick", x, bottom + 14, "middle", ticks.label(ticks.value(i)) + "%");
        }
        svg.line("axis", BAR_LEFT, FIRST_ROW - 4, BAR_LEFT, bottom)
            .line("axis", BAR_LEFT, bottom, BAR_LEFT + BAR_FULL, bottom);
    }

    private static double drawService(final SvgBuilder svg, final String service, final List<ServerShare> servers,
        final String colour, final double top)
    {
        long connections = 0;
        long weights = 0;
        for (final ServerShare server : servers)
        {
            connections += Math.max(0, server.connections());
            weights += Math.max(0, server.weight());
        }
        svg.text("service", 20, top + 16, "start",
            fit(service) + " (" + connections + " connections, weights sum to " + weights + ")");
        double y = top + SERVICE_ROW;
        for (final ServerShare server : servers)
        {
            final double share = percent(server.connections(), connections);
            final double expected = percent(server.weight(), weights);
            final String name = String.valueOf(server.server());
            svg.text("label", NAME_RIGHT, y + 12, "end", fit(name))
                .rect("share", BAR_LEFT, y + 2, BAR_FULL * share / 100, SHARE_BAR, "fill=\"" + colour + "\"",
                    name + ": " + percentText(share) + " of the connections")
                .rect("weight", BAR_LEFT, y + 3 + SHARE_BAR, BAR_FULL * expected / 100, WEIGHT_BAR, outlined(colour),
                    name + ": weight " + server.weight() + ", " + percentText(expected) + " expected")
                .text("numbers", NUMBERS_LEFT, y + 12, "start",
                    Math.max(0, server.connections()) + " conn · " + percentText(share))
                .text("numbers", NUMBERS_LEFT, y + 25, "start", "weight " + server.weight() + " · " +
                    percentText(expected) + " · " + Math.max(0, server.packets()) + " pkts · " + bytes(server.bytes()));
            y += SERVER_ROW;
        }
        return y;
    }

    /**
     * @return part / whole in percent, 0 when the whole is 0 (no connections, all weights 0) or the part
     *     negative, at most 100.
     */
    static double percent(final long part, final long whole)
    {
        return whole <= 0 || part <= 0 ? 0 : Math.min(100, 100.0 * part / whole);
    }

    /**
     * @return the share as the report prints it, e.g. "50.0 %".
     */
    static String percentText(final double percent)
    {
        return SvgBuilder.format("%.1f %%", percent);
    }

    private static String outlined(final String colour)
    {
        return "fill=\"#ffffff\" stroke=\"" + colour + "\" stroke-width=\"1.5\"";
    }

    /** Long names would run into the bars: cut, the whole name stays in the bar's tooltip. */
    private static String fit(final String name)
    {
        return name.length() <= NAME_CHARS ? name : name.substring(0, NAME_CHARS - 1) + "…";
    }

    private static String bytes(final long bytes)
    {
        final String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double value = Math.max(0, bytes);
        int unit = 0;
        while (value >= 1024 && unit < units.length - 1)
        {
            value /= 1024;
            unit++;
        }
        return unit == 0 ? (long)value + " B" : SvgBuilder.format("%.1f %s", value, units[unit]);
    }
}
