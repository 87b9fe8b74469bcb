package io.jvs.nativebindings.netlink;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct sockaddr_nl}: a netlink socket's address. Port id 0 is the kernel; {@code nl_groups} is the
 * legacy bit mask of multicast groups 1 to 32 (jvs joins groups with NETLINK_ADD_MEMBERSHIP instead).
 */
public final class SockaddrNl
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_SHORT.withName("nl_family"),
        JAVA_SHORT.withName("nl_pad"),
        JAVA_INT.withName("nl_pid"),
        JAVA_INT.withName("nl_groups")).withName("sockaddr_nl");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FAMILY_OFFSET = Layouts.offset(LAYOUT, "nl_family");
    public static final int PID_OFFSET = Layouts.offset(LAYOUT, "nl_pid");
    public static final int GROUPS_OFFSET = Layouts.offset(LAYOUT, "nl_groups");

    private SockaddrNl()
    {
    }
}
