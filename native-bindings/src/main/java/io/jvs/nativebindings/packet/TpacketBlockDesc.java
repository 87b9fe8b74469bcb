package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code struct tpacket_block_desc}, the start of every TPACKET_V3 block. The block belongs to user space
 * while {@code block_status} has TP_STATUS_USER; the frames follow from {@code offset_to_first_pkt}, each
 * {@link Tpacket3Hdr} giving the offset of the next. Offsets here are from the block's start.
 */
public final class TpacketBlockDesc
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("version"),
        JAVA_INT.withName("offset_to_priv"),
        TpacketHdrV1.LAYOUT.withName("hdr")).withName("tpacket_block_desc");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int VERSION_OFFSET = Layouts.offset(LAYOUT, "version");
    public static final int OFFSET_TO_PRIV_OFFSET = Layouts.offset(LAYOUT, "offset_to_priv");
    public static final int HDR_OFFSET = Layouts.offset(LAYOUT, "hdr");
    public static final int BLOCK_STATUS_OFFSET = Layouts.offset(LAYOUT, "hdr", "block_status");
    public static final int NUM_PKTS_OFFSET = Layouts.offset(LAYOUT, "hdr", "num_pkts");
    public static final int OFFSET_TO_FIRST_PKT_OFFSET = Layouts.offset(LAYOUT, "hdr", "offset_to_first_pkt");
    public static final int BLK_LEN_OFFSET = Layouts.offset(LAYOUT, "hdr", "blk_len");
    public static final int SEQ_NUM_OFFSET = Layouts.offset(LAYOUT, "hdr", "seq_num");

    private TpacketBlockDesc()
    {
    }
}
