package io.jvs.forwarder.report;

/**
 * An axis from 0 to a round maximum, in steps of 1, 2 or 5 times a power of ten, so the tick labels are
 * numbers a reader can add up at a glance.
 *
 * @param step the distance between ticks, positive.
 * @param max  the axis's end: a whole number of steps at or above the largest value drawn.
 */
record Ticks(double step, double max)
{
    /**
     * @param largest the largest value to draw; zero, negative or NaN (nothing to draw) gives an axis to 1.
     * @param target  about how many steps the axis should have.
     * @param whole   only whole-number steps (counts of connections), never 0.5.
     * @return the axis.
     */
    static Ticks upTo(final double largest, final int target, final boolean whole)
    {
        final double top = largest > 0 && Double.isFinite(largest) ? largest : 1;
        final double rough = top / target;
        final double power = Math.pow(10, Math.floor(Math.log10(rough)));
        final double fraction = rough / power;
        double step = power * (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10);
        if (whole)
        {
            step = Math.max(1, Math.round(step));
        }
        return new Ticks(step, Math.ceil(top / step - 1e-9) * step);
    }

    /**
     * @return how many ticks, counting both 0 and the maximum.
     */
    int count()
    {
        return (int)Math.round(max / step) + 1;
    }

    /**
     * @param index 0 to {@link #count()} - 1.
     * @return the value at that tick.
     */
    double value(final int index)
    {
        return index * step;
    }

    /**
     * @param value a tick's value.
     * @return it with as many decimals as the step needs and no more ("0.5", "1", "1.5"; "20", "40").
     */
    String label(final double value)
    {
        final int decimals = Math.max(0, (int)-Math.floor(Math.log10(step) + 1e-9));
        return SvgBuilder.format("%." + decimals + "f", value);
    }
}
