package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct tpacket3_hdr}, the header of a frame in a TPACKET_V3 block (and of a V3 TX frame, where
 * {@code tp_next_offset} must be 0). The frame's bytes start at {@code tp_mac} from the header. The
 * {@code hv1} variant carries the RX hash and the VLAN tag the device stripped.
 */
public final class Tpacket3Hdr
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("tp_next_offset"),
        JAVA_INT.withName("tp_sec"),
        JAVA_INT.withName("tp_nsec"),
        JAVA_INT.withName("tp_snaplen"),
        JAVA_INT.withName("tp_len"),
        JAVA_INT.withName("tp_status"),
        JAVA_SHORT.withName("tp_mac"),
        JAVA_SHORT.withName("tp_net"),
        structLayout(
            JAVA_INT.withName("tp_rxhash"),
            JAVA_INT.withName("tp_vlan_tci"),
            JAVA_SHORT.withName("tp_vlan_tpid"),
            paddingLayout(2)).withName("hv1"),
        paddingLayout(8)).withName("tpacket3_hdr");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int NEXT_OFFSET_OFFSET = Layouts.offset(LAYOUT, "tp_next_offset");
    public static final int SEC_OFFSET = Layouts.offset(LAYOUT, "tp_sec");
    public static final int NSEC_OFFSET = Layouts.offset(LAYOUT, "tp_nsec");
    public static final int SNAPLEN_OFFSET = Layouts.offset(LAYOUT, "tp_snaplen");
    public static final int LEN_OFFSET = Layouts.offset(LAYOUT, "tp_len");
    public static final int STATUS_OFFSET = Layouts.offset(LAYOUT, "tp_status");
    public static final int MAC_OFFSET = Layouts.offset(LAYOUT, "tp_mac");
    public static final int NET_OFFSET = Layouts.offset(LAYOUT, "tp_net");
    public static final int RXHASH_OFFSET = Layouts.offset(LAYOUT, "hv1", "tp_rxhash");
    public static final int VLAN_TCI_OFFSET = Layouts.offset(LAYOUT, "hv1", "tp_vlan_tci");
    public static final int VLAN_TPID_OFFSET = Layouts.offset(LAYOUT, "hv1", "tp_vlan_tpid");

    /** TPACKET3_HDRLEN: the aligned header and the {@link SockaddrLl} the kernel writes after it. */
    public static final int HDRLEN = AfPacket.tpacketAlign(SIZE) + SockaddrLl.SIZE;
    /** Where a V3 TX frame's bytes go, from the frame's start (the kernel reads them there by default). */
    public static final int TX_DATA_OFFSET = AfPacket.tpacketAlign(SIZE);

    private Tpacket3Hdr()
    {
    }
}
