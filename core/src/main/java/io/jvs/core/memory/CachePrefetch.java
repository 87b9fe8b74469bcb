package io.jvs.core.memory;

import org.agrona.UnsafeApi;

/**
 * Brings the cache lines a burst will need towards the core before the burst is handled, so that their misses
 * overlap instead of queueing one behind another: the pipeline gives it the connection-table line of every frame of
 * a group.
 * <p>
 * Java has no prefetch instruction, and a load that misses holds up every instruction after it from retiring: a
 * loop of loads lets only as many misses in flight as fit in the core's reorder window behind the first one, and
 * the work that follows waits for them. A real prefetch (x86's {@code prefetcht0}) retires at once. Core makes no
 * native calls, so it keeps {@link #LOADS}; the forwarder passes the native one from native-bindings.
 */
public interface CachePrefetch
{
    /** Loads one long at each address: portable, as good as a prefetch for what fits in the reorder window. */
    CachePrefetch LOADS = (addresses, count) ->
    {
        long sum = 0;
        for (int i = 0; i < count; i++)
        {
            sum += UnsafeApi.getLong(UnsafeApi.getLong(addresses + (long)i * Long.BYTES));
        }
        return sum;
    };

    /**
     * Starts bringing in the line at each of {@code count} addresses, read as 8-byte native longs from
     * {@code addresses}. Every address must be readable memory.
     *
     * @return a value to keep (a sum of what was loaded, or 0), so that loads are not optimised away.
     */
    long lines(long addresses, int count);
}
