package io.jvs.forwarder.memory;

import io.jvs.core.memory.CachePrefetch;
import io.jvs.nativebindings.CpuPrefetch;

/**
 * The pipeline's burst prefetch with the processor's prefetch instruction (native-bindings' {@link CpuPrefetch}),
 * where there is one; elsewhere core's loads.
 */
public final class NativeCachePrefetch implements CachePrefetch
{
    private static final NativeCachePrefetch NATIVE = new NativeCachePrefetch();

    private NativeCachePrefetch()
    {
    }

    /**
     * @return the native prefetch if this machine has it, otherwise {@link CachePrefetch#LOADS}.
     */
    public static CachePrefetch best()
    {
        return CpuPrefetch.isAvailable() ? NATIVE : CachePrefetch.LOADS;
    }

    @Override
    public long lines(final long addresses, final int count)
    {
        CpuPrefetch.lines(addresses, count);
        return 0;
    }
}
