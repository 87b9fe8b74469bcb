package io.jvs.core.feedback;

/**
 * What the dynamic-feedback monitor ({@link FeedbackController}) learned about one server over one period:
 * the connections the director sent it, and the five inputs the server or a probe reports.
 * <p>
 * The five server-side inputs arrive already normalised, as the LVS dynamic-feedback description asks, so
 * that unlike quantities can be mixed: 1.0 is "just right", above 1 is overloaded and below 1 is underloaded.
 * How each is measured (an agent or SNMP on the server, a probe request for the response time) is the
 * caller's. They are not a number when the server did not answer.
 *
 * @param newConnections connections the director sent to the server during this period: the delta of
 *                       its connection counter since the previous report, not the counter itself. The
 *                       director counts these itself, so they are known even when the server is silent.
 * @param answered       whether the server answered both its load query and the response probe in time.
 * @param cpuLoad        LOAD_i, the CPU load.
 * @param disk           DISK_i, disk usage.
 * @param memory         MEMORY_i, memory usage.
 * @param processes      PROCESS_i, the process count.
 * @param responseTime   RESPONSE_i, the probe's response time.
 */
public record LoadReport(
    long newConnections,
    boolean answered,
    double cpuLoad,
    double disk,
    double memory,
    double processes,
    double responseTime)
{
    public LoadReport
    {
        if (newConnections < 0)
        {
            throw new IllegalArgumentException("new connections cannot be negative: " + newConnections);
        }
        if (answered)
        {
            for (final double input : new double[] { cpuLoad, disk, memory, processes, responseTime })
            {
                if (!Double.isFinite(input) || input < 0.0)
                {
                    throw new IllegalArgumentException("normalised inputs must be finite and not negative: " + input);
                }
            }
        }
    }

    /**
     * @param newConnections connections the director sent to the server during the period.
     * @param cpuLoad        normalised CPU load.
     * @param disk           normalised disk usage.
     * @param memory         normalised memory usage.
     * @param processes      normalised process count.
     * @param responseTime   normalised response time.
     * @return the report of a server that answered.
     */
    public static LoadReport answered(
        final long newConnections,
        final double cpuLoad,
        final double disk,
        final double memory,
        final double processes,
        final double responseTime)
    {
        return new LoadReport(newConnections, true, cpuLoad, disk, memory, processes, responseTime);
    }

    /**
     * @param newConnections connections the director sent to the server during the period.
     * @return the report of a server that did not answer in time.
     */
    public static LoadReport unanswered(final long newConnections)
    {
        return new LoadReport(newConnections, false, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
}
