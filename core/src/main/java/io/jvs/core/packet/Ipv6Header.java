package io.jvs.core.packet;

/**
 * The IPv6 fixed header (RFC 8200) and the extension headers jvs steps over.
 * <pre>
 *   0       4               12                              31
 *   |version| traffic class |           flow label           |
 *   |        payload length         |  next header  | hop lim |
 *   |                 source address (16 bytes)              |
 *   |              destination address (16 bytes)            |
 * </pre>
 * Extension headers (hop-by-hop 0, routing 43, destination options 60) hold their next header in byte 0
 * and their length in 8-byte units, not counting the first 8, in byte 1. The fragment header (44) is 8
 * bytes: next header, reserved, offset (13 bits) | 2 reserved | M, then a 32-bit identification.
 */
public final class Ipv6Header
{
    public static final int PAYLOAD_LENGTH_OFFSET = 4;
    public static final int NEXT_HEADER_OFFSET = 6;
    public static final int HOP_LIMIT_OFFSET = 7;
    public static final int SOURCE_OFFSET = 8;
    public static final int DESTINATION_OFFSET = 24;
    public static final int LENGTH = 40;

    public static final int NEXT_HOP_BY_HOP = 0;
    public static final int NEXT_ROUTING = 43;
    public static final int NEXT_FRAGMENT = 44;
    public static final int NEXT_ESP = 50;
    public static final int NEXT_AH = 51;
    public static final int NEXT_NONE = 59;
    public static final int NEXT_DESTINATION_OPTIONS = 60;

    public static final int FRAGMENT_HEADER_LENGTH = 8;
    public static final int FRAGMENT_OFFSET_MASK = 0xFFF8;
    public static final int FRAGMENT_MORE = 0x0001;

    private Ipv6Header()
    {
    }

    public static int version(final long header)
    {
        return Frames.u8(header) >>> 4;
    }

    public static int payloadLength(final long header)
    {
        return Frames.u16(header + PAYLOAD_LENGTH_OFFSET);
    }

    public static int nextHeader(final long header)
    {
        return Frames.u8(header + NEXT_HEADER_OFFSET);
    }

    public static int hopLimit(final long header)
    {
        return Frames.u8(header + HOP_LIMIT_OFFSET);
    }

    public static void hopLimit(final long header, final int hopLimit)
    {
        Frames.putU8(header + HOP_LIMIT_OFFSET, hopLimit);
    }

    public static void payloadLength(final long header, final int length)
    {
        Frames.putU16(header + PAYLOAD_LENGTH_OFFSET, length);
    }

    public static long sourceHigh(final long header)
    {
        return Frames.i64(header + SOURCE_OFFSET);
    }

    public static long sourceLow(final long header)
    {
        return Frames.i64(header + SOURCE_OFFSET + 8);
    }

    public static long destinationHigh(final long header)
    {
        return Frames.i64(header + DESTINATION_OFFSET);
    }

    public static long destinationLow(final long header)
    {
        return Frames.i64(header + DESTINATION_OFFSET + 8);
    }

    public static void source(final long header, final long high, final long low)
    {
        Frames.putI64(header + SOURCE_OFFSET, high);
        Frames.putI64(header + SOURCE_OFFSET + 8, low);
    }

    public static void destination(final long header, final long high, final long low)
    {
        Frames.putI64(header + DESTINATION_OFFSET, high);
        Frames.putI64(header + DESTINATION_OFFSET + 8, low);
    }

    /**
     * @param nextHeader a next-header value.
     * @return true for the extension headers jvs steps over to reach the upper layer.
     */
    public static boolean isSkippableExtension(final int nextHeader)
    {
        return nextHeader == NEXT_HOP_BY_HOP || nextHeader == NEXT_ROUTING || nextHeader == NEXT_DESTINATION_OPTIONS;
    }
}
