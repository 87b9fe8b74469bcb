package io.jvs.core.feedback;

/**
 * How a server's process counts become the load the director compares, after a paper on balancing web
 * servers behind a network-address-translation gateway that sends each new request to the least loaded one.
 * <p>
 * The copy of that paper jvs worked from had lost its formula images, so the formula is read from the prose
 * around them. The prose gives the basic load {@code L = Ns + a·Nd}, static-document processes plus a
 * times the costlier dynamic-document ones, and a steeper penalty once L passes the server's hardware limit
 * Ll, weighted by a factor b inversely proportional to Ll, with Llmax, the best-equipped server's Ll, as
 * reference: jvs takes {@code b = Llmax / Ll}. The prose also says b is set "larger than Ll", which fits no
 * reading of b as a factor; jvs takes it for a garbled "larger than 1", which {@code Llmax / Ll} always is, so
 * that a weaker server is penalised more steeply past its limit, the purpose the prose states.
 * <p>
 * How the penalty combines with L is not fixed by the prose, and two readings fit it, so the formula sits
 * behind this interface: {@link ScaledExcessLoadModel} (the default) and {@link AddedExcessLoadModel}.
 */
public interface LoadModel
{
    /** The default reading: above Ll the load rises with slope b, so the strongest server is not penalised. */
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
