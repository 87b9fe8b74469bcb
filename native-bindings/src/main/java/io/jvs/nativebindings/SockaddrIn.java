package io.jvs.nativebindings;

import java.lang.foreign.StructLayout;
import java.nio.ByteOrder;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * {@code struct sockaddr_in}: an IPv4 address and port, both in network byte order.
 */
public final class SockaddrIn
{
    public static final StructLayout LAYOUT = structLayout(
        JAVA_SHORT.withName("sin_family"),
        JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin_port"),
        JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN).withName("sin_addr"),
        paddingLayout(8).withName("sin_zero")).withName("sockaddr_in");

    public static final int SIZE = Layouts.size(LAYOUT);
    public static final int FAMILY_OFFSET = Layouts.offset(LAYOUT, "sin_family");
    public static final int PORT_OFFSET = Layouts.offset(LAYOUT, "sin_port");
    public static final int ADDR_OFFSET = Layouts.offset(LAYOUT, "sin_addr");

    /** 127.0.0.1, in host order. */
    public static final int INADDR_LOOPBACK = 0x7f00_0001;

    private SockaddrIn()
    {
    }
}
