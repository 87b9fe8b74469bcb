package io.jvs.core.feedback;

/**
 * INPUT, the one load input of the dynamic-feedback loop ({@link FeedbackController}) that the director
 * measures itself instead of asking the server: {@code INPUT_i = N_i / (ΣN_j / n)}, a server's new connections
 * over the period divided by the mean over the n servers being adjusted. A server that got exactly the mean
 * share reads 1.0, the value at which every input of the loop means "just right".
 */
public final class ConnectionInput
{
    /**
     * What a server's share is when no server received a connection. INPUT is a ratio to the mean, so
     * it is 1.0 under any evenly spread traffic, light or heavy; it never measured absolute load, which
     * the other five inputs do. With no traffic every server got the same (empty) share, so 1.0 is the
     * value evenly spread traffic tends to as it dies away. 0 would instead jump every AGG down by R1
     * the moment the last connection stops, and raise every weight on no evidence.
     */
    public static final double SHARE_WITHOUT_TRAFFIC = 1.0;

    private ConnectionInput()
    {
    }

    /**
     * @param connections      N_i: new connections the server received during the period.
     * @param totalConnections ΣN_j over the n servers, including this one.
     * @param servers          n, at least 1.
     * @return INPUT_i, or {@link #SHARE_WITHOUT_TRAFFIC} when the total is 0.
     */
    public static double of(final long connections, final long totalConnections, final int servers)
    {
        if (servers < 1 || connections < 0 || totalConnections < connections)
        {
            throw new IllegalArgumentException(
                "need 0 <= connections <= total and servers >= 1: " + connections + ", " + totalConnections + ", " +
                servers);
        }
        if (totalConnections == 0)
        {
            return SHARE_WITHOUT_TRAFFIC;
        }
        return connections * (double)servers / totalConnections;
    }
}
