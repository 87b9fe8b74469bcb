package io.jvs.nativebindings.xdp;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code struct xdp_ring_offset}: where, in one ring's mapping, the kernel put the producer and consumer
 * indexes, the descriptors and the flags word. Read them from XDP_MMAP_OFFSETS, never assume them.
 */
public final class XdpRingOffset
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_LONG.withName("producer"),
        JAVA_LONG.withName("consumer"),
        JAVA_LONG.withName("desc"),
        JAVA_LONG.withName("flags")).withName("xdp_ring_offset");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int PRODUCER_OFFSET = Layouts.offset(LAYOUT, "producer");
    public static final int CONSUMER_OFFSET = Layouts.offset(LAYOUT, "consumer");
    public static final int DESC_OFFSET = Layouts.offset(LAYOUT, "desc");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "flags");

    private XdpRingOffset()
    {
    }
}
