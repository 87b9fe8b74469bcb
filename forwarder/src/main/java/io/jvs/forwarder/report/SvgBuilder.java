package io.jvs.forwarder.report;

import java.util.Locale;

/**
 * Appends SVG elements to a string, escaping every piece of text and writing every number the same way
 * whatever the default locale: the names in a report come from user rules, and a report must read the
 * same (and parse) on every machine.
 * <p>
 * SVG collapses runs of spaces in text, so the panels separate figures with " · " instead.
 * <p>
 * Coordinates are written with at most two decimals, trailing zeros dropped, which keeps long polylines
 * small without visible loss. Not thread-safe.
 */
final class SvgBuilder
{
    /** The SVG namespace, declared on the root element. */
    static final String NAMESPACE = "http://www.w3.org/2000/svg";

    /** Series colours, in order: fixed so that the same content always gets the same colours. */
    private static final String[] PALETTE = {
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
        "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    };

    private final StringBuilder out = new StringBuilder(16 * 1024);

    /**
     * @param index any non-negative index (series number, service number).
     * @return the palette's colour for it, cycling.
     */
    static String colour(final int index)
    {
        return PALETTE[Math.floorMod(index, PALETTE.length)];
    }

    /**
     * @param text any text, null read as empty.
     * @return the text safe inside an element or a quoted attribute.
     */
    static String escape(final String text)
    {
        if (text == null)
        {
            return "";
        }
        final StringBuilder escaped = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++)
        {
            final char c = text.charAt(i);
            switch (c)
            {
                case '&' -> escaped.append("&amp;");
                case '<' -> escaped.append("&lt;");
                case '>' -> escaped.append("&gt;");
                case '"' -> escaped.append("&quot;");
                case '\'' -> escaped.append("&apos;");
                default -> escaped.append(isXmlChar(c) ? c : '?');
            }
        }
        return escaped.toString();
    }

    /** Control characters other than tab and newlines are not allowed in XML 1.0 at all, even escaped. */
    private static boolean isXmlChar(final char c)
    {
        return c >= 0x20 ? c != 0xFFFE && c != 0xFFFF : c == '\t' || c == '\n' || c == '\r';
    }

    /**
     * @param value a coordinate or length; NaN and infinities (from empty or degenerate data) become 0.
     * @return the value with at most two decimals, in the root locale.
     */
    static String number(final double value)
    {
        if (!Double.isFinite(value))
        {
            return "0";
        }
        final long hundredths = Math.round(value * 100);
        final long whole = Math.abs(hundredths) / 100;
        final long fraction = Math.abs(hundredths) % 100;
        final String sign = hundredths < 0 ? "-" : "";
        if (fraction == 0)
        {
            return sign + whole;
        }
        return fraction % 10 == 0 ? sign + whole + "." + fraction / 10 : String.format(Locale.ROOT, "%s%d.%02d",
            sign, whole, fraction);
    }

    /**
     * @param format a {@link String#format} pattern.
     * @param args   its arguments.
     * @return the formatted text in the root locale, so decimal points never become commas.
     */
    static String format(final String format, final Object... args)
    {
        return String.format(Locale.ROOT, format, args);
    }

    SvgBuilder raw(final String markup)
    {
        out.append(markup);
        return this;
    }

    SvgBuilder openGroup(final double dx, final double dy, final String cssClass)
    {
        out.append("<g class=\"").append(escape(cssClass)).append("\" transform=\"translate(")
            .append(number(dx)).append(',').append(number(dy)).append(")\">\n");
        return this;
    }

    SvgBuilder closeGroup()
    {
        out.append("</g>\n");
        return this;
    }

    /**
     * A rectangle; a negative width or height (never meaningful here) is drawn as 0.
     *
     * @param style extra attributes, already well-formed (constant markup, never user text).
     * @param title a tooltip, or null for none.
     */
    SvgBuilder rect(final String cssClass, final double x, final double y, final double width, final double height,
        final String style, final String title)
    {
        out.append("<rect class=\"").append(escape(cssClass)).append("\" x=\"").append(number(x))
            .append("\" y=\"").append(number(y)).append("\" width=\"").append(number(Math.max(0, width)))
            .append("\" height=\"").append(number(Math.max(0, height))).append("\" ").append(style);
        return closeWithTitle("rect", title);
    }

    SvgBuilder line(final String cssClass, final double x1, final double y1, final double x2, final double y2)
    {
        out.append("<line class=\"").append(escape(cssClass)).append("\" x1=\"").append(number(x1))
            .append("\" y1=\"").append(number(y1)).append("\" x2=\"").append(number(x2)).append("\" y2=\"")
            .append(number(y2)).append("\"/>\n");
        return this;
    }

    /**
     * @param anchor "start", "middle" or "end".
     */
    SvgBuilder text(final String cssClass, final double x, final double y, final String anchor, final String text)
    {
        out.append("<text class=\"").append(escape(cssClass)).append("\" x=\"").append(number(x)).append("\" y=\"")
            .append(number(y)).append("\" text-anchor=\"").append(anchor).append("\">").append(escape(text))
            .append("</text>\n");
        return this;
    }

    /**
     * A line through points given as alternating x and y, the first count pairs of them.
     */
    SvgBuilder polyline(final String cssClass, final double[] xy, final int count, final String colour,
        final String title)
    {
        out.append("<polyline class=\"").append(escape(cssClass)).append("\" fill=\"none\" stroke=\"")
            .append(colour).append("\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"");
        for (int i = 0; i < count; i++)
        {
            if (i > 0)
            {
                out.append(' ');
            }
            out.append(number(xy[2 * i])).append(',').append(number(xy[2 * i + 1]));
        }
        out.append("\"");
        return closeWithTitle("polyline", title);
    }

    private SvgBuilder closeWithTitle(final String element, final String title)
    {
        if (title == null)
        {
            out.append("/>\n");
        }
        else
        {
            out.append("><title>").append(escape(title)).append("</title></").append(element).append(">\n");
        }
        return this;
    }

    @Override
    public String toString()
    {
        return out.toString();
    }
}
