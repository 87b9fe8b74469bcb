package io.jvs.nativebindings.packet;

import java.lang.foreign.StructLayout;
import java.nio.ByteOrder;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.sequenceLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct sockaddr_ll}: the link-level address an AF_PACKET socket binds to, and that follows each
 * frame header in a ring. {@code sll_protocol} is in network byte order.
 */
public final class SockaddrLl
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_SHORT.withName("sll_family"),
        JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withName("sll_protocol"),
        JAVA_INT.withName("sll_ifindex"),
        JAVA_SHORT.withName("sll_hatype"),
        JAVA_BYTE.withName("sll_pkttype"),
        JAVA_BYTE.withName("sll_halen"),
        sequenceLayout(8, JAVA_BYTE).withName("sll_addr")).withName("sockaddr_ll");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FAMILY_OFFSET = Layouts.offset(LAYOUT, "sll_family");
    public static final int PROTOCOL_OFFSET = Layouts.offset(LAYOUT, "sll_protocol");
    public static final int IFINDEX_OFFSET = Layouts.offset(LAYOUT, "sll_ifindex");
    public static final int HATYPE_OFFSET = Layouts.offset(LAYOUT, "sll_hatype");
    public static final int PKTTYPE_OFFSET = Layouts.offset(LAYOUT, "sll_pkttype");
    public static final int HALEN_OFFSET = Layouts.offset(LAYOUT, "sll_halen");
    public static final int ADDR_OFFSET = Layouts.offset(LAYOUT, "sll_addr");

    private SockaddrLl()
    {
    }
}
