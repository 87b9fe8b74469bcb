package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code struct tpacket_stats}, PACKET_STATISTICS of a socket without a ring or with a V1/V2 ring.
 * {@code tp_packets} counts the frames received including the dropped ones.
 */
public final class TpacketStats
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("tp_packets"),
        JAVA_INT.withName("tp_drops")).withName("tpacket_stats");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int PACKETS_OFFSET = Layouts.offset(LAYOUT, "tp_packets");
    public static final int DROPS_OFFSET = Layouts.offset(LAYOUT, "tp_drops");

    private TpacketStats()
    {
    }
}
