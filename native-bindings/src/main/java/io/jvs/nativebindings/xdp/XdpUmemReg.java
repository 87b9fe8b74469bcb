package io.jvs.nativebindings.xdp;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code struct xdp_umem_reg}, the XDP_UMEM_REG option: the frame area shared with the kernel. This is the
 * 6.18 layout, 32 bytes with {@code tx_metadata_len}; the kernel also takes the older 24 and 28 byte forms.
 */
public final class XdpUmemReg
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_LONG.withName("addr"),
        JAVA_LONG.withName("len"),
        JAVA_INT.withName("chunk_size"),
        JAVA_INT.withName("headroom"),
        JAVA_INT.withName("flags"),
        JAVA_INT.withName("tx_metadata_len")).withName("xdp_umem_reg");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int ADDR_OFFSET = Layouts.offset(LAYOUT, "addr");
    public static final int LEN_OFFSET = Layouts.offset(LAYOUT, "len");
    public static final int CHUNK_SIZE_OFFSET = Layouts.offset(LAYOUT, "chunk_size");
    public static final int HEADROOM_OFFSET = Layouts.offset(LAYOUT, "headroom");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "flags");
    public static final int TX_METADATA_LEN_OFFSET = Layouts.offset(LAYOUT, "tx_metadata_len");

    /**
     * The headroom a chunk cannot give to the application: XDP_PACKET_HEADROOM (256), the skb_shared_info
     * (320) and 128 more, measured on 6.18; the largest headroom is chunk_size minus this.
     */
    public static final int RESERVED_PER_CHUNK = 704;

    private XdpUmemReg()
    {
    }
}
