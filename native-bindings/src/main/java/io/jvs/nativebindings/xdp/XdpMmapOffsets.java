package io.jvs.nativebindings.xdp;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;

/**
 * {@code struct xdp_mmap_offsets}, the XDP_MMAP_OFFSETS option: one {@link XdpRingOffset} per ring. Add an
 * {@link XdpRingOffset} field offset to a ring's offset here, e.g. {@code FILL_OFFSET + XdpRingOffset.DESC_OFFSET}.
 */
public final class XdpMmapOffsets
{
    public static final StructLayout LAYOUT = structLayout(
        XdpRingOffset.LAYOUT.withName("rx"),
        XdpRingOffset.LAYOUT.withName("tx"),
        XdpRingOffset.LAYOUT.withName("fr"),
        XdpRingOffset.LAYOUT.withName("cr")).withName("xdp_mmap_offsets");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int RX_OFFSET = Layouts.offset(LAYOUT, "rx");
    public static final int TX_OFFSET = Layouts.offset(LAYOUT, "tx");
    public static final int FILL_OFFSET = Layouts.offset(LAYOUT, "fr");
    public static final int COMPLETION_OFFSET = Layouts.offset(LAYOUT, "cr");

    private XdpMmapOffsets()
    {
    }
}
