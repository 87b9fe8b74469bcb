package io.jvs.forwarder.report;

/**
 * The unit a latency panel speaks in, chosen by the largest latency so its axis reads "0 to 250 µs"
 * rather than "0 to 250000 ns".
 */
enum LatencyUnit
{
    NS("ns", 1),
    US("µs", 1_000),
    MS("ms", 1_000_000);

    private final String symbol;
    private final double nanos;

    LatencyUnit(final String symbol, final double nanos)
    {
        this.symbol = symbol;
        this.nanos = nanos;
    }

    /**
     * @param maximumNs the largest latency to show.
     * @return ns below 1 µs, µs below 1 ms, ms from there up.
     */
    static LatencyUnit forMaximum(final long maximumNs)
    {
        return maximumNs >= 1_000_000 ? MS : maximumNs >= 1_000 ? US : NS;
    }

    String symbol()
    {
        return symbol;
    }

    /**
     * @param valueNs a latency in nanoseconds.
     * @return it in this unit.
     */
    double of(final long valueNs)
    {
        return valueNs / nanos;
    }

    /**
     * @param valueNs a latency in nanoseconds.
     * @return it in this unit with three significant digits (whole nanoseconds), e.g. "12.5 µs", "99 ns".
     */
    String format(final long valueNs)
    {
        if (this == NS)
        {
            return valueNs + " ns";
        }
        final double value = of(valueNs);
        final String pattern = value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s";
        return SvgBuilder.format(pattern, value, symbol);
    }
}
