package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code struct tpacket_hdr_v1}, the header of a TPACKET_V3 block, inside {@link TpacketBlockDesc}. The
 * offsets here are from the header; {@link TpacketBlockDesc} gives them from the block's start. The two
 * timestamps are {@code struct tpacket_bd_ts} (seconds, then micro- or nanoseconds).
 */
public final class TpacketHdrV1
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("block_status"),
        JAVA_INT.withName("num_pkts"),
        JAVA_INT.withName("offset_to_first_pkt"),
        JAVA_INT.withName("blk_len"),
        JAVA_LONG.withName("seq_num"),
        structLayout(JAVA_INT.withName("ts_sec"), JAVA_INT.withName("ts_nsec")).withName("ts_first_pkt"),
        structLayout(JAVA_INT.withName("ts_sec"), JAVA_INT.withName("ts_nsec")).withName("ts_last_pkt"))
        .withName("tpacket_hdr_v1");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int BLOCK_STATUS_OFFSET = Layouts.offset(LAYOUT, "block_status");
    public static final int NUM_PKTS_OFFSET = Layouts.offset(LAYOUT, "num_pkts");
    public static final int OFFSET_TO_FIRST_PKT_OFFSET = Layouts.offset(LAYOUT, "offset_to_first_pkt");
    public static final int BLK_LEN_OFFSET = Layouts.offset(LAYOUT, "blk_len");
    public static final int SEQ_NUM_OFFSET = Layouts.offset(LAYOUT, "seq_num");
    public static final int TS_FIRST_PKT_OFFSET = Layouts.offset(LAYOUT, "ts_first_pkt");
    public static final int TS_LAST_PKT_OFFSET = Layouts.offset(LAYOUT, "ts_last_pkt");

    private TpacketHdrV1()
    {
    }
}
