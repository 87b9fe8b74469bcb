package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code struct tpacket_req}: the PACKET_RX_RING / PACKET_TX_RING argument for TPACKET_V1 and V2 rings.
 */
public final class TpacketReq
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("tp_block_size"),
        JAVA_INT.withName("tp_block_nr"),
        JAVA_INT.withName("tp_frame_size"),
        JAVA_INT.withName("tp_frame_nr")).withName("tpacket_req");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int BLOCK_SIZE_OFFSET = Layouts.offset(LAYOUT, "tp_block_size");
    public static final int BLOCK_NR_OFFSET = Layouts.offset(LAYOUT, "tp_block_nr");
    public static final int FRAME_SIZE_OFFSET = Layouts.offset(LAYOUT, "tp_frame_size");
    public static final int FRAME_NR_OFFSET = Layouts.offset(LAYOUT, "tp_frame_nr");

    private TpacketReq()
    {
    }
}
