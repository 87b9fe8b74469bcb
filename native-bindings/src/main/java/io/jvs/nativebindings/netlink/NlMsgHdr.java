package io.jvs.nativebindings.netlink;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct nlmsghdr}: the header of every netlink message, in host byte order. {@code nlmsg_len} counts
 * the header and the payload; the next message starts at the length rounded up to 4 bytes.
 */
public final class NlMsgHdr
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_INT.withName("nlmsg_len"),
        JAVA_SHORT.withName("nlmsg_type"),
        JAVA_SHORT.withName("nlmsg_flags"),
        JAVA_INT.withName("nlmsg_seq"),
        JAVA_INT.withName("nlmsg_pid")).withName("nlmsghdr");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int LEN_OFFSET = Layouts.offset(LAYOUT, "nlmsg_len");
    public static final int TYPE_OFFSET = Layouts.offset(LAYOUT, "nlmsg_type");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "nlmsg_flags");
    public static final int SEQ_OFFSET = Layouts.offset(LAYOUT, "nlmsg_seq");
    public static final int PID_OFFSET = Layouts.offset(LAYOUT, "nlmsg_pid");

    private NlMsgHdr()
    {
    }
}
