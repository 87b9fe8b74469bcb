package io.jvs.core.feedback;

/**
 * The second way to read the load formula's overload penalty (see {@link LoadModel} for where the formula
 * comes from and why it has two readings): {@code L' = L + b·max(0, L − Ll)}, the excess over the hardware
 * limit Ll added again, b times, on top of the whole load. Past the limit the slope is 1 + b instead of b, so
 * even the strongest server (b = 1) is penalised for its excess. Not the default; kept so that the two
 * readings can be compared on the same counts.
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
