package io.jvs.core.pipeline;

import io.jvs.core.memory.CachePrefetch;
import org.agrona.UnsafeApi;

import java.util.ArrayList;
import java.util.List;

/** A prefetch that records the addresses of every call, then loads them as core's own prefetch does. */
final class RecordingPrefetch implements CachePrefetch
{
    final List<List<Long>> calls = new ArrayList<>();

    @Override
    public long lines(final long addresses, final int count)
    {
        final List<Long> call = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            call.add(UnsafeApi.getLong(addresses + (long)i * Long.BYTES));
        }
        calls.add(call);
        return CachePrefetch.LOADS.lines(addresses, count);
    }
}
