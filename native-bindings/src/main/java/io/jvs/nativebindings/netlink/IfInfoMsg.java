package io.jvs.nativebindings.netlink;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct ifinfomsg}: the fixed part of RTM_NEWLINK, RTM_DELLINK and RTM_GETLINK; IFLA_* attributes follow.
 * {@code ifi_type} is the ARPHRD_* hardware type (1 for Ethernet, 772 for loopback).
 */
public final class IfInfoMsg
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_BYTE.withName("ifi_family"),
        JAVA_BYTE.withName("__ifi_pad"),
        JAVA_SHORT.withName("ifi_type"),
        JAVA_INT.withName("ifi_index"),
        JAVA_INT.withName("ifi_flags"),
        JAVA_INT.withName("ifi_change")).withName("ifinfomsg");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FAMILY_OFFSET = Layouts.offset(LAYOUT, "ifi_family");
    public static final int TYPE_OFFSET = Layouts.offset(LAYOUT, "ifi_type");
    public static final int INDEX_OFFSET = Layouts.offset(LAYOUT, "ifi_index");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "ifi_flags");
    public static final int CHANGE_OFFSET = Layouts.offset(LAYOUT, "ifi_change");

    private IfInfoMsg()
    {
    }
}
