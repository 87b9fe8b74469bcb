package io.jvs.nativebindings.xdp;

import java.lang.foreign.StructLayout;

import io.jvs.nativebindings.Layouts;

import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct sockaddr_xdp}: what an AF_XDP socket binds to (device, queue, mode, shared UMEM).
 */
public final class SockaddrXdp
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_SHORT.withName("sxdp_family"),
        JAVA_SHORT.withName("sxdp_flags"),
        JAVA_INT.withName("sxdp_ifindex"),
        JAVA_INT.withName("sxdp_queue_id"),
        JAVA_INT.withName("sxdp_shared_umem_fd")).withName("sockaddr_xdp");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FAMILY_OFFSET = Layouts.offset(LAYOUT, "sxdp_family");
    public static final int FLAGS_OFFSET = Layouts.offset(LAYOUT, "sxdp_flags");
    public static final int IFINDEX_OFFSET = Layouts.offset(LAYOUT, "sxdp_ifindex");
    public static final int QUEUE_ID_OFFSET = Layouts.offset(LAYOUT, "sxdp_queue_id");
    public static final int SHARED_UMEM_FD_OFFSET = Layouts.offset(LAYOUT, "sxdp_shared_umem_fd");

    private SockaddrXdp()
    {
    }
}
