package io.jvs.core.packet;

/**
 * Offsets of the upper-layer headers jvs reads and rewrites: TCP (RFC 9293), UDP (RFC 768), SCTP's
 * common header (RFC 9260), ICMP (RFC 792) and ICMPv6 (RFC 4443).
 * <pre>
 *   TCP:  | src port | dst port | seq (4) | ack (4) | off/flags (2) | window | checksum | urg | options
 *   UDP:  | src port | dst port | length | checksum |
 *   SCTP: | src port | dst port | verification tag (4) | CRC32c (4) |
 *   ICMP: | type | code | checksum | rest of header (4) | (errors:) the offending IP header + 8 bytes
 * </pre>
 */
public final class L4Headers
{
    public static final int SOURCE_PORT_OFFSET = 0;
    public static final int DESTINATION_PORT_OFFSET = 2;

    public static final int TCP_DATA_OFFSET_OFFSET = 12;
    public static final int TCP_FLAGS_OFFSET = 13;
    public static final int TCP_CHECKSUM_OFFSET = 16;
    public static final int TCP_MIN_LENGTH = 20;
    public static final int TCP_FIN = 0x01;
    public static final int TCP_SYN = 0x02;
    public static final int TCP_RST = 0x04;
    public static final int TCP_ACK = 0x10;
    public static final int TCP_OPTION_END = 0;
    public static final int TCP_OPTION_NOP = 1;
    public static final int TCP_OPTION_MSS = 2;

    public static final int UDP_LENGTH_OFFSET = 4;
    public static final int UDP_CHECKSUM_OFFSET = 6;
    public static final int UDP_LENGTH = 8;

    public static final int SCTP_CHECKSUM_OFFSET = 8;
    public static final int SCTP_COMMON_LENGTH = 12;

    public static final int ICMP_TYPE_OFFSET = 0;
    public static final int ICMP_CODE_OFFSET = 1;
    public static final int ICMP_CHECKSUM_OFFSET = 2;
    /** Bytes 4..7: echo id/sequence, the next-hop MTU of frag-needed, the MTU of packet-too-big. */
    public static final int ICMP_REST_OFFSET = 4;
    public static final int ICMP_HEADER_LENGTH = 8;

    public static final int ICMP_ECHO_REPLY = 0;
    public static final int ICMP_DESTINATION_UNREACHABLE = 3;
    public static final int ICMP_SOURCE_QUENCH = 4;
    public static final int ICMP_REDIRECT = 5;
    public static final int ICMP_ECHO_REQUEST = 8;
    public static final int ICMP_TIME_EXCEEDED = 11;
    public static final int ICMP_PARAMETER_PROBLEM = 12;
    public static final int ICMP_CODE_HOST_UNREACHABLE = 1;
    public static final int ICMP_CODE_PORT_UNREACHABLE = 3;
    public static final int ICMP_CODE_FRAGMENTATION_NEEDED = 4;

    public static final int ICMPV6_DESTINATION_UNREACHABLE = 1;
    public static final int ICMPV6_PACKET_TOO_BIG = 2;
    public static final int ICMPV6_TIME_EXCEEDED = 3;
    public static final int ICMPV6_PARAMETER_PROBLEM = 4;
    public static final int ICMPV6_CODE_ADDRESS_UNREACHABLE = 3;
    public static final int ICMPV6_CODE_PORT_UNREACHABLE = 4;
    public static final int ICMPV6_ECHO_REQUEST = 128;
    public static final int ICMPV6_ECHO_REPLY = 129;

    private L4Headers()
    {
    }

    /**
     * @param type an ICMP (IPv4) type.
     * @return true for the error messages that carry the offending packet.
     */
    public static boolean isIcmpError(final int type)
    {
        return type == ICMP_DESTINATION_UNREACHABLE || type == ICMP_SOURCE_QUENCH || type == ICMP_REDIRECT ||
            type == ICMP_TIME_EXCEEDED || type == ICMP_PARAMETER_PROBLEM;
    }

    /**
     * @param type an ICMPv6 type.
     * @return true for the error messages (types below 128) that carry the offending packet.
     */
    public static boolean isIcmpv6Error(final int type)
    {
        return type >= ICMPV6_DESTINATION_UNREACHABLE && type <= ICMPV6_PARAMETER_PROBLEM;
    }
}
