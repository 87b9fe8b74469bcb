package io.jvs.nativebindings.netlink;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code struct ifaddrmsg}: the fixed part of RTM_NEWADDR, RTM_DELADDR and RTM_GETADDR; IFA_* attributes follow.
 * IFA_FLAGS, when present, carries all the flags and overrides the 8 bits of {@code ifa_flags}.
 */
public final class IfAddrMsg
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_BYTE.withName("ifa_family"),
        JAVA_BYTE.withName("ifa_prefixlen"),
        JAVA_BYTE.withName("ifa_flags"),
        JAVA_BYTE.withName("ifa_scope"),
        JAVA_INT.withName("ifa_index")).withName("ifaddrmsg");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FAMILY_OFFSET = Layouts.offset(LAYOUT, "ifa_family");
    public static final int PREFIXLEN_OFFSET = Layouts.offset(LAYOUT, "ifa_prefixlen");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "ifa_flags");
    public static final int SCOPE_OFFSET = Layouts.offset(LAYOUT, "ifa_scope");
    public static final int INDEX_OFFSET = Layouts.offset(LAYOUT, "ifa_index");

    private IfAddrMsg()
    {
    }
}
