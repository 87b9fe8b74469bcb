package io.jvs.nativebindings.bpf;

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
import static io.jvs.nativebindings.bpf.BpfSize.BYTE;
import static io.jvs.nativebindings.bpf.BpfSize.HALF;
import static io.jvs.nativebindings.bpf.BpfSize.WORD;

/**
 * The two XDP programs jvs attaches in front of its AF_XDP sockets, assembled from raw instructions:
 * <ul>
 *   <li>{@link #redirectAll}: every packet to the socket of its receive queue;</li>
 *   <li>{@link #redirectJvsTraffic}: only the packets jvs must see, everything else to the kernel.</li>
 * </ul>
 * Both redirect through the XSKMAP named {@link #XSKS}, keyed by {@code rx_queue_index}; when that queue
 * has no socket, {@code bpf_redirect_map} returns the fallback action instead (XDP_PASS in production).
 */
public final class XdpPrograms
{
    /** The XSKMAP: receive queue index to AF_XDP socket. */
    public static final String XSKS = "xsks";
    /** HASH maps keyed by an address in network byte order, as it stands in the packet. */
    public static final String VIPS_V4 = "vips_v4";
    public static final String VIPS_V6 = "vips_v6";
    public static final String REAL_SERVERS_V4 = "reals_v4";
    public static final String REAL_SERVERS_V6 = "reals_v6";
    /** The box's own addresses: a real server talking to the box itself (SSH, health checks) is not NAT. */
    public static final String LOCALS_V4 = "locals_v4";
    public static final String LOCALS_V6 = "locals_v6";

    // EtherTypes as a 16-bit little-endian load of the big-endian field reads them.
    private static final int ETH_P_IPV4 = 0x0008;
    private static final int ETH_P_IPV6 = 0xdd86;
    private static final int ETH_P_8021Q = 0x0081;
    private static final int ETH_P_8021AD = 0xa888;

    private static final int ETHERNET_HEADER = 14;
    private static final int ETHERTYPE_OFFSET = 12;
    private static final int VLAN_TAG = 4;
    private static final int VLAN_INNER_ETHERTYPE = 2;
    private static final int IPV4_HEADER = 20;
    private static final int IPV4_SOURCE = 12;
    private static final int IPV4_DESTINATION = 16;
    private static final int IPV6_HEADER = 40;
    private static final int IPV6_NEXT_HEADER = 6;
    private static final int IPV6_SOURCE = 8;
    private static final int IPV6_DESTINATION = 24;
    private static final int IPPROTO_ICMPV6 = 58;
    /** ICMPv6 router solicitation .. redirect (133..137): neighbour discovery, always the kernel's. */
    private static final int ND_FIRST_TYPE = 133;
    private static final int ND_LAST_TYPE = 137;

    private XdpPrograms()
    {
    }

    /**
     * Program 1 of the kernel-bypass notes: {@code return bpf_redirect_map(&xsks, ctx->rx_queue_index,
     * whenNoSocket)}.
     *
     * @param whenNoSocket the action when the queue has no socket: XDP_PASS (or ABORTED, DROP, TX).
     */
    public static BpfBytecode redirectAll(final int whenNoSocket)
    {
        final BpfAssembler asm = new BpfAssembler()
            .load(WORD, R2, R1, XdpMetadata.RX_QUEUE_INDEX);
        return redirectToQueueSocket(asm, whenNoSocket).build();
    }

    /**
     * Redirects the traffic jvs serves and passes the rest to the kernel (ARP, SSH and routing protocols
     * to the box, IPv6 neighbour discovery, anything not IP):
     * <ul>
     *   <li>IPv4 or IPv6 with a destination in {@link #VIPS_V4} / {@link #VIPS_V6}: new and established
     *       connections to a virtual service;</li>
     *   <li>otherwise, a destination in {@link #LOCALS_V4} / {@link #LOCALS_V6} (the box's own addresses)
     *       goes to the kernel whatever its source: a real server's SSH session with the box, or its
     *       answer to the box's health check, is the kernel's;</li>
     *   <li>otherwise, a source in {@link #REAL_SERVERS_V4} / {@link #REAL_SERVERS_V6}: NAT return traffic,
     *       which jvs rewrites back to the VIP;</li>
     * </ul>
     * untagged or behind up to two VLAN tags (802.1Q or 802.1ad, in any order). ICMPv6 neighbour discovery
     * (types 133 to 137 directly after the IPv6 header) always goes to the kernel, even to a VIP: the
     * kernel answers for the box's addresses. A frame too short for the header a decision needs is passed.
     * <p>
     * Registers: r6 = ctx and r7 = the network header survive helper calls; r3 = data_end does not, so
     * every bounds check comes before the first map lookup.
     */
    public static BpfBytecode redirectJvsTraffic(final int whenNoSocket)
    {
        final BpfAssembler asm = new BpfAssembler()
            .mov64(R6, R1)
            .load(WORD, R2, R6, XdpMetadata.DATA)
            .load(WORD, R3, R6, XdpMetadata.DATA_END)
            .mov64(R7, R2)
            .add64(R7, ETHERNET_HEADER)
            .jumpIf(R7, GREATER, R3, "pass")
            .load(HALF, R4, R2, ETHERTYPE_OFFSET);
        skipVlanTag(asm, "tag1");
        skipVlanTag(asm, "tag2");
        asm.label("network")
            .jumpIf(R4, EQUAL, ETH_P_IPV4, "ipv4")
            .jumpIf(R4, NOT_EQUAL, ETH_P_IPV6, "pass");
        ipv6(asm);
        ipv4(asm);
        asm.label("pass")
            .mov64(R0, XdpAction.PASS)
            .exit()
            .label("redirect")
            .load(WORD, R2, R6, XdpMetadata.RX_QUEUE_INDEX);
        return redirectToQueueSocket(asm, whenNoSocket).build();
    }

    /** r4 = EtherType, r7 = the byte after it; a VLAN tag moves both 4 bytes on. */
    private static void skipVlanTag(final BpfAssembler asm, final String tag)
    {
        asm.jumpIf(R4, EQUAL, ETH_P_8021Q, tag)
            .jumpIf(R4, NOT_EQUAL, ETH_P_8021AD, "network")
            .label(tag);
        boundsCheck(asm, VLAN_TAG)
            .load(HALF, R4, R7, VLAN_INNER_ETHERTYPE)
            .add64(R7, VLAN_TAG);
    }

    private static void ipv6(final BpfAssembler asm)
    {
        boundsCheck(asm, IPV6_HEADER)
            .load(BYTE, R4, R7, IPV6_NEXT_HEADER)
            .jumpIf(R4, NOT_EQUAL, IPPROTO_ICMPV6, "ipv6_lookup");
        boundsCheck(asm, IPV6_HEADER + 1)
            .load(BYTE, R4, R7, IPV6_HEADER)
            .jumpIf(R4, LESS, ND_FIRST_TYPE, "ipv6_lookup")
            .jumpIf(R4, LESS_OR_EQUAL, ND_LAST_TYPE, "pass")
            .label("ipv6_lookup");
        redirectIfAddressIn(asm, VIPS_V6, IPV6_DESTINATION);
        passIfAddressIn(asm, LOCALS_V6, IPV6_DESTINATION);
        redirectIfAddressIn(asm, REAL_SERVERS_V6, IPV6_SOURCE);
        asm.jump("pass");
    }

    private static void ipv4(final BpfAssembler asm)
    {
        asm.label("ipv4");
        boundsCheck(asm, IPV4_HEADER);
        redirectIfAddressIn(asm, VIPS_V4, IPV4_DESTINATION);
        passIfAddressIn(asm, LOCALS_V4, IPV4_DESTINATION);
        redirectIfAddressIn(asm, REAL_SERVERS_V4, IPV4_SOURCE);
    }

    /** Passes the frame unless {@code length} bytes from r7 lie within it: the check the verifier demands. */
    private static BpfAssembler boundsCheck(final BpfAssembler asm, final int length)
    {
        return asm.mov64(R5, R7)
            .add64(R5, length)
            .jumpIf(R5, GREATER, R3, "pass");
    }

    /** The key is the address in the packet itself (already bounds-checked), so nothing is copied. */
    private static void redirectIfAddressIn(final BpfAssembler asm, final String map, final int addressOffset)
    {
        asm.loadMap(R1, map)
            .mov64(R2, R7)
            .add64(R2, addressOffset)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, NOT_EQUAL, 0, "redirect");
    }

    private static void passIfAddressIn(final BpfAssembler asm, final String map, final int addressOffset)
    {
        asm.loadMap(R1, map)
            .mov64(R2, R7)
            .add64(R2, addressOffset)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, NOT_EQUAL, 0, "pass");
    }

    /** r2 = the queue index; returns bpf_redirect_map(&xsks, r2, whenNoSocket). */
    private static BpfAssembler redirectToQueueSocket(final BpfAssembler asm, final int whenNoSocket)
    {
        if (whenNoSocket < XdpAction.ABORTED || whenNoSocket > XdpAction.TX)
        {
            throw new IllegalArgumentException("bpf_redirect_map falls back to XDP_ABORTED..XDP_TX only, not " +
                XdpAction.name(whenNoSocket));
        }
        return asm.loadMap(R1, XSKS)
            .mov64(R3, whenNoSocket)
            .call(BpfHelper.REDIRECT_MAP)
            .exit();
    }
}
