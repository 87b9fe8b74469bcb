package io.jvs.nativebindings.netlink;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct ndmsg}: the fixed part of RTM_NEWNEIGH, RTM_DELNEIGH and RTM_GETNEIGH; NDA_* attributes follow.
 */
public final class NdMsg
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_BYTE.withName("ndm_family"),
        JAVA_BYTE.withName("ndm_pad1"),
        JAVA_SHORT.withName("ndm_pad2"),
        JAVA_INT.withName("ndm_ifindex"),
        JAVA_SHORT.withName("ndm_state"),
        JAVA_BYTE.withName("ndm_flags"),
        JAVA_BYTE.withName("ndm_type")).withName("ndmsg");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FAMILY_OFFSET = Layouts.offset(LAYOUT, "ndm_family");
    public static final int IFINDEX_OFFSET = Layouts.offset(LAYOUT, "ndm_ifindex");
    public static final int STATE_OFFSET = Layouts.offset(LAYOUT, "ndm_state");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "ndm_flags");
    public static final int TYPE_OFFSET = Layouts.offset(LAYOUT, "ndm_type");

    private NdMsg()
    {
    }
}
