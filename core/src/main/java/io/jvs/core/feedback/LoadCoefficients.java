package io.jvs.core.feedback;

/**
 * The coefficients R1..R6 that mix a server's six load inputs into its aggregate load, the weighted sum the
 * LVS dynamic-feedback description builds its weight step on ({@link FeedbackController}):
 * {@code AGG = R1·INPUT + R2·LOAD + R3·DISK + R4·MEMORY + R5·PROCESS + R6·RESPONSE}. Tuning them fits the
 * loop to the application, for example more weight on CPU for CPU-bound servers.
 * <p>
 * They must sum to 1, so that a server whose every input is "just right" (1.0) has an aggregate of 1.0
 * and the target load keeps its meaning. None may be negative: a negative coefficient would make more
 * load on that input raise the weight, breaking the negative feedback the loop relies on.
 *
 * @param input    R1, for the director-measured share of new connections.
 * @param load     R2, for CPU load.
 * @param disk     R3, for disk usage.
 * @param memory   R4, for memory usage.
 * @param process  R5, for the process count.
 * @param response R6, for the probe's response time.
 */
public record LoadCoefficients(
    double input, double load, double disk, double memory, double process, double response)
{
    /** How far the sum may stray from 1; wide enough for decimal fractions such as 0.1 that binary cannot hold. */
    public static final double SUM_TOLERANCE = 1e-9;

    public LoadCoefficients
    {
        final double[] all = { input, load, disk, memory, process, response };
        double sum = 0.0;
        for (final double coefficient : all)
        {
            if (!Double.isFinite(coefficient) || coefficient < 0.0)
            {
                throw new IllegalArgumentException("coefficients must be finite and not negative: " + coefficient);
            }
            sum += coefficient;
        }
        if (Math.abs(sum - 1.0) > SUM_TOLERANCE)
        {
            throw new IllegalArgumentException("coefficients must sum to 1, not " + sum);
        }
    }

    /**
     * @param connectionInput INPUT_i, the server's share of new connections (see {@link ConnectionInput}).
     * @param report          the server's answered load report.
     * @return AGG_i.
     */
    public double aggregate(final double connectionInput, final LoadReport report)
    {
        return input * connectionInput
            + load * report.cpuLoad()
            + disk * report.disk()
            + memory * report.memory()
            + process * report.processes()
            + response * report.responseTime();
    }
}
