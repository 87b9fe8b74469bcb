package io.jvs.nativebindings.xdp;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * {@code struct xdp_desc}, an entry of the RX and TX rings: a frame's address in the UMEM and its length.
 */
public final class XdpDesc
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_LONG.withName("addr"),
        JAVA_INT.withName("len"),
        JAVA_INT.withName("options")).withName("xdp_desc");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int ADDR_OFFSET = Layouts.offset(LAYOUT, "addr");
    public static final int LEN_OFFSET = Layouts.offset(LAYOUT, "len");
    public static final int OPTIONS_OFFSET = Layouts.offset(LAYOUT, "options");

    private XdpDesc()
    {
    }
}
