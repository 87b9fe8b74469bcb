package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code struct tpacket_stats_v3}, PACKET_STATISTICS of a socket with a TPACKET_V3 ring. {@code
 * tp_freeze_q_cnt} counts the times the ring was full and the queue froze until user space freed a block.
 */
public final class TpacketStatsV3
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("tp_packets"),
        JAVA_INT.withName("tp_drops"),
        JAVA_INT.withName("tp_freeze_q_cnt")).withName("tpacket_stats_v3");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int PACKETS_OFFSET = Layouts.offset(LAYOUT, "tp_packets");
    public static final int DROPS_OFFSET = Layouts.offset(LAYOUT, "tp_drops");
    public static final int FREEZE_Q_CNT_OFFSET = Layouts.offset(LAYOUT, "tp_freeze_q_cnt");

    private TpacketStatsV3()
    {
    }
}
