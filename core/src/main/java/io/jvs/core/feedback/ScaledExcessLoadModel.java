package io.jvs.core.feedback;

/**
 * D7's reading of seed-003: {@code L' = L} up to Ll, then {@code L' = Ll + b·(L − Ll)}. The load keeps
 * rising continuously past the limit, only b times faster, so a weaker server (larger b) is pushed
 * out of the choice sooner; the strongest server (b = 1) is not penalised at all.
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
