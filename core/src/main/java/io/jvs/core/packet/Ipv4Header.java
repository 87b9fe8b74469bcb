package io.jvs.core.packet;

/**
 * The IPv4 header (RFC 791), read and written at the header's address.
 * <pre>
 *   0       4       8               16      19              31
 *   |version|  IHL  |      TOS      |          total length         |
 *   |        identification         |flags|    fragment offset      |
 *   |      TTL      |   protocol    |        header checksum        |
 *   |                        source address                         |
 *   |                     destination address                       |
 *   |                    options (IHL > 5) ...                      |
 * </pre>
 */
public final class Ipv4Header
{
    public static final int VERSION_IHL_OFFSET = 0;
    public static final int TOS_OFFSET = 1;
    public static final int TOTAL_LENGTH_OFFSET = 2;
    public static final int IDENTIFICATION_OFFSET = 4;
    public static final int FLAGS_FRAGMENT_OFFSET = 6;
    public static final int TTL_OFFSET = 8;
    public static final int PROTOCOL_OFFSET = 9;
    public static final int CHECKSUM_OFFSET = 10;
    public static final int SOURCE_OFFSET = 12;
    public static final int DESTINATION_OFFSET = 16;
    public static final int MIN_LENGTH = 20;

    public static final int FLAG_DONT_FRAGMENT = 0x4000;
    public static final int FLAG_MORE_FRAGMENTS = 0x2000;
    public static final int FRAGMENT_OFFSET_MASK = 0x1FFF;

    public static final int PROTOCOL_ICMP = 1;
    public static final int PROTOCOL_IPIP = 4;
    public static final int PROTOCOL_TCP = 6;
    public static final int PROTOCOL_UDP = 17;
    public static final int PROTOCOL_IPV6 = 41;
    public static final int PROTOCOL_GRE = 47;
    public static final int PROTOCOL_ICMPV6 = 58;
    public static final int PROTOCOL_SCTP = 132;

    private Ipv4Header()
    {
    }

    public static int version(final long header)
    {
        return Frames.u8(header) >>> 4;
    }

    /**
     * @return the header length in bytes (IHL * 4).
     */
    public static int headerLength(final long header)
    {
        return (Frames.u8(header) & 0x0F) << 2;
    }

    public static int totalLength(final long header)
    {
        return Frames.u16(header + TOTAL_LENGTH_OFFSET);
    }

    public static int identification(final long header)
    {
        return Frames.u16(header + IDENTIFICATION_OFFSET);
    }

    /**
     * @return flags and fragment offset as one 16-bit word.
     */
    public static int flagsAndFragment(final long header)
    {
        return Frames.u16(header + FLAGS_FRAGMENT_OFFSET);
    }

    public static int ttl(final long header)
    {
        return Frames.u8(header + TTL_OFFSET);
    }

    public static int protocol(final long header)
    {
        return Frames.u8(header + PROTOCOL_OFFSET);
    }

    public static int checksum(final long header)
    {
        return Frames.u16(header + CHECKSUM_OFFSET);
    }

    public static int source(final long header)
    {
        return Frames.i32(header + SOURCE_OFFSET);
    }

    public static int destination(final long header)
    {
        return Frames.i32(header + DESTINATION_OFFSET);
    }

    public static void source(final long header, final int address)
    {
        Frames.putI32(header + SOURCE_OFFSET, address);
    }

    public static void destination(final long header, final int address)
    {
        Frames.putI32(header + DESTINATION_OFFSET, address);
    }

    public static void checksum(final long header, final int checksum)
    {
        Frames.putU16(header + CHECKSUM_OFFSET, checksum);
    }

    public static void ttl(final long header, final int ttl)
    {
        Frames.putU8(header + TTL_OFFSET, ttl);
    }

    public static void totalLength(final long header, final int length)
    {
        Frames.putU16(header + TOTAL_LENGTH_OFFSET, length);
    }
}
