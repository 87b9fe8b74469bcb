package io.jvs.core.feedback;

/**
 * How a server's process counts become the load the director compares (spec 14.1, seed-003).
 * <p>
 * The paper's formula images are lost; its prose gives {@code L = Ns + a·Nd} and a steeper penalty
 * once L passes the server's hardware limit Ll, weighted by {@code b = Llmax / Ll}. Two readings of
 * that penalty exist, so the formula sits behind this interface.
 */
public interface LoadModel
{
    /** D7's reading: above Ll the load rises with slope b. */
    LoadModel DEFAULT = new ScaledExcessLoadModel();

    /**
     * @param server             the server's a and Ll.
     * @param staticProcesses    Ns.
     * @param dynamicProcesses   Nd.
     * @param largestNormalLimit Llmax among the cluster's servers.
     * @return L', the load to compare across servers.
     */
    double effectiveLoad(
        ServerLoadProfile server, long staticProcesses, long dynamicProcesses, double largestNormalLimit);

    /**
     * The form the feedback loop's LOAD and PROCESS inputs take: 1.0 when the server sits exactly at
     * its hardware limit.
     *
     * @param server             the server's a and Ll.
     * @param staticProcesses    Ns.
     * @param dynamicProcesses   Nd.
     * @param largestNormalLimit Llmax among the cluster's servers.
     * @return {@code L' / Ll}.
     */
    default double normalisedLoad(
        final ServerLoadProfile server,
        final long staticProcesses,
        final long dynamicProcesses,
        final double largestNormalLimit)
    {
        return effectiveLoad(server, staticProcesses, dynamicProcesses, largestNormalLimit) / server.normalLoadLimit();
    }
}
