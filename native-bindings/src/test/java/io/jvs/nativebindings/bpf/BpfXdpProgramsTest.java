package io.jvs.nativebindings.bpf;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static io.jvs.nativebindings.bpf.TestFrame.ETH_P_ARP;
import static io.jvs.nativebindings.bpf.TestFrame.TPID_8021AD;
import static io.jvs.nativebindings.bpf.TestFrame.TPID_8021Q;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * jvs's two XDP programs, run by {@link BpfInterpreter} on hand-built frames: which packets are
 * redirected to the queue's socket and which go to the kernel, including every truncation of each frame
 * (a missing bounds check faults there), and seeded random frames against {@link JvsTrafficReference};
 * frames for a queue without a socket are counted.
 */
class BpfXdpProgramsTest
{
    static final String VIP_V4 = "10.77.2.2";
    static final String REAL_V4 = "10.77.3.3";
    static final String CLIENT_V4 = "198.51.100.7";
    static final String BOX_V4 = "10.77.1.254";
    static final String VIP_V6 = "2001:db8::2";
    static final String REAL_V6 = "2001:db8:3::3";
    static final String CLIENT_V6 = "2001:db8:99::7";
    static final String BOX_V6 = "2001:db8::fe";
    /** Destination prefixes: a mark statement's network, and one around the box's and the VIPs' own addresses. */
    static final List<String> DESTINATION_PREFIXES = List.of("203.0.113.0/24", "10.77.0.0/16", "2001:db8:cafe::/48",
        "2001:db8::/64");
    static final List<String> SOURCE_PREFIXES = List.of("198.18.0.0/15", "2001:db8:beef::/48");
    static final String IN_PREFIX_V4 = "203.0.113.7";
    static final String IN_WIDE_PREFIX_V4 = "10.77.9.9";
    static final String FROM_PREFIX_V4 = "198.19.3.4";
    static final String IN_PREFIX_V6 = "2001:db8:cafe::7";
    static final String IN_WIDE_PREFIX_V6 = "2001:db8::99";
    static final String FROM_PREFIX_V6 = "2001:db8:beef:1::4";

    static final Map<String, Integer> FAKE_FDS = Map.ofEntries(Map.entry(XdpPrograms.XSKS, 11),
        Map.entry(XdpPrograms.VIPS_V4, 12), Map.entry(XdpPrograms.VIPS_V6, 13),
        Map.entry(XdpPrograms.REAL_SERVERS_V4, 14), Map.entry(XdpPrograms.REAL_SERVERS_V6, 15),
        Map.entry(XdpPrograms.LOCALS_V4, 16), Map.entry(XdpPrograms.LOCALS_V6, 17),
        Map.entry(XdpPrograms.UNPLACED, 18), Map.entry(XdpPrograms.DESTINATION_PREFIXES_V4, 19),
        Map.entry(XdpPrograms.DESTINATION_PREFIXES_V6, 20), Map.entry(XdpPrograms.SOURCE_PREFIXES_V4, 21),
        Map.entry(XdpPrograms.SOURCE_PREFIXES_V6, 22));

    static final JvsTrafficReference REFERENCE = new JvsTrafficReference(Set.of(key(VIP_V4)), Set.of(key(VIP_V6)),
        Set.of(key(REAL_V4)), Set.of(key(REAL_V6)), Set.of(key(BOX_V4)), Set.of(key(BOX_V6)),
        DESTINATION_PREFIXES.stream().map(JvsTrafficReference.Prefix::parse).toList(),
        SOURCE_PREFIXES.stream().map(JvsTrafficReference.Prefix::parse).toList());

    /** Queue 0 has a socket, queue 1 has none. */
    private static BpfInterpreter interpreter(final BpfBytecode program)
    {
        return interpreter(program, BpfInterpreter.MapModel.array(8, 1));
    }

    static BpfInterpreter interpreter(final BpfBytecode program, final BpfInterpreter.MapModel unplaced)
    {
        return new BpfInterpreter(program.link(FAKE_FDS), addressMaps(BpfInterpreter.MapModel.xskMap().socket(0),
            unplaced));
    }

    /** The test's addresses in models of the filter's maps, by the fds of {@link #FAKE_FDS}. */
    static Map<Integer, BpfInterpreter.MapModel> addressMaps(final BpfInterpreter.MapModel xsks,
        final BpfInterpreter.MapModel unplaced)
    {
        return Map.ofEntries(
            Map.entry(11, xsks),
            Map.entry(12, BpfInterpreter.MapModel.hash(4, 4).put(TestFrame.address(VIP_V4), new byte[4])),
            Map.entry(13, BpfInterpreter.MapModel.hash(16, 4).put(TestFrame.address(VIP_V6), new byte[4])),
            Map.entry(14, BpfInterpreter.MapModel.hash(4, 4).put(TestFrame.address(REAL_V4), new byte[4])),
            Map.entry(15, BpfInterpreter.MapModel.hash(16, 4).put(TestFrame.address(REAL_V6), new byte[4])),
            Map.entry(16, BpfInterpreter.MapModel.hash(4, 4).put(TestFrame.address(BOX_V4), new byte[4])),
            Map.entry(17, BpfInterpreter.MapModel.hash(16, 4).put(TestFrame.address(BOX_V6), new byte[4])),
            Map.entry(18, unplaced),
            Map.entry(19, tries(DESTINATION_PREFIXES, 4)), Map.entry(20, tries(DESTINATION_PREFIXES, 16)),
            Map.entry(21, tries(SOURCE_PREFIXES, 4)), Map.entry(22, tries(SOURCE_PREFIXES, 16)));
    }

    /** A model of the LPM trie holding those of {@code prefixes} whose addresses have {@code bytes} bytes. */
    static BpfInterpreter.MapModel tries(final List<String> prefixes, final int bytes)
    {
        final BpfInterpreter.MapModel trie = BpfInterpreter.MapModel.lpmTrie(bytes, 4);
        for (final String text : prefixes)
        {
            final JvsTrafficReference.Prefix prefix = JvsTrafficReference.Prefix.parse(text);
            if (prefix.network().length == bytes)
            {
                trie.put(trieKey(prefix.network(), prefix.length()), new byte[4]);
            }
        }
        return trie;
    }

    /** The kernel's LPM key: the length, little-endian, then the address. */
    static byte[] trieKey(final byte[] network, final int length)
    {
        return ByteBuffer.allocate(4 + network.length).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(length)
            .put(network).array();
    }

    /** An IPv4 frame whose protocol is IP in IP (4), as a tunnel's outer header: what a router's error quotes. */
    static byte[] ipip(final String source, final String destination)
    {
        final byte[] frame = new TestFrame().ipv4(source, destination, 28);
        frame[14 + 9] = 4;
        return frame;
    }

    private static final BpfInterpreter JVS_TRAFFIC = interpreter(XdpPrograms.redirectJvsTraffic(XdpAction.PASS));

    static Stream<Arguments> namedFrames()
    {
        return Stream.of(
            Arguments.of("IPv4 to a VIP", new TestFrame().ipv4(CLIENT_V4, VIP_V4, 10), true),
            Arguments.of("IPv4 to the box", new TestFrame().ipv4(CLIENT_V4, BOX_V4, 10), false),
            Arguments.of("IPv4 from a real server (NAT reply)", new TestFrame().ipv4(REAL_V4, CLIENT_V4, 10), true),
            Arguments.of("IPv4 between others", new TestFrame().ipv4(CLIENT_V4, "192.0.2.1", 0), false),
            Arguments.of("IPv4 from a real server to the box (SSH, health check)",
                new TestFrame().ipv4(REAL_V4, BOX_V4, 10), false),
            Arguments.of("IPv4 from a real server to a VIP", new TestFrame().ipv4(REAL_V4, VIP_V4, 10), true),
            Arguments.of("802.1Q IPv4 from a real server to the box",
                new TestFrame().tag(TPID_8021Q).ipv4(REAL_V4, BOX_V4, 10), false),
            Arguments.of("802.1Q IPv4 to a VIP", new TestFrame().tag(TPID_8021Q).ipv4(CLIENT_V4, VIP_V4, 0), true),
            Arguments.of("802.1ad IPv4 to a VIP", new TestFrame().tag(TPID_8021AD).ipv4(CLIENT_V4, VIP_V4, 0), true),
            Arguments.of("QinQ IPv4 to a VIP",
                new TestFrame().tag(TPID_8021AD).tag(TPID_8021Q).ipv4(CLIENT_V4, VIP_V4, 0), true),
            Arguments.of("Q-in-Q 8100/8100 from a real server",
                new TestFrame().tag(TPID_8021Q).tag(TPID_8021Q).ipv4(REAL_V4, CLIENT_V4, 0), true),
            Arguments.of("three tags: beyond what jvs parses",
                new TestFrame().tag(TPID_8021AD).tag(TPID_8021Q).tag(TPID_8021Q).ipv4(CLIENT_V4, VIP_V4, 0), false),
            Arguments.of("802.1Q IPv4 to the box", new TestFrame().tag(TPID_8021Q).ipv4(CLIENT_V4, BOX_V4, 0), false),
            Arguments.of("ARP", new TestFrame().etherType(ETH_P_ARP, 28), false),
            Arguments.of("802.1Q ARP", new TestFrame().tag(TPID_8021Q).etherType(ETH_P_ARP, 28), false),
            Arguments.of("IPv6 to a VIP", new TestFrame().ipv6Udp(CLIENT_V6, VIP_V6, 10), true),
            Arguments.of("IPv6 to the box", new TestFrame().ipv6Udp(CLIENT_V6, BOX_V6, 10), false),
            Arguments.of("IPv6 from a real server", new TestFrame().ipv6Udp(REAL_V6, CLIENT_V6, 10), true),
            Arguments.of("IPv6 from a real server to the box", new TestFrame().ipv6Udp(REAL_V6, BOX_V6, 10), false),
            Arguments.of("QinQ IPv6 to a VIP",
                new TestFrame().tag(TPID_8021AD).tag(TPID_8021Q).ipv6Udp(CLIENT_V6, VIP_V6, 0), true),
            Arguments.of("IPv6 echo request to a VIP: the kernel answers ping",
                new TestFrame().icmpv6(CLIENT_V6, VIP_V6, 128), false),
            Arguments.of("IPv6 echo reply to a VIP", new TestFrame().icmpv6(CLIENT_V6, VIP_V6, 129), true),
            Arguments.of("IPv6 echo request from a real server", new TestFrame().icmpv6(REAL_V6, CLIENT_V6, 128), true),
            Arguments.of("IPv6 first fragment of an echo request to a VIP: the kernel reassembles and answers",
                new TestFrame().ipv6Fragment(CLIENT_V6, VIP_V6, 58, 0x0001, 128), false),
            Arguments.of("IPv6 later fragment of an ICMPv6 message to a VIP",
                new TestFrame().ipv6Fragment(CLIENT_V6, VIP_V6, 58, 0x05a8, 0), false),
            Arguments.of("IPv6 first fragment of an echo reply to a VIP",
                new TestFrame().ipv6Fragment(CLIENT_V6, VIP_V6, 58, 0x0001, 129), true),
            Arguments.of("IPv6 later fragment of UDP to a VIP",
                new TestFrame().ipv6Fragment(CLIENT_V6, VIP_V6, 17, 0x05a8, 128), true),
            Arguments.of("IPv4 echo request to a VIP: the kernel answers ping",
                new TestFrame().icmpv4(CLIENT_V4, VIP_V4, 8, 0, 0), false),
            Arguments.of("802.1Q IPv4 echo request with options to a VIP",
                new TestFrame().tag(TPID_8021Q).icmpv4(CLIENT_V4, VIP_V4, 8, 0x4000, 2), false),
            Arguments.of("IPv4 first fragment of an echo request to a VIP",
                new TestFrame().icmpv4(CLIENT_V4, VIP_V4, 8, 0x2000, 0), false),
            Arguments.of("IPv4 later fragment of an ICMP message to a VIP",
                new TestFrame().icmpv4(CLIENT_V4, VIP_V4, 3, 0x00b9, 0), false),
            Arguments.of("IPv4 echo reply to a VIP", new TestFrame().icmpv4(CLIENT_V4, VIP_V4, 0, 0, 0), true),
            Arguments.of("IPv4 unreachable to a VIP", new TestFrame().icmpv4(CLIENT_V4, VIP_V4, 3, 0, 1), true),
            Arguments.of("IPv4 echo request from a real server to a client",
                new TestFrame().icmpv4(REAL_V4, CLIENT_V4, 8, 0, 0), true),
            Arguments.of("IPv4 echo request to the box", new TestFrame().icmpv4(CLIENT_V4, BOX_V4, 8, 0, 0), false),
            Arguments.of("IPv4 frag-needed to the box about IP in IP (a router's, about a tunnelled packet)",
                new TestFrame().icmpv4Error("192.0.2.1", BOX_V4, 3, ipip(BOX_V4, "192.0.2.9"), 0), true),
            Arguments.of("802.1Q IPv4 time exceeded with options to the box about IP in IP",
                new TestFrame().tag(TPID_8021Q).icmpv4Error("192.0.2.1", BOX_V4, 11, ipip(BOX_V4, "192.0.2.9"), 2),
                true),
            Arguments.of("IPv4 source quench to the box about IP in IP",
                new TestFrame().icmpv4Error("192.0.2.1", BOX_V4, 4, ipip(BOX_V4, "192.0.2.9"), 0), true),
            Arguments.of("IPv4 redirect to the box about IP in IP: the kernel's",
                new TestFrame().icmpv4Error("192.0.2.1", BOX_V4, 5, ipip(BOX_V4, "192.0.2.9"), 0), false),
            Arguments.of("IPv4 unreachable to the box about UDP: the kernel's",
                new TestFrame().icmpv4Error("192.0.2.1", BOX_V4, 3, new TestFrame().ipv4(BOX_V4, "192.0.2.9", 10), 0),
                false),
            Arguments.of("IPv4 unreachable to another host about IP in IP",
                new TestFrame().icmpv4Error("192.0.2.1", "192.0.2.77", 3, ipip(BOX_V4, "192.0.2.9"), 0), false),
            Arguments.of("neighbour solicitation to a VIP", new TestFrame().icmpv6(CLIENT_V6, VIP_V6, 135), false),
            Arguments.of("neighbour advertisement from a real server",
                new TestFrame().icmpv6(REAL_V6, BOX_V6, 136), false),
            Arguments.of("router advertisement", new TestFrame().icmpv6("fe80::1", "ff02::1", 134), false),
            Arguments.of("802.1Q redirect (ND type 137) to a VIP",
                new TestFrame().tag(TPID_8021Q).icmpv6(CLIENT_V6, VIP_V6, 137), false),
            Arguments.of("ICMPv6 type 138 to a VIP (not ND)", new TestFrame().icmpv6(CLIENT_V6, VIP_V6, 138), true),
            Arguments.of("an IPv4 address inside an IPv6 frame is no VIP",
                new TestFrame().ipv6Udp(CLIENT_V6, "::ffff:a4d:202", 0), false),
            Arguments.of("IPv4 to an address of a destination prefix",
                new TestFrame().ipv4(CLIENT_V4, IN_PREFIX_V4, 10), true),
            Arguments.of("IPv4 to another address of it", new TestFrame().ipv4(CLIENT_V4, "203.0.113.254", 10), true),
            Arguments.of("IPv4 just past the prefix", new TestFrame().ipv4(CLIENT_V4, "203.0.114.0", 10), false),
            Arguments.of("IPv4 to an address of a prefix that holds the box's",
                new TestFrame().ipv4(CLIENT_V4, IN_WIDE_PREFIX_V4, 10), true),
            Arguments.of("QinQ IPv4 to a destination prefix",
                new TestFrame().tag(TPID_8021AD).tag(TPID_8021Q).ipv4(CLIENT_V4, IN_PREFIX_V4, 0), true),
            Arguments.of("IPv4 echo request to a destination prefix: the kernel's, as to a VIP",
                new TestFrame().icmpv4(CLIENT_V4, IN_PREFIX_V4, 8, 0, 0), false),
            Arguments.of("IPv4 echo reply to a destination prefix",
                new TestFrame().icmpv4(CLIENT_V4, IN_PREFIX_V4, 0, 0, 0), true),
            Arguments.of("IPv4 from a source prefix", new TestFrame().ipv4(FROM_PREFIX_V4, CLIENT_V4, 10), true),
            Arguments.of("IPv4 from a source prefix to the box",
                new TestFrame().ipv4(FROM_PREFIX_V4, BOX_V4, 10), false),
            Arguments.of("IPv4 echo request from a source prefix",
                new TestFrame().icmpv4(FROM_PREFIX_V4, CLIENT_V4, 8, 0, 0), true),
            Arguments.of("IPv4 just before the source prefix", new TestFrame().ipv4("198.17.255.255", CLIENT_V4, 10),
                false),
            Arguments.of("IPv6 to an address of a destination prefix",
                new TestFrame().ipv6Udp(CLIENT_V6, IN_PREFIX_V6, 10), true),
            Arguments.of("IPv6 to another address of it",
                new TestFrame().ipv6Udp(CLIENT_V6, "2001:db8:cafe:ffff::1", 10), true),
            Arguments.of("IPv6 just past the prefix", new TestFrame().ipv6Udp(CLIENT_V6, "2001:db8:caff::", 10), false),
            Arguments.of("IPv6 to a prefix that holds the box's", new TestFrame().ipv6Udp(CLIENT_V6, IN_WIDE_PREFIX_V6,
                10), true),
            Arguments.of("IPv6 echo request to a destination prefix",
                new TestFrame().icmpv6(CLIENT_V6, IN_PREFIX_V6, 128), false),
            Arguments.of("neighbour solicitation to a destination prefix",
                new TestFrame().icmpv6(CLIENT_V6, IN_PREFIX_V6, 135), false),
            Arguments.of("IPv6 from a source prefix", new TestFrame().ipv6Udp(FROM_PREFIX_V6, CLIENT_V6, 10), true),
            Arguments.of("IPv6 from a source prefix to the box",
                new TestFrame().ipv6Udp(FROM_PREFIX_V6, BOX_V6, 10), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("namedFrames")
    void shouldGiveEchoRequestsToJvsOnlyForVipsWhoseValueSaysSo(final String description, final byte[] frame,
        final boolean isJvsTraffic)
    {
        // vip-arp on: the box does not hold its VIPs, so jvs answers their pings (XdpVipFilter.addVip(vip, true)).
        final Map<Integer, BpfInterpreter.MapModel> maps = new java.util.HashMap<>(addressMaps(
            BpfInterpreter.MapModel.xskMap().socket(0), BpfInterpreter.MapModel.array(8, 1)));
        maps.put(12, BpfInterpreter.MapModel.hash(4, 4).put(TestFrame.address(VIP_V4), new byte[] {1, 1, 0, 0}));
        maps.put(13, BpfInterpreter.MapModel.hash(16, 4).put(TestFrame.address(VIP_V6), new byte[] {1, 1, 0, 0}));
        final BpfInterpreter answering = new BpfInterpreter(
            XdpPrograms.redirectJvsTraffic(XdpAction.PASS).link(FAKE_FDS), maps);

        // What the rule takes for an echo request: its type, or an IPv4 ICMP fragment after the first (no type).
        final boolean echoToVip = description.contains("to a VIP") && !description.contains("prefix") &&
            (description.contains("echo request") || description.contains("later fragment of an ICMP"));
        assertThat(answering.run(frame, 0).action())
            .isEqualTo(isJvsTraffic || echoToVip ? XdpAction.REDIRECT : XdpAction.PASS);
    }

    @Test
    void shouldBuildProgramOneOfTheNotes()
    {
        final BpfBytecode program = XdpPrograms.redirectAll(XdpAction.PASS);

        assertThat(BpfAssemblerTest.fields(program.link(Map.of(XdpPrograms.XSKS, BpfAssemblerTest.XSKMAP_FD))))
            .isEqualTo(BpfAssemblerTest.PROGRAM_1);
    }

    @Test
    void shouldRedirectEveryFrameToItsQueueSocketOrPassWhenTheQueueHasNone()
    {
        final BpfInterpreter redirectAll = interpreter(XdpPrograms.redirectAll(XdpAction.PASS));
        final byte[] arp = new TestFrame().etherType(ETH_P_ARP, 28);

        assertThat(redirectAll.run(arp, 0)).isEqualTo(new BpfInterpreter.Result(XdpAction.REDIRECT, 0, 5));
        assertThat(redirectAll.run(new byte[0], 0).action()).isEqualTo(XdpAction.REDIRECT);
        assertThat(redirectAll.run(arp, 1).action()).isEqualTo(XdpAction.PASS);
        assertThat(redirectAll.run(arp, 1).redirectQueue()).isEqualTo(-1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("namedFrames")
    void shouldRedirectOnlyJvsTraffic(final String description, final byte[] frame, final boolean isJvsTraffic)
    {
        final BpfInterpreter.Result result = JVS_TRAFFIC.run(frame, 0);

        assertThat(REFERENCE.isJvsTraffic(frame)).as("the reference agrees with the case").isEqualTo(isJvsTraffic);
        assertThat(XdpAction.name(result.action())).isEqualTo(XdpAction.name(isJvsTraffic ? XdpAction.REDIRECT :
            XdpAction.PASS));
        assertThat(result.redirectQueue()).isEqualTo(isJvsTraffic ? 0 : -1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("namedFrames")
    void shouldPassEveryTruncationTooShortToDecideAndNeverReadPastTheEnd(
        final String description, final byte[] frame, final boolean isJvsTraffic)
    {
        final List<Integer> redirectedLengths = new ArrayList<>();
        for (int length = 0; length <= frame.length; length++)
        {
            final byte[] truncated = Arrays.copyOf(frame, length);
            final int action = JVS_TRAFFIC.run(truncated, 0).action();
            assertThat(XdpAction.name(action)).as("%d of %d bytes", length, frame.length)
                .isEqualTo(XdpAction.name(REFERENCE.isJvsTraffic(truncated) ? XdpAction.REDIRECT : XdpAction.PASS));
            if (action == XdpAction.REDIRECT)
            {
                redirectedLengths.add(length);
            }
        }
        assertThat(redirectedLengths.isEmpty()).isEqualTo(!isJvsTraffic);
        assertThat(redirectedLengths).doesNotContain(0, 13, 14);
    }

    @Test
    void shouldFallBackWhenTheQueueHasNoSocket()
    {
        final byte[] toVip = new TestFrame().ipv4(CLIENT_V4, VIP_V4, 10);

        assertThat(JVS_TRAFFIC.run(toVip, 1).action()).isEqualTo(XdpAction.PASS);
        assertThat(interpreter(XdpPrograms.redirectJvsTraffic(XdpAction.DROP)).run(toVip, 1).action())
            .isEqualTo(XdpAction.DROP);
        assertThatThrownBy(() -> XdpPrograms.redirectJvsTraffic(XdpAction.REDIRECT))
            .hasMessageContaining("XDP_REDIRECT");
    }

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 8);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldDecideLikeTheReferenceOnRandomFrames(final long seed)
    {
        final Random random = new Random(seed);
        int redirected = 0;
        int passed = 0;
        for (int i = 0; i < 2_000; i++)
        {
            final byte[] frame = randomFrame(random);
            final boolean expected = REFERENCE.isJvsTraffic(frame);
            assertThat(JVS_TRAFFIC.run(frame, 0).action()).as("frame %s", Arrays.toString(frame))
                .isEqualTo(expected ? XdpAction.REDIRECT : XdpAction.PASS);
            if (expected)
            {
                redirected++;
            }
            else
            {
                passed++;
            }
        }
        assertThat(redirected).as("frames redirected").isGreaterThan(200);
        assertThat(passed).as("frames passed").isGreaterThan(200);
    }

    /** Tags, EtherTypes, addresses and ICMPv6 types drawn around the program's decisions; a third cut short. */
    static byte[] randomFrame(final Random random)
    {
        final TestFrame builder = new TestFrame();
        final int tags = random.nextInt(4);
        for (int t = 0; t < tags; t++)
        {
            builder.tag(random.nextBoolean() ? TPID_8021Q : TPID_8021AD);
        }
        final String[] v4 = {VIP_V4, REAL_V4, CLIENT_V4, BOX_V4, IN_PREFIX_V4, IN_WIDE_PREFIX_V4, FROM_PREFIX_V4};
        final String[] v6 = {VIP_V6, REAL_V6, CLIENT_V6, BOX_V6, IN_PREFIX_V6, IN_WIDE_PREFIX_V6, FROM_PREFIX_V6};
        final int[] icmpTypes = {1, 128, 129, 132, 133, 134, 135, 136, 137, 138};
        final int[] icmpv4Types = {0, 3, 8, 11};
        final int[] fragmentWords = {0, 0x4000, 0x2000, 0x0001, 0x20b9};
        final byte[] frame = switch (random.nextInt(6))
        {
            case 0, 1 -> builder.ipv4(v4[random.nextInt(v4.length)], v4[random.nextInt(v4.length)],
                random.nextInt(40));
            case 2 -> builder.ipv6Udp(v6[random.nextInt(v6.length)], v6[random.nextInt(v6.length)], random.nextInt(40));
            case 3 -> random.nextInt(3) == 0
                ? builder.ipv6Fragment(v6[random.nextInt(v6.length)], v6[random.nextInt(v6.length)],
                    random.nextBoolean() ? 58 : 17, fragmentWords[random.nextInt(5)], icmpTypes[random.nextInt(10)])
                : builder.icmpv6(v6[random.nextInt(v6.length)], v6[random.nextInt(v6.length)],
                    icmpTypes[random.nextInt(10)]);
            case 4 -> builder.icmpv4(v4[random.nextInt(v4.length)], v4[random.nextInt(v4.length)],
                icmpv4Types[random.nextInt(4)],
                fragmentWords[random.nextInt(5)], random.nextInt(3));
            default -> builder.etherType(random.nextBoolean() ? ETH_P_ARP : random.nextInt(0x10000), 46);
        };
        return random.nextInt(3) == 0 ? Arrays.copyOf(frame, random.nextInt(frame.length + 1)) : frame;
    }

    @Test
    void shouldCountEveryFrameItWouldRedirectToAQueueWithoutASocketAndNothingElse()
    {
        final BpfInterpreter.MapModel unplaced = BpfInterpreter.MapModel.array(8, 1);
        final BpfInterpreter program = interpreter(XdpPrograms.redirectJvsTraffic(XdpAction.PASS), unplaced);
        final byte[] toVip = new TestFrame().ipv4(CLIENT_V4, VIP_V4, 10);
        final byte[] natReply = new TestFrame().ipv6Udp(REAL_V6, CLIENT_V6, 10);
        final byte[] arp = new TestFrame().etherType(ETH_P_ARP, 28);

        assertThat(program.run(toVip, 0).action()).isEqualTo(XdpAction.REDIRECT);
        assertThat(program.run(arp, 1).action()).isEqualTo(XdpAction.PASS);
        assertThat(unplaced.counter(0)).as("redirected or the kernel's anyway: not counted").isZero();
        final BpfInterpreter.Result noSocket = program.run(toVip, 1);
        assertThat(noSocket.action()).isEqualTo(XdpAction.PASS);
        assertThat(noSocket.redirectQueue()).isEqualTo(-1);
        assertThat(program.run(natReply, 7).action()).isEqualTo(XdpAction.PASS);
        assertThat(unplaced.counter(0)).isEqualTo(2);
    }

    @Test
    void shouldJumpOnlyToInstructionsOfTheProgramAndNameItsTwelveMaps()
    {
        final BpfBytecode program = XdpPrograms.redirectJvsTraffic(XdpAction.PASS);

        assertThat(program.mapNames()).containsExactlyInAnyOrder(XdpPrograms.XSKS, XdpPrograms.VIPS_V4,
            XdpPrograms.VIPS_V6, XdpPrograms.REAL_SERVERS_V4, XdpPrograms.REAL_SERVERS_V6, XdpPrograms.LOCALS_V4,
            XdpPrograms.LOCALS_V6, XdpPrograms.UNPLACED, XdpPrograms.DESTINATION_PREFIXES_V4,
            XdpPrograms.DESTINATION_PREFIXES_V6, XdpPrograms.SOURCE_PREFIXES_V4, XdpPrograms.SOURCE_PREFIXES_V6);
        assertWellFormed(program);
    }

    /** Every jump lands forward on an instruction of the program (not inside an ld_imm64), and it ends in exit. */
    static void assertWellFormed(final BpfBytecode program)
    {
        final Set<Integer> secondHalves = new java.util.HashSet<>();
        for (int pc = 0; pc < program.slotCount(); pc++)
        {
            if (BpfInstruction.code(program.slot(pc)) == 0x18)
            {
                secondHalves.add(++pc);
            }
        }
        for (int pc = 0; pc < program.slotCount(); pc++)
        {
            final int code = BpfInstruction.code(program.slot(pc));
            final boolean isJump = (code & BpfOpcode.CLASS_MASK) == BpfOpcode.CLASS_JMP &&
                (code & BpfOpcode.OPERATION_MASK) != BpfOpcode.JMP_CALL &&
                (code & BpfOpcode.OPERATION_MASK) != BpfOpcode.JMP_EXIT && !secondHalves.contains(pc);
            if (isJump)
            {
                final int target = pc + 1 + BpfInstruction.offset(program.slot(pc));
                assertThat(target).as("target of the jump at %d", pc).isBetween(pc + 1, program.slotCount() - 1);
                assertThat(secondHalves).as("target of the jump at %d", pc).doesNotContain(target);
            }
        }
        assertThat(BpfInstruction.code(program.slot(program.slotCount() - 1))).as("ends with exit").isEqualTo(0x95);
    }

    static ByteBuffer key(final String address)
    {
        return ByteBuffer.wrap(TestFrame.address(address));
    }
}
