package io.jvs.nativebindings.bpf;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * Ethernet frames for running XDP programs on: optional VLAN tags, then IPv4, IPv6 or any EtherType.
 * Checksums are left zero: the programs under test never read them.
 */
final class TestFrame
{
    static final int TPID_8021Q = 0x8100;
    static final int TPID_8021AD = 0x88a8;
    static final int ETH_P_IPV4 = 0x0800;
    static final int ETH_P_IPV6 = 0x86dd;
    static final int ETH_P_ARP = 0x0806;
    static final int IPPROTO_ICMP = 1;
    static final int IPPROTO_UDP = 17;
    static final int IPPROTO_ICMPV6 = 58;
    static final int IPPROTO_FRAGMENT = 44;

    private final List<Integer> tags = new ArrayList<>();

    /** Adds a VLAN tag (outermost first) with this TPID. */
    TestFrame tag(final int tpid)
    {
        tags.add(tpid);
        return this;
    }

    /** IPv4 with an 8-byte UDP header and {@code payloadBytes} more. */
    byte[] ipv4(final String source, final String destination, final int payloadBytes)
    {
        final ByteArrayOutputStream ip = new ByteArrayOutputStream();
        final int totalLength = 20 + 8 + payloadBytes;
        ip.writeBytes(new byte[] {0x45, 0, (byte)(totalLength >> 8), (byte)totalLength, 0, 1, 0x40, 0, 64,
            IPPROTO_UDP, 0, 0});
        ip.writeBytes(address(source));
        ip.writeBytes(address(destination));
        ip.writeBytes(new byte[8 + payloadBytes]);
        return ethernet(ETH_P_IPV4, ip.toByteArray());
    }

    /**
     * IPv4 carrying an ICMP message of {@code type} (8 echo request, 0 echo reply, 3 unreachable, ...) with 8
     * more bytes, behind {@code optionWords} 32-bit words of IP options.
     *
     * @param fragment the flags-and-fragment-offset word (0x2000 more fragments, 0x0001 offset 8 bytes, ...).
     */
    byte[] icmpv4(final String source, final String destination, final int type, final int fragment,
        final int optionWords)
    {
        final ByteArrayOutputStream ip = new ByteArrayOutputStream();
        final int headerLength = 20 + 4 * optionWords;
        final int totalLength = headerLength + 16;
        ip.writeBytes(new byte[] {(byte)(0x40 | headerLength / 4), 0, (byte)(totalLength >> 8), (byte)totalLength, 0,
            1, (byte)(fragment >> 8), (byte)fragment, 64, IPPROTO_ICMP, 0, 0});
        ip.writeBytes(address(source));
        ip.writeBytes(address(destination));
        for (int i = 0; i < optionWords; i++)
        {
            ip.writeBytes(new byte[] {1, 1, 1, 1});
        }
        final byte[] icmp = new byte[16];
        icmp[0] = (byte)type;
        ip.writeBytes(icmp);
        return ethernet(ETH_P_IPV4, ip.toByteArray());
    }

    /**
     * An ICMP error of {@code type} quoting the IP header and 8 bytes of {@code quotedFrame} (an untagged frame),
     * behind {@code optionWords} words of IP options.
     */
    byte[] icmpv4Error(final String source, final String destination, final int type, final byte[] quotedFrame,
        final int optionWords)
    {
        return icmpv4Error(source, destination, type, quotedFrame, optionWords, 28);
    }

    /** As {@link #icmpv4Error(String, String, int, byte[], int)}, quoting up to {@code quoteBytes} of the packet. */
    byte[] icmpv4Error(final String source, final String destination, final int type, final byte[] quotedFrame,
        final int optionWords, final int quoteBytes)
    {
        final ByteArrayOutputStream ip = new ByteArrayOutputStream();
        final int quoted = Math.min(quoteBytes, quotedFrame.length - 14);
        final int headerLength = 20 + 4 * optionWords;
        final int totalLength = headerLength + 8 + quoted;
        ip.writeBytes(new byte[] {(byte)(0x40 | headerLength / 4), 0, (byte)(totalLength >> 8), (byte)totalLength, 0,
            1, 0, 0, 64, IPPROTO_ICMP, 0, 0});
        ip.writeBytes(address(source));
        ip.writeBytes(address(destination));
        for (int i = 0; i < optionWords; i++)
        {
            ip.writeBytes(new byte[] {1, 1, 1, 1});
        }
        ip.writeBytes(new byte[] {(byte)type, 0, 0, 0, 0, 0, 0, 0});
        ip.write(quotedFrame, 14, quoted);
        return ethernet(ETH_P_IPV4, ip.toByteArray());
    }

    /** An IPv4 packet in IP in IP: an outer header from {@code source} to {@code destination} around {@code inner}. */
    static byte[] ipip(final String source, final String destination, final byte[] innerFrame)
    {
        final int innerLength = innerFrame.length - 14;
        final ByteArrayOutputStream ip = new ByteArrayOutputStream();
        ip.writeBytes(new byte[] {0x45, 0, (byte)((20 + innerLength) >> 8), (byte)(20 + innerLength), 0, 1, 0x40, 0, 64,
            4, 0, 0});
        ip.writeBytes(address(source));
        ip.writeBytes(address(destination));
        ip.write(innerFrame, 14, innerLength);
        return new TestFrame().ethernet(ETH_P_IPV4, ip.toByteArray());
    }

    /** An ICMPv6 error of {@code type} (1..4) quoting the IPv6 header and 8 bytes of {@code quotedFrame}. */
    byte[] icmpv6Error(final String source, final String destination, final int type, final byte[] quotedFrame)
    {
        final byte[] icmp = new byte[8 + 48];
        icmp[0] = (byte)type;
        System.arraycopy(quotedFrame, 14, icmp, 8, Math.min(48, quotedFrame.length - 14));
        return ipv6(source, destination, IPPROTO_ICMPV6, icmp);
    }

    /** IPv6 whose payload follows the fixed header directly with next header {@code nextHeader}. */
    byte[] ipv6(final String source, final String destination, final int nextHeader, final byte[] payload)
    {
        final ByteArrayOutputStream ip = new ByteArrayOutputStream();
        ip.writeBytes(new byte[] {0x60, 0, 0, 0, (byte)(payload.length >> 8), (byte)payload.length,
            (byte)nextHeader, (byte)255});
        ip.writeBytes(address(source));
        ip.writeBytes(address(destination));
        ip.writeBytes(payload);
        return ethernet(ETH_P_IPV6, ip.toByteArray());
    }

    /** IPv6 with a UDP header and {@code payloadBytes} more. */
    byte[] ipv6Udp(final String source, final String destination, final int payloadBytes)
    {
        return ipv6(source, destination, IPPROTO_UDP, new byte[8 + payloadBytes]);
    }

    /** ICMPv6 of {@code type} (135 neighbour solicitation, 128 echo request, ...). */
    byte[] icmpv6(final String source, final String destination, final int type)
    {
        final byte[] icmp = new byte[24];
        icmp[0] = (byte)type;
        return ipv6(source, destination, IPPROTO_ICMPV6, icmp);
    }

    /**
     * A fragment of an ICMPv6 message of {@code type}: a fragment header (next header {@code nextHeader}, the
     * offset-and-flags word {@code offsetWord}) then the message's start, which a later fragment does not hold.
     */
    byte[] ipv6Fragment(final String source, final String destination, final int nextHeader, final int offsetWord,
        final int type)
    {
        final byte[] payload = new byte[8 + 24];
        payload[0] = (byte)nextHeader;
        payload[2] = (byte)(offsetWord >> 8);
        payload[3] = (byte)offsetWord;
        payload[8] = (byte)type;
        return ipv6(source, destination, IPPROTO_FRAGMENT, payload);
    }

    /** Any EtherType with {@code payloadBytes} of zeros (an ARP request is 28 bytes). */
    byte[] etherType(final int etherType, final int payloadBytes)
    {
        return ethernet(etherType, new byte[payloadBytes]);
    }

    private byte[] ethernet(final int etherType, final byte[] payload)
    {
        final ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.writeBytes(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2});
        int vlan = 100;
        for (final int tpid : tags)
        {
            frame.writeBytes(new byte[] {(byte)(tpid >> 8), (byte)tpid, 0, (byte)vlan++});
        }
        frame.writeBytes(new byte[] {(byte)(etherType >> 8), (byte)etherType});
        frame.writeBytes(payload);
        return frame.toByteArray();
    }

    static byte[] address(final String literal)
    {
        try
        {
            return InetAddress.getByName(literal).getAddress();
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException(literal, ex);
        }
    }
}
