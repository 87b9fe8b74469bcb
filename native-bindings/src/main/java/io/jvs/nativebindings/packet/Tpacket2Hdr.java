package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct tpacket2_hdr}, the header of each fixed-size frame of a TPACKET_V2 ring (the TX ring jvs uses).
 */
public final class Tpacket2Hdr
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("tp_status"),
        JAVA_INT.withName("tp_len"),
        JAVA_INT.withName("tp_snaplen"),
        JAVA_SHORT.withName("tp_mac"),
        JAVA_SHORT.withName("tp_net"),
        JAVA_INT.withName("tp_sec"),
        JAVA_INT.withName("tp_nsec"),
        JAVA_SHORT.withName("tp_vlan_tci"),
        JAVA_SHORT.withName("tp_vlan_tpid"),
        paddingLayout(4)).withName("tpacket2_hdr");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int STATUS_OFFSET = Layouts.offset(LAYOUT, "tp_status");
    public static final int LEN_OFFSET = Layouts.offset(LAYOUT, "tp_len");
    public static final int SNAPLEN_OFFSET = Layouts.offset(LAYOUT, "tp_snaplen");
    public static final int MAC_OFFSET = Layouts.offset(LAYOUT, "tp_mac");
    public static final int NET_OFFSET = Layouts.offset(LAYOUT, "tp_net");
    public static final int SEC_OFFSET = Layouts.offset(LAYOUT, "tp_sec");
    public static final int NSEC_OFFSET = Layouts.offset(LAYOUT, "tp_nsec");
    public static final int VLAN_TCI_OFFSET = Layouts.offset(LAYOUT, "tp_vlan_tci");
    public static final int VLAN_TPID_OFFSET = Layouts.offset(LAYOUT, "tp_vlan_tpid");

    /** TPACKET2_HDRLEN: the aligned header and the {@link SockaddrLl} the kernel writes after it. */
    public static final int HDRLEN = AfPacket.tpacketAlign(SIZE) + SockaddrLl.SIZE;
    /** Where a V2 TX frame's bytes go, from the frame's start. */
    public static final int TX_DATA_OFFSET = AfPacket.tpacketAlign(SIZE);

    private Tpacket2Hdr()
    {
    }
}
