package io.jvs.nativebindings.bpf;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * What {@link XdpPrograms#redirectJvsTraffic} (and {@link TcPrograms#stealJvsTraffic}) must decide, written as
 * plain Java from the specification in {@link JvsTrafficRule}, independently of the BPF: the tests compare the
 * two on many frames.
 *
 * @param vipsV4 and the other sets hold addresses in network byte order.
 * @param destinationPrefixes prefixes of either family whose destinations are jvs's as a VIP's, after the sets.
 * @param sourcePrefixes      prefixes whose sources are jvs's as a real server's, after the sets.
 */
record JvsTrafficReference(Set<ByteBuffer> vipsV4, Set<ByteBuffer> vipsV6, Set<ByteBuffer> realsV4,
                           Set<ByteBuffer> realsV6, Set<ByteBuffer> localsV4, Set<ByteBuffer> localsV6,
                           List<Prefix> destinationPrefixes, List<Prefix> sourcePrefixes)
{
    JvsTrafficReference(final Set<ByteBuffer> vipsV4, final Set<ByteBuffer> vipsV6, final Set<ByteBuffer> realsV4,
        final Set<ByteBuffer> realsV6, final Set<ByteBuffer> localsV4, final Set<ByteBuffer> localsV6)
    {
        this(vipsV4, vipsV6, realsV4, realsV6, localsV4, localsV6, List.of(), List.of());
    }

    /** An address prefix, bit by bit: {@code network}'s first {@code length} bits. */
    record Prefix(byte[] network, int length)
    {
        static Prefix parse(final String text)
        {
            final int slash = text.indexOf('/');
            return new Prefix(TestFrame.address(text.substring(0, slash)), Integer.parseInt(text.substring(slash + 1)));
        }

        boolean contains(final byte[] address)
        {
            if (address.length != network.length)
            {
                return false;
            }
            for (int bit = 0; bit < length; bit++)
            {
                final int mask = 0x80 >>> (bit % 8);
                if ((address[bit / 8] & mask) != (network[bit / 8] & mask))
                {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * @return true when the frame is jvs's: its destination is a VIP (unless it is an echo request, which the
     * kernel answers), or it is not for the box itself and its source is a real server, or else its destination
     * is in a destination prefix (unless an echo request) or its source in a source prefix.
     */
    boolean isJvsTraffic(final byte[] frame)
    {
        if (frame.length < 14)
        {
            return false;
        }
        int etherType = u16(frame, 12);
        int network = 14;
        for (int tag = 0; tag < 2 && (etherType == TestFrame.TPID_8021Q || etherType == TestFrame.TPID_8021AD); tag++)
        {
            if (frame.length < network + 4)
            {
                return false;
            }
            etherType = u16(frame, network + 2);
            network += 4;
        }
        if (etherType == TestFrame.ETH_P_IPV4)
        {
            if (frame.length < network + 20)
            {
                return false;
            }
            final int icmp = network + (frame[network] & 0xf) * 4;
            final boolean icmpFirstFragment = (frame[network + 9] & 0xff) == TestFrame.IPPROTO_ICMP &&
                (u16(frame, network + 6) & 0x1fff) == 0;
            if (icmpFirstFragment && frame.length <= icmp)
            {
                return false;
            }
            if (vipsV4.contains(slice(frame, network + 16, 4)))
            {
                return !isEchoRequestV4(frame, network);
            }
            if (localsV4.contains(slice(frame, network + 16, 4)))
            {
                return isTunnelErrorV4(frame, network);
            }
            if (realsV4.contains(slice(frame, network + 12, 4)))
            {
                return true;
            }
            if (inPrefixes(destinationPrefixes, frame, network + 16, 4))
            {
                return !isEchoRequestV4(frame, network);
            }
            return inPrefixes(sourcePrefixes, frame, network + 12, 4);
        }
        if (etherType == TestFrame.ETH_P_IPV6)
        {
            if (frame.length < network + 40)
            {
                return false;
            }
            boolean echoRequest = false;
            if ((frame[network + 6] & 0xff) == TestFrame.IPPROTO_ICMPV6)
            {
                if (frame.length < network + 41)
                {
                    return false;
                }
                final int type = frame[network + 40] & 0xff;
                if (type >= 133 && type <= 137)
                {
                    return false;
                }
                echoRequest = type == 128;
            }
            else if ((frame[network + 6] & 0xff) == 44)
            {
                // A fragment of ICMPv6: an echo request's first, or any later one (no type), is the kernel's.
                if (frame.length < network + 48)
                {
                    return false;
                }
                if ((frame[network + 40] & 0xff) == TestFrame.IPPROTO_ICMPV6)
                {
                    if ((u16(frame, network + 42) & 0xfff8) != 0)
                    {
                        echoRequest = true;
                    }
                    else if (frame.length < network + 49)
                    {
                        return false;
                    }
                    else
                    {
                        echoRequest = (frame[network + 48] & 0xff) == 128;
                    }
                }
            }
            if (vipsV6.contains(slice(frame, network + 24, 16)))
            {
                return !echoRequest;
            }
            if (localsV6.contains(slice(frame, network + 24, 16)))
            {
                return false;
            }
            if (realsV6.contains(slice(frame, network + 8, 16)))
            {
                return true;
            }
            if (inPrefixes(destinationPrefixes, frame, network + 24, 16))
            {
                return !echoRequest;
            }
            return inPrefixes(sourcePrefixes, frame, network + 8, 16);
        }
        return false;
    }

    /**
     * An ICMP destination unreachable, source quench or time exceeded, not a later fragment, whose quoted header (as
     * much of it as holds the protocol) is IP in IP: a router's error about a packet jvs tunnelled.
     */
    private static boolean isTunnelErrorV4(final byte[] frame, final int network)
    {
        if ((frame[network + 9] & 0xff) != TestFrame.IPPROTO_ICMP || (u16(frame, network + 6) & 0x1fff) != 0)
        {
            return false;
        }
        final int icmp = network + (frame[network] & 0xf) * 4;
        final int type = frame[icmp] & 0xff;
        return (type == 3 || type == 4 || type == 11) && frame.length >= icmp + 8 + 10 &&
            (frame[icmp + 8 + 9] & 0xff) == 4;
    }

    /** An ICMP echo request, or a later fragment of any ICMP message (it carries no type). */
    private static boolean isEchoRequestV4(final byte[] frame, final int network)
    {
        if ((frame[network + 9] & 0xff) != TestFrame.IPPROTO_ICMP)
        {
            return false;
        }
        if ((u16(frame, network + 6) & 0x1fff) != 0)
        {
            return true;
        }
        return (frame[network + (frame[network] & 0xf) * 4] & 0xff) == 8;
    }

    private static boolean inPrefixes(final List<Prefix> prefixes, final byte[] frame, final int offset,
        final int length)
    {
        final byte[] address = Arrays.copyOfRange(frame, offset, offset + length);
        return prefixes.stream().anyMatch(prefix -> prefix.contains(address));
    }

    private static int u16(final byte[] frame, final int offset)
    {
        return (frame[offset] & 0xff) << 8 | frame[offset + 1] & 0xff;
    }

    private static ByteBuffer slice(final byte[] frame, final int offset, final int length)
    {
        return ByteBuffer.wrap(Arrays.copyOfRange(frame, offset, offset + length));
    }
}
