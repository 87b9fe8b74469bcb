package io.jvs.nativebindings.bpf;

import static io.jvs.nativebindings.bpf.HeaderOffsets.VLAN_TAG;
import static io.jvs.nativebindings.bpf.HeaderOffsets.VLAN_INNER_ETHERTYPE;
import static io.jvs.nativebindings.bpf.HeaderOffsets.IPV4_HEADER;
import static io.jvs.nativebindings.bpf.HeaderOffsets.IPV4_FRAGMENT;
import static io.jvs.nativebindings.bpf.HeaderOffsets.IPV4_PROTOCOL;
import static io.jvs.nativebindings.bpf.HeaderOffsets.IPV4_SOURCE;
import static io.jvs.nativebindings.bpf.HeaderOffsets.IPV4_DESTINATION;
import static io.jvs.nativebindings.bpf.HeaderOffsets.IPV6_HEADER;
import static io.jvs.nativebindings.bpf.HeaderOffsets.IPV6_NEXT_HEADER;
import static io.jvs.nativebindings.bpf.HeaderOffsets.IPV6_SOURCE;
import static io.jvs.nativebindings.bpf.HeaderOffsets.IPV6_DESTINATION;
import static io.jvs.nativebindings.bpf.BpfCondition.EQUAL;
import static io.jvs.nativebindings.bpf.BpfCondition.GREATER;
import static io.jvs.nativebindings.bpf.BpfCondition.LESS;
import static io.jvs.nativebindings.bpf.BpfCondition.LESS_OR_EQUAL;
import static io.jvs.nativebindings.bpf.BpfCondition.NOT_EQUAL;
import static io.jvs.nativebindings.bpf.BpfRegister.R0;
import static io.jvs.nativebindings.bpf.BpfRegister.R1;
import static io.jvs.nativebindings.bpf.BpfRegister.R2;
import static io.jvs.nativebindings.bpf.BpfRegister.R3;
import static io.jvs.nativebindings.bpf.BpfRegister.R4;
import static io.jvs.nativebindings.bpf.BpfRegister.R5;
import static io.jvs.nativebindings.bpf.BpfRegister.R6;
import static io.jvs.nativebindings.bpf.BpfRegister.R7;
import static io.jvs.nativebindings.bpf.BpfRegister.R8;
import static io.jvs.nativebindings.bpf.BpfRegister.R10;
import static io.jvs.nativebindings.bpf.BpfSize.BYTE;
import static io.jvs.nativebindings.bpf.BpfSize.HALF;
import static io.jvs.nativebindings.bpf.BpfSize.WORD;

/**
 * Which frames are jvs's, as BPF: the one decision {@link XdpPrograms#redirectJvsTraffic} (redirect to the queue's
 * AF_XDP socket, or pass to the kernel) and {@link TcPrograms#stealJvsTraffic} (drop at tcx ingress after the
 * AF_PACKET socket's copy, or let the kernel have it) both make, emitted into either program by
 * {@link #decide} with the context's offsets and the caller's two outcomes.
 * <p>
 * jvs's frames, untagged or behind up to two VLAN tags (802.1Q or 802.1ad, in any order):
 * <ul>
 *   <li>IPv4 or IPv6 with a destination in {@link XdpPrograms#VIPS_V4} / {@link XdpPrograms#VIPS_V6}: new and
 *       established connections to a virtual service;</li>
 *   <li>otherwise, a destination in {@link XdpPrograms#LOCALS_V4} / {@link XdpPrograms#LOCALS_V6} (the box's own
 *       addresses) is the kernel's whatever its source: a real server's SSH session with the box, or its answer
 *       to the box's health check; except an IPv4 ICMP destination unreachable, source quench or time exceeded
 *       (not a later fragment) that quotes an IP-in-IP packet: a router's error about a packet jvs tunnelled,
 *       which jvs relays to the client (the errors IPVS's ip_vs_in_icmp takes for its tunnels);</li>
 *   <li>otherwise, a source in {@link XdpPrograms#REAL_SERVERS_V4} / {@link XdpPrograms#REAL_SERVERS_V6}: NAT
 *       return traffic, which jvs rewrites back to the VIP;</li>
 *   <li>otherwise, a destination in a prefix of {@link XdpPrograms#DESTINATION_PREFIXES_V4} /
 *       {@link XdpPrograms#DESTINATION_PREFIXES_V6}, as a VIP (a {@code mark} statement's destination network);</li>
 *   <li>otherwise, a source in a prefix of {@link XdpPrograms#SOURCE_PREFIXES_V4} /
 *       {@link XdpPrograms#SOURCE_PREFIXES_V6}, as a real server (a {@code mark} statement's source network).</li>
 * </ul>
 * The tries come last so that the frames the hash maps decide, a box's bulk of them, never pay for a trie walk,
 * and so that a prefix can never take a frame to the box's own addresses.
 * <p>
 * Always the kernel's, even to a VIP: ICMPv6 neighbour discovery (types 133 to 137 directly after the IPv6
 * header), which the kernel answers for the box's addresses, and echo requests to a VIP or to an address of a
 * destination prefix (ICMP type 8 and ICMPv6 128 directly after the header or after an IPv6 fragment header, and
 * every later fragment of an IPv4 ICMP message or of an ICMPv6 one behind a fragment header, which carries no type):
 * the kernel holds the VIPs on {@code lo}, reassembles a large ping and answers it itself. The one
 * exception is a VIP whose map value says its echo requests are jvs's ({@link XdpVipFilter#addVip(java.net.InetAddress,
 * boolean)}: {@code vip-arp on}, where the box does not hold it). A frame
 * too short for the header a decision needs (an ICMP message cut short before its type included) is the kernel's.
 * <p>
 * At tcx ingress the kernel has already taken an outer tag off into the skb's metadata
 * ({@link SkbContext#VLAN_PRESENT}); it counts as the first of the two, so both programs decide alike on the frame
 * as it was on the wire. Headers the tc program cannot reach directly (past the skb's linear part, which drivers
 * keep the headers in) leave the frame to the kernel: a duplicate at worst, never a loss.
 */
final class JvsTrafficRule
{
    /** Where a program type's context holds the packet pointers and the offloaded-tag flag. */
    enum Context
    {
        /** {@code struct xdp_md}: every tag is in the data. */
        XDP(XdpMetadata.DATA, XdpMetadata.DATA_END, -1),
        /** {@code struct __sk_buff} at tcx: the data starts at the MAC header. */
        TC(SkbContext.DATA, SkbContext.DATA_END, SkbContext.VLAN_PRESENT);

        private final int data;
        private final int dataEnd;
        private final int vlanPresent;

        Context(final int data, final int dataEnd, final int vlanPresent)
        {
            this.data = data;
            this.dataEnd = dataEnd;
            this.vlanPresent = vlanPresent;
        }
    }

    // EtherTypes as a 16-bit little-endian load of the big-endian field reads them.
    private static final int ETH_P_IPV4 = 0x0008;
    private static final int ETH_P_IPV6 = 0xdd86;
    private static final int ETH_P_8021Q = 0x0081;
    private static final int ETH_P_8021AD = 0xa888;
    /** The fragment offset of the IPv4 flags-and-offset word, as a little-endian load reads it. */
    private static final int IPV4_FRAGMENT_OFFSET_LOADED = 0xff1f;

    /** The fragment offset of an IPv6 fragment header's offset-and-flags word, as a little-endian load reads it. */
    private static final int IPV6_FRAGMENT_OFFSET_LOADED = 0xf8ff;
    private static final int NEXTHDR_FRAGMENT = 44;
    private static final int FRAGMENT_HEADER = 8;
    /** Where the offset-and-flags word sits in the fragment header. */
    private static final int FRAGMENT_OFFSET = 2;

    private static final int ETHERNET_HEADER = 14;
    private static final int ETHERTYPE_OFFSET = 12;
    private static final int IPPROTO_ICMP = 1;
    private static final int IPPROTO_ICMPV6 = 58;
    private static final int ICMP_ECHO_REQUEST = 8;
    private static final int ICMP_DESTINATION_UNREACHABLE = 3;
    private static final int ICMP_SOURCE_QUENCH = 4;
    private static final int ICMP_TIME_EXCEEDED = 11;
    private static final int ICMP_HEADER = 8;
    private static final int IPPROTO_IPIP = 4;
    private static final int ICMPV6_ECHO_REQUEST = 128;
    /** ICMPv6 router solicitation .. redirect (133..137): neighbour discovery, always the kernel's. */
    private static final int ND_FIRST_TYPE = 133;
    private static final int ND_LAST_TYPE = 137;
    /**
     * Where a trie's key is built on the stack: the 32-bit prefix length, then the address (at most 16 bytes),
     * word-aligned as the verifier wants stack stores.
     */
    private static final int TRIE_KEY = -24;

    private JvsTrafficRule()
    {
    }

    /**
     * Emits the decision: a jump to {@code jvs} for jvs's frames and to {@code kernel} for the rest, both labels
     * the caller binds. On entry r1 holds the context; on either jump r6 still does (it survives helper calls),
     * for the caller's own use. The decision's labels start with "rule_".
     * <p>
     * Registers: r7 = the network header and r8 = 1 for an echo request, 2 for an IPv4 error quoting IP in
     * IP, else 0, survive helper calls; r3 = data_end does
     * not, so every bounds check comes before the first map lookup. Stack: a trie key at r10 - 24 .. r10 - 4.
     */
    static void decide(final BpfAssembler asm, final Context context, final String jvs, final String kernel)
    {
        final Labels labels = new Labels(jvs, kernel);
        asm.mov64(R6, R1)
            .load(WORD, R2, R6, context.data)
            .load(WORD, R3, R6, context.dataEnd)
            .mov64(R7, R2)
            .add64(R7, ETHERNET_HEADER)
            .jumpIf(R7, GREATER, R3, kernel)
            .load(HALF, R4, R2, ETHERTYPE_OFFSET);
        if (context.vlanPresent >= 0)
        {
            asm.load(WORD, R5, R6, context.vlanPresent)
                .jumpIf(R5, NOT_EQUAL, 0, "rule_vlan2");
        }
        skipVlanTag(asm, labels, "rule_vlan1");
        skipVlanTag(asm, labels, "rule_vlan2");
        asm.label("rule_network")
            .jumpIf(R4, EQUAL, ETH_P_IPV4, "rule_ipv4")
            .jumpIf(R4, NOT_EQUAL, ETH_P_IPV6, kernel);
        ipv6(asm, labels);
        ipv4(asm, labels);
        // r0 = the value the VIP's (or the prefix's) lookup found: its echo requests are jvs's when it says so.
        asm.label("rule_vip")
            .jumpIf(R8, NOT_EQUAL, 1, jvs)
            .load(BYTE, R1, R0, XdpVipFilter.ECHO_IS_JVS)
            .jumpIf(R1, NOT_EQUAL, 0, jvs)
            .jump(kernel);
    }

    private record Labels(String jvs, String kernel)
    {
    }

    /** r4 = EtherType, r7 = the byte after it; a VLAN tag moves both 4 bytes on. */
    private static void skipVlanTag(final BpfAssembler asm, final Labels labels, final String tag)
    {
        final String skip = tag + "_skip";
        asm.label(tag)
            .jumpIf(R4, EQUAL, ETH_P_8021Q, skip)
            .jumpIf(R4, NOT_EQUAL, ETH_P_8021AD, "rule_network")
            .label(skip);
        boundsCheck(asm, labels, VLAN_TAG)
            .load(HALF, R4, R7, VLAN_INNER_ETHERTYPE)
            .add64(R7, VLAN_TAG);
    }

    private static void ipv6(final BpfAssembler asm, final Labels labels)
    {
        boundsCheck(asm, labels, IPV6_HEADER)
            .mov64(R8, 0)
            .load(BYTE, R4, R7, IPV6_NEXT_HEADER)
            .jumpIf(R4, EQUAL, NEXTHDR_FRAGMENT, "rule_ipv6_fragment")
            .jumpIf(R4, NOT_EQUAL, IPPROTO_ICMPV6, "rule_ipv6_lookup");
        boundsCheck(asm, labels, IPV6_HEADER + 1)
            .load(BYTE, R4, R7, IPV6_HEADER)
            .jumpIf(R4, EQUAL, ICMPV6_ECHO_REQUEST, "rule_ipv6_echo")
            .jumpIf(R4, LESS, ND_FIRST_TYPE, "rule_ipv6_lookup")
            .jumpIf(R4, LESS_OR_EQUAL, ND_LAST_TYPE, labels.kernel())
            .jump("rule_ipv6_lookup")
            // A fragment header directly after the IPv6 header: an ICMPv6 echo request's first fragment, or any later
            // fragment of ICMPv6 (no type), is the kernel's as the whole message would be (it reassembles them).
            .label("rule_ipv6_fragment");
        boundsCheck(asm, labels, IPV6_HEADER + FRAGMENT_HEADER)
            .load(BYTE, R4, R7, IPV6_HEADER)
            .jumpIf(R4, NOT_EQUAL, IPPROTO_ICMPV6, "rule_ipv6_lookup")
            .load(HALF, R4, R7, IPV6_HEADER + FRAGMENT_OFFSET)
            .alu64(BpfOpcode.ALU_AND, R4, IPV6_FRAGMENT_OFFSET_LOADED)
            .jumpIf(R4, NOT_EQUAL, 0, "rule_ipv6_echo");
        boundsCheck(asm, labels, IPV6_HEADER + FRAGMENT_HEADER + 1)
            .load(BYTE, R4, R7, IPV6_HEADER + FRAGMENT_HEADER)
            .jumpIf(R4, NOT_EQUAL, ICMPV6_ECHO_REQUEST, "rule_ipv6_lookup")
            .label("rule_ipv6_echo")
            .mov64(R8, 1)
            .label("rule_ipv6_lookup");
        jumpIfAddressIn(asm, XdpPrograms.VIPS_V6, IPV6_DESTINATION, "rule_vip");
        jumpIfAddressIn(asm, XdpPrograms.LOCALS_V6, IPV6_DESTINATION, labels.kernel());
        jumpIfAddressIn(asm, XdpPrograms.REAL_SERVERS_V6, IPV6_SOURCE, labels.jvs());
        jumpIfInPrefix(asm, XdpPrograms.DESTINATION_PREFIXES_V6, IPV6_DESTINATION, 16, "rule_vip");
        jumpIfInPrefix(asm, XdpPrograms.SOURCE_PREFIXES_V6, IPV6_SOURCE, 16, labels.jvs());
        asm.jump(labels.kernel());
    }

    /**
     * The ICMP type sits after a header of IHL words: r5 = the ICMP header, checked like a fixed offset (the
     * verifier follows the variable offset, at most 60).
     */
    private static void ipv4(final BpfAssembler asm, final Labels labels)
    {
        asm.label("rule_ipv4");
        boundsCheck(asm, labels, IPV4_HEADER)
            .mov64(R8, 0)
            .load(BYTE, R4, R7, IPV4_PROTOCOL)
            .jumpIf(R4, NOT_EQUAL, IPPROTO_ICMP, "rule_ipv4_lookup")
            .load(HALF, R4, R7, IPV4_FRAGMENT)
            .alu64(BpfOpcode.ALU_AND, R4, IPV4_FRAGMENT_OFFSET_LOADED)
            .jumpIf(R4, NOT_EQUAL, 0, "rule_ipv4_echo")
            .load(BYTE, R4, R7, 0)
            .alu64(BpfOpcode.ALU_AND, R4, 0xf)
            .alu64(BpfOpcode.ALU_LSH, R4, 2)
            .mov64(R5, R7)
            .add64(R5, R4)
            .mov64(R4, R5)
            .add64(R4, 1)
            .jumpIf(R4, GREATER, R3, labels.kernel())
            .load(BYTE, R4, R5, 0)
            .jumpIf(R4, NOT_EQUAL, ICMP_ECHO_REQUEST, "rule_ipv4_error")
            .label("rule_ipv4_echo")
            .mov64(R8, 1)
            .jump("rule_ipv4_lookup")
            // An error IPVS's ip_vs_in_icmp takes, quoting IP in IP: r8 = 2 (a router's about a tunnelled packet).
            .label("rule_ipv4_error")
            .jumpIf(R4, EQUAL, ICMP_DESTINATION_UNREACHABLE, "rule_ipv4_error_quote")
            .jumpIf(R4, EQUAL, ICMP_SOURCE_QUENCH, "rule_ipv4_error_quote")
            .jumpIf(R4, NOT_EQUAL, ICMP_TIME_EXCEEDED, "rule_ipv4_lookup")
            .label("rule_ipv4_error_quote")
            .mov64(R4, R5)
            .add64(R4, ICMP_HEADER + IPV4_PROTOCOL + 1)
            .jumpIf(R4, GREATER, R3, "rule_ipv4_lookup")
            .load(BYTE, R4, R5, ICMP_HEADER + IPV4_PROTOCOL)
            .jumpIf(R4, NOT_EQUAL, IPPROTO_IPIP, "rule_ipv4_lookup")
            .mov64(R8, 2)
            .label("rule_ipv4_lookup");
        jumpIfAddressIn(asm, XdpPrograms.VIPS_V4, IPV4_DESTINATION, "rule_vip");
        jumpIfAddressIn(asm, XdpPrograms.LOCALS_V4, IPV4_DESTINATION, "rule_ipv4_local");
        jumpIfAddressIn(asm, XdpPrograms.REAL_SERVERS_V4, IPV4_SOURCE, labels.jvs());
        jumpIfInPrefix(asm, XdpPrograms.DESTINATION_PREFIXES_V4, IPV4_DESTINATION, 4, "rule_vip");
        jumpIfInPrefix(asm, XdpPrograms.SOURCE_PREFIXES_V4, IPV4_SOURCE, 4, labels.jvs());
        asm.jump(labels.kernel())
            .label("rule_ipv4_local")
            .jumpIf(R8, EQUAL, 2, labels.jvs())
            .jump(labels.kernel());
    }

    /** Goes to the kernel unless {@code length} bytes from r7 lie within the frame: the check the verifier demands. */
    private static BpfAssembler boundsCheck(final BpfAssembler asm, final Labels labels, final int length)
    {
        return asm.mov64(R5, R7)
            .add64(R5, length)
            .jumpIf(R5, GREATER, R3, labels.kernel());
    }

    /** The key is the address in the packet itself (already bounds-checked), so nothing is copied. */
    private static void jumpIfAddressIn(
        final BpfAssembler asm, final String map, final int addressOffset, final String label)
    {
        asm.loadMap(R1, map)
            .mov64(R2, R7)
            .add64(R2, addressOffset)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, NOT_EQUAL, 0, label);
    }

    /**
     * An LPM trie's key is {@code struct bpf_lpm_trie_key_u8}, the prefix length before the address, so the
     * address (already bounds-checked) is copied a word at a time behind a full-length prefix on the stack: the
     * trie finds the longest stored prefix that holds it ({@code trie_lookup_elem}).
     */
    private static void jumpIfInPrefix(final BpfAssembler asm, final String map, final int addressOffset,
        final int addressBytes, final String label)
    {
        asm.storeImmediate(WORD, R10, TRIE_KEY, addressBytes * Byte.SIZE);
        for (int word = 0; word < addressBytes; word += Integer.BYTES)
        {
            asm.load(WORD, R1, R7, addressOffset + word)
                .store(WORD, R10, TRIE_KEY + Integer.BYTES + word, R1);
        }
        asm.loadMap(R1, map)
            .mov64(R2, R10)
            .add64(R2, TRIE_KEY)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, NOT_EQUAL, 0, label);
    }
}
