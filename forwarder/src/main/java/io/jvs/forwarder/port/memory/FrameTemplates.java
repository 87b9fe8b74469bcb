package io.jvs.forwarder.port.memory;

import io.jvs.core.packet.Frames;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;

/**
 * A {@link FrameSource} that replays fixed frames round-robin: template 0, 1, ..., n-1, 0, 1, ... The templates
 * are copied once into off-heap memory; each frame delivered is one memory copy.
 */
public final class FrameTemplates implements FrameSource
{
    /** Never run out. */
    public static final long FOREVER = Long.MAX_VALUE;

    /**
     * The templates' memory, held for as long as this source is: an automatic arena frees a segment once it is
     * unreachable, and {@link #addresses} alone would not keep it (a frame would then be copied from freed memory).
     */
    private final MemorySegment memory;
    private final long[] addresses;
    private final int[] lengths;
    private final int maxLength;
    private final long total;
    private long delivered;
    private int cursor;

    /**
     * @param total  how many frames to deliver in all before the source runs dry, or {@link #FOREVER}.
     * @param frames the templates, at least one, none empty.
     */
    public FrameTemplates(final long total, final byte[]... frames)
    {
        if (frames.length == 0)
        {
            throw new IllegalArgumentException("no template frames");
        }
        if (total < 0)
        {
            throw new IllegalArgumentException("negative frame count " + total);
        }
        long bytes = 0;
        int longest = 0;
        for (final byte[] frame : frames)
        {
            if (frame.length == 0)
            {
                throw new IllegalArgumentException("an empty template frame");
            }
            bytes += frame.length;
            longest = Math.max(longest, frame.length);
        }
        // Freed by the garbage collector once the source is unreachable (the field holds it until then).
        final MemorySegment memory = Arena.ofAuto().allocate(bytes, 64);
        this.memory = memory;
        this.addresses = new long[frames.length];
        this.lengths = new int[frames.length];
        long offset = 0;
        for (int i = 0; i < frames.length; i++)
        {
            MemorySegment.copy(frames[i], 0, memory, ValueLayout.JAVA_BYTE, offset, frames[i].length);
            addresses[i] = memory.address() + offset;
            lengths[i] = frames[i].length;
            offset += frames[i].length;
        }
        this.maxLength = longest;
        this.total = total;
    }

    /**
     * @param frames the templates, replayed forever.
     * @return the source.
     */
    public static FrameTemplates repeating(final byte[]... frames)
    {
        return new FrameTemplates(FOREVER, frames);
    }

    @Override
    public int next(final long address, final int capacity)
    {
        final int length = lengths[cursor];
        if (delivered == total || length > capacity)
        {
            return 0;
        }
        Frames.copy(addresses[cursor], address, length);
        // The copy read raw addresses: the segment must stay reachable until it is done.
        Reference.reachabilityFence(memory);
        cursor = cursor + 1 == lengths.length ? 0 : cursor + 1;
        delivered++;
        return length;
    }

    /**
     * @return the longest template: a port's buffers must hold it.
     */
    public int maxLength()
    {
        return maxLength;
    }

    /**
     * @return frames delivered so far.
     */
    public long delivered()
    {
        return delivered;
    }
}
