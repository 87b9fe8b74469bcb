package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code struct tpacket_req3}: the ring request for TPACKET_V3, a {@link TpacketReq} plus the block retire
 * timeout (the worst-case delay of a frame at low rate), a private area per block and feature requests.
 */
public final class TpacketReq3
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("tp_block_size"),
        JAVA_INT.withName("tp_block_nr"),
        JAVA_INT.withName("tp_frame_size"),
        JAVA_INT.withName("tp_frame_nr"),
        JAVA_INT.withName("tp_retire_blk_tov"),
        JAVA_INT.withName("tp_sizeof_priv"),
        JAVA_INT.withName("tp_feature_req_word")).withName("tpacket_req3");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int BLOCK_SIZE_OFFSET = Layouts.offset(LAYOUT, "tp_block_size");
    public static final int BLOCK_NR_OFFSET = Layouts.offset(LAYOUT, "tp_block_nr");
    public static final int FRAME_SIZE_OFFSET = Layouts.offset(LAYOUT, "tp_frame_size");
    public static final int FRAME_NR_OFFSET = Layouts.offset(LAYOUT, "tp_frame_nr");
    public static final int RETIRE_BLK_TOV_OFFSET = Layouts.offset(LAYOUT, "tp_retire_blk_tov");
    public static final int SIZEOF_PRIV_OFFSET = Layouts.offset(LAYOUT, "tp_sizeof_priv");
    public static final int FEATURE_REQ_WORD_OFFSET = Layouts.offset(LAYOUT, "tp_feature_req_word");

    /** {@code tp_feature_req_word}: fill {@code tp_rxhash} in each frame header. */
    public static final int TP_FT_REQ_FILL_RXHASH = 1;

    private TpacketReq3()
    {
    }
}
