package io.jvs.core.packet;

/**
 * ARP for IPv4 over Ethernet (RFC 826): 28 bytes after the Ethernet header.
 * <pre>
 *   | hw type (1) | proto type (0800) | hw len (6) | proto len (4) | opcode |
 *   | sender MAC (6) | sender IP (4) | target MAC (6) | target IP (4) |
 * </pre>
 */
public final class ArpHeader
{
    public static final int OPCODE_OFFSET = 6;
    public static final int SENDER_MAC_OFFSET = 8;
    public static final int SENDER_IP_OFFSET = 14;
    public static final int TARGET_MAC_OFFSET = 18;
    public static final int TARGET_IP_OFFSET = 24;
    public static final int LENGTH = 28;

    public static final int OPCODE_REQUEST = 1;
    public static final int OPCODE_REPLY = 2;

    private ArpHeader()
    {
    }

    /**
     * @return true for Ethernet hardware (1), IPv4 protocol (0x0800) and the matching address lengths.
     */
    public static boolean isEthernetIpv4(final long header)
    {
        return Frames.u16(header) == 1 && Frames.u16(header + 2) == EthernetHeader.TYPE_IPV4 &&
            Frames.u8(header + 4) == 6 && Frames.u8(header + 5) == 4;
    }

    public static int opcode(final long header)
    {
        return Frames.u16(header + OPCODE_OFFSET);
    }

    public static long senderMac(final long header)
    {
        return ((long)Frames.u16(header + SENDER_MAC_OFFSET) << 32) |
            (Frames.i32(header + SENDER_MAC_OFFSET + 2) & 0xFFFF_FFFFL);
    }

    public static int senderIp(final long header)
    {
        return Frames.i32(header + SENDER_IP_OFFSET);
    }

    public static int targetIp(final long header)
    {
        return Frames.i32(header + TARGET_IP_OFFSET);
    }
}
