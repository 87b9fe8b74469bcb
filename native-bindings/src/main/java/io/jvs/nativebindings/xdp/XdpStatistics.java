package io.jvs.nativebindings.xdp;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code struct xdp_statistics}, the XDP_STATISTICS option, 48 bytes since Linux 5.9 (24 before).
 * {@code tx_ring_empty_descs} counts every kick that found the TX ring empty: it is not an error counter.
 */
public final class XdpStatistics
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_LONG.withName("rx_dropped"),
        JAVA_LONG.withName("rx_invalid_descs"),
        JAVA_LONG.withName("tx_invalid_descs"),
        JAVA_LONG.withName("rx_ring_full"),
        JAVA_LONG.withName("rx_fill_ring_empty_descs"),
        JAVA_LONG.withName("tx_ring_empty_descs")).withName("xdp_statistics");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int RX_DROPPED_OFFSET = Layouts.offset(LAYOUT, "rx_dropped");
    public static final int RX_INVALID_DESCS_OFFSET = Layouts.offset(LAYOUT, "rx_invalid_descs");
    public static final int TX_INVALID_DESCS_OFFSET = Layouts.offset(LAYOUT, "tx_invalid_descs");
    public static final int RX_RING_FULL_OFFSET = Layouts.offset(LAYOUT, "rx_ring_full");
    public static final int RX_FILL_RING_EMPTY_DESCS_OFFSET = Layouts.offset(LAYOUT, "rx_fill_ring_empty_descs");
    public static final int TX_RING_EMPTY_DESCS_OFFSET = Layouts.offset(LAYOUT, "tx_ring_empty_descs");

    private XdpStatistics()
    {
    }
}
