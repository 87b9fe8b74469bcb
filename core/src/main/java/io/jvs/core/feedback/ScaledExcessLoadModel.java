package io.jvs.core.feedback;

/**
 * The default reading of the load formula's overload penalty (see {@link LoadModel} for where the formula
 * comes from and why it has two readings): {@code L' = L} up to Ll, then {@code L' = Ll + b·(L − Ll)}. The
 * load keeps rising continuously past the limit, only b times faster, so a weaker server (larger b) is pushed
 * out of the choice sooner; the strongest server (b = 1) is not penalised at all. jvs prefers it because
 * that is the purpose the paper gives b, to penalise servers by how much weaker than the best they are.
 */
public final class ScaledExcessLoadModel implements LoadModel
{
    @Override
    public double effectiveLoad(
        final ServerLoadProfile server,
        final long staticProcesses,
        final long dynamicProcesses,
        final double largestNormalLimit)
    {
        final double load = server.basicLoad(staticProcesses, dynamicProcesses);
        final double limit = server.normalLoadLimit();
        final double factor = server.overloadFactor(largestNormalLimit);
        return load <= limit ? load : limit + factor * (load - limit);
    }
}
