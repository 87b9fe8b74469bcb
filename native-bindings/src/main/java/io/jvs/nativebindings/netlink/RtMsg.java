package io.jvs.nativebindings.netlink;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code struct rtmsg}: the fixed part of RTM_NEWROUTE, RTM_DELROUTE and RTM_GETROUTE; RTA_* attributes follow.
 */
public final class RtMsg
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_BYTE.withName("rtm_family"),
        JAVA_BYTE.withName("rtm_dst_len"),
        JAVA_BYTE.withName("rtm_src_len"),
        JAVA_BYTE.withName("rtm_tos"),
        JAVA_BYTE.withName("rtm_table"),
        JAVA_BYTE.withName("rtm_protocol"),
        JAVA_BYTE.withName("rtm_scope"),
        JAVA_BYTE.withName("rtm_type"),
        JAVA_INT.withName("rtm_flags")).withName("rtmsg");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FAMILY_OFFSET = Layouts.offset(LAYOUT, "rtm_family");
    public static final int DST_LEN_OFFSET = Layouts.offset(LAYOUT, "rtm_dst_len");
    public static final int SRC_LEN_OFFSET = Layouts.offset(LAYOUT, "rtm_src_len");
    public static final int TOS_OFFSET = Layouts.offset(LAYOUT, "rtm_tos");
    public static final int TABLE_OFFSET = Layouts.offset(LAYOUT, "rtm_table");
    public static final int PROTOCOL_OFFSET = Layouts.offset(LAYOUT, "rtm_protocol");
    public static final int SCOPE_OFFSET = Layouts.offset(LAYOUT, "rtm_scope");
    public static final int TYPE_OFFSET = Layouts.offset(LAYOUT, "rtm_type");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "rtm_flags");

    private RtMsg()
    {
    }
}
