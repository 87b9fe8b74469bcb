package io.jvs.core.feedback;

/**
 * The alternative reading of seed-003 (spec 14.1): {@code L' = L + b·max(0, L − Ll)}. Past the limit the
 * slope is 1 + b instead of b, so even the strongest server is penalised for its excess.
 */
public final class AddedExcessLoadModel implements LoadModel
{
    @Override
    public double effectiveLoad(
        final ServerLoadProfile server,
        final long staticProcesses,
        final long dynamicProcesses,
        final double largestNormalLimit)
    {
        final double load = server.basicLoad(staticProcesses, dynamicProcesses);
        final double factor = server.overloadFactor(largestNormalLimit);
        return load + factor * Math.max(0.0, load - server.normalLoadLimit());
    }
}
