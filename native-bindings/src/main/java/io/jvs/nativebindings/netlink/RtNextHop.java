package io.jvs.nativebindings.netlink;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct rtnexthop}: one path of a multipath route, an array of which makes RTA_MULTIPATH. Each is
 * followed by its own attributes (RTA_GATEWAY, RTA_VIA) within {@code rtnh_len}; {@code rtnh_hops} is the
 * weight less one.
 */
public final class RtNextHop
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_SHORT.withName("rtnh_len"),
        JAVA_BYTE.withName("rtnh_flags"),
        JAVA_BYTE.withName("rtnh_hops"),
        JAVA_INT.withName("rtnh_ifindex")).withName("rtnexthop");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int LEN_OFFSET = Layouts.offset(LAYOUT, "rtnh_len");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "rtnh_flags");
    public static final int HOPS_OFFSET = Layouts.offset(LAYOUT, "rtnh_hops");
    public static final int IFINDEX_OFFSET = Layouts.offset(LAYOUT, "rtnh_ifindex");

    private RtNextHop()
    {
    }
}
