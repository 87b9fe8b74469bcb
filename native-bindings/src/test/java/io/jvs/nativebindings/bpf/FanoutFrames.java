package io.jvs.nativebindings.bpf;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Random frames of the kinds a fanout program must place, as they leave a sender (every tag in the frame): a
 * client's requests to a VIP, NAT replies, ICMP errors about both directions, echo and other ICMP, not-IP, behind
 * 0 to 4 VLAN tags of the three TPIDs ClientDispatch knows, a third of them cut short; requests to and replies
 * from addresses of the virtual prefixes (a {@code mark} statement's destination network) among them. Public for
 * the forwarder's tests, which check the fanout program against core's ClientDispatch on them.
 */
public final class FanoutFrames
{
    public static final String VIP_V4 = "10.77.2.2";
    public static final String VIP_V6 = "2001:db8::2";
    public static final List<String> VIPS = List.of(VIP_V4, VIP_V6);
    /** Networks whose every address is virtual: the fanout program's destination-prefix tries hold them. */
    public static final List<String> PREFIXES = List.of("203.0.113.0/24", "2001:db8:cafe::/48");
    public static final String REAL_V4 = "10.77.3.3";
    public static final String REAL_V6 = "2001:db8:3::3";
    private static final String ROUTER_V4 = "192.0.2.254";
    /** The box's address, where a tunnel starts. */
    private static final String BOX_V4 = "10.77.1.254";
    private static final String ROUTER_V6 = "2001:db8:ff::1";
    private static final int[] TPIDS = {0x8100, 0x88a8, 0x9100};
    private static final int[] ICMP_TYPES = {0, 3, 4, 5, 8, 11, 12, 13};
    private static final int[] ICMPV6_TYPES = {0, 1, 2, 3, 4, 5, 128, 129, 135};

    private FanoutFrames()
    {
    }

    /** @return one random frame, tags in place, a third of the time cut short. */
    public static byte[] random(final Random random)
    {
        final byte[] whole = whole(random);
        return random.nextInt(3) == 0 ? Arrays.copyOf(whole, random.nextInt(whole.length + 1)) : whole;
    }

    /** @return one random frame, tags in place, whole. */
    public static byte[] whole(final Random random)
    {
        final int tags = random.nextInt(8) < 5 ? 0 : 1 + random.nextInt(4);
        return withTags(untagged(random), random, tags);
    }

    private static byte[] untagged(final Random random)
    {
        final String client4 = clientV4(random);
        final String client6 = clientV6(random);
        final TestFrame builder = new TestFrame();
        final String marked4 = "203.0.113." + random.nextInt(256);
        final String marked6 = "2001:db8:cafe:" + Integer.toHexString(random.nextInt(65536)) + "::" +
            Integer.toHexString(random.nextInt(65536));
        return switch (random.nextInt(15))
        {
            case 0 -> builder.ipv4(client4, VIP_V4, random.nextInt(20));
            case 1 -> builder.ipv4(REAL_V4, client4, random.nextInt(20));
            case 2 -> builder.icmpv4Error(ROUTER_V4, VIP_V4, ICMP_TYPES[random.nextInt(ICMP_TYPES.length)],
                new TestFrame().ipv4(VIP_V4, client4, 8), random.nextInt(3));
            case 3 -> withFragmentOffset(random, builder.icmpv4Error(REAL_V4, client4,
                ICMP_TYPES[random.nextInt(ICMP_TYPES.length)], new TestFrame().ipv4(client4, REAL_V4, 8), 0));
            case 4 -> builder.ipv6Udp(client6, VIP_V6, random.nextInt(20));
            case 5 -> builder.ipv6Udp(REAL_V6, client6, random.nextInt(20));
            case 6 -> builder.icmpv6Error(ROUTER_V6, VIP_V6, ICMPV6_TYPES[random.nextInt(ICMPV6_TYPES.length)],
                new TestFrame().ipv6Udp(VIP_V6, client6, 8));
            case 7 -> builder.icmpv6Error(REAL_V6, client6, ICMPV6_TYPES[random.nextInt(ICMPV6_TYPES.length)],
                new TestFrame().ipv6Udp(client6, REAL_V6, 8));
            case 8 -> builder.icmpv4(client4, random.nextBoolean() ? VIP_V4 : client4, random.nextBoolean() ? 8 : 3,
                random.nextBoolean() ? 0 : 0x2001, random.nextInt(3));
            case 9 -> builder.ipv4(client4, marked4, random.nextInt(20));
            case 10 -> builder.ipv4(marked4, random.nextBoolean() ? client4 : "203.0.114.1", random.nextInt(20));
            case 11 -> builder.icmpv4Error(ROUTER_V4, marked4, ICMP_TYPES[random.nextInt(ICMP_TYPES.length)],
                new TestFrame().ipv4(marked4, client4, 8), random.nextInt(3));
            case 12 -> random.nextBoolean() ? builder.ipv6Udp(client6, marked6, random.nextInt(20)) :
                builder.ipv6Udp(marked6, client6, random.nextInt(20));
            // A router beyond the box about a packet it tunnelled to a real server: the client's is inside.
            case 13 -> builder.icmpv4Error(ROUTER_V4, BOX_V4, ICMP_TYPES[random.nextInt(ICMP_TYPES.length)],
                TestFrame.ipip(BOX_V4, REAL_V4, new TestFrame().ipv4(client4, VIP_V4, 8)), random.nextInt(3),
                20 + random.nextInt(40));
            default -> builder.etherType(random.nextBoolean() ? TestFrame.ETH_P_ARP : random.nextInt(0x10000), 46);
        };
    }

    /** Sometimes makes an IPv4 frame a later fragment: an ICMP error then has no ICMP header to read. */
    private static byte[] withFragmentOffset(final Random random, final byte[] frame)
    {
        if (random.nextInt(4) == 0)
        {
            frame[14 + 7] = (byte)(1 + random.nextInt(200));
        }
        return frame;
    }

    private static byte[] withTags(final byte[] frame, final Random random, final int tags)
    {
        final byte[] tagged = new byte[frame.length + 4 * tags];
        System.arraycopy(frame, 0, tagged, 0, 12);
        for (int t = 0; t < tags; t++)
        {
            final int tpid = TPIDS[random.nextInt(TPIDS.length)];
            tagged[12 + 4 * t] = (byte)(tpid >> 8);
            tagged[13 + 4 * t] = (byte)tpid;
            tagged[15 + 4 * t] = (byte)(1 + random.nextInt(200));
        }
        System.arraycopy(frame, 12, tagged, 12 + 4 * tags, frame.length - 12);
        return tagged;
    }

    /**
     * @return whether BPF_PROG_TEST_RUN runs an skb program on the frame: it refuses (EINVAL) one shorter than an
     *         Ethernet header, and an untagged IPv4 or IPv6 frame cut short inside its IP header.
     */
    public static boolean testRunTakes(final byte[] frame)
    {
        if (frame.length < 14)
        {
            return false;
        }
        final int etherType = (frame[12] & 0xff) << 8 | frame[13] & 0xff;
        return etherType == TestFrame.ETH_P_IPV4 ? frame.length >= 34 :
            etherType != TestFrame.ETH_P_IPV6 || frame.length >= 54;
    }

    /** A client among 4096 in 198.18.0.0/15, so several frames share one. */
    public static String clientV4(final Random random)
    {
        final int host = random.nextInt(4096);
        return "198.18." + (host >> 8) + "." + (host & 0xff);
    }

    public static String clientV6(final Random random)
    {
        return "2001:db8:99::" + Integer.toHexString(random.nextInt(4096)) + ":" +
            Integer.toHexString(random.nextInt(65536));
    }

    /** @return the 4 or 16 bytes of an address literal. */
    public static byte[] address(final String literal)
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
