package io.jvs.nativebindings.bpf;

import static io.jvs.nativebindings.bpf.BpfCondition.EQUAL;
import static io.jvs.nativebindings.bpf.BpfCondition.NOT_EQUAL;
import static io.jvs.nativebindings.bpf.BpfRegister.R0;
import static io.jvs.nativebindings.bpf.BpfRegister.R1;
import static io.jvs.nativebindings.bpf.BpfRegister.R10;
import static io.jvs.nativebindings.bpf.BpfRegister.R2;
import static io.jvs.nativebindings.bpf.BpfRegister.R3;
import static io.jvs.nativebindings.bpf.BpfRegister.R6;
import static io.jvs.nativebindings.bpf.BpfRegister.R7;
import static io.jvs.nativebindings.bpf.BpfSize.DOUBLE;
import static io.jvs.nativebindings.bpf.BpfSize.WORD;

/**
 * The two XDP programs jvs attaches in front of its AF_XDP sockets, assembled from raw instructions:
 * <ul>
 *   <li>{@link #redirectAll}: every packet to the socket of its receive queue;</li>
 *   <li>{@link #redirectJvsTraffic}: only the packets jvs must see, everything else to the kernel.</li>
 * </ul>
 * Both redirect through the XSKMAP named {@link #XSKS}, keyed by {@code rx_queue_index}; when that queue
 * has no socket, {@code bpf_redirect_map} returns the fallback action instead (XDP_PASS in production), and
 * the second counts the frame.
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
    /**
     * LPM tries ({@link BpfMap#TYPE_LPM_TRIE}) of destination prefixes wider than a host whose traffic is jvs's as
     * a VIP's is (a {@code mark} statement's {@code dst 203.0.113.0/24}); keyed by the prefix length (32-bit, host
     * order) and the address in network byte order. Looked up only when the hash maps have not decided.
     */
    public static final String DESTINATION_PREFIXES_V4 = "dst_nets_v4";
    public static final String DESTINATION_PREFIXES_V6 = "dst_nets_v6";
    /** As {@link #DESTINATION_PREFIXES_V4}, for sources whose traffic is jvs's as a real server's is. */
    public static final String SOURCE_PREFIXES_V4 = "src_nets_v4";
    public static final String SOURCE_PREFIXES_V6 = "src_nets_v6";
    /**
     * An ARRAY of one 8-byte counter: the frames {@link #redirectJvsTraffic} would have redirected to a queue that
     * has no socket.
     */
    public static final String UNPLACED = "unplaced";

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
        return redirectToQueueSocket(asm, whenNoSocket).exit().build();
    }

    /**
     * Redirects the traffic jvs serves and passes the rest to the kernel (ARP, SSH and routing protocols to the
     * box, IPv6 neighbour discovery, ping to a VIP, anything not IP): the decision of {@link JvsTrafficRule}, which
     * {@link TcPrograms#stealJvsTraffic} shares.
     * <p>
     * A frame whose queue has no socket in {@link #XSKS} (bpf_redirect_map returns the fallback instead of
     * XDP_REDIRECT) is counted in {@link #UNPLACED} and gets {@code whenNoSocket}: with XDP_PASS it reaches the
     * kernel instead of vanishing, and the count says that jvs is missing a queue's frames.
     */
    public static BpfBytecode redirectJvsTraffic(final int whenNoSocket)
    {
        final BpfAssembler asm = new BpfAssembler();
        redirectJvsTraffic(asm, whenNoSocket);
        return asm.build();
    }

    /**
     * {@link #redirectJvsTraffic} behind {@link XdpFlowTable}'s fast path: a frame of a flow in
     * {@link XdpFlowTable#FLOWS} is rewritten and redirected out of its egress port in XDP; every other frame is
     * decided as {@link #redirectJvsTraffic} decides it.
     */
    public static BpfBytecode forwardFlowsThenRedirectJvsTraffic(final int whenNoSocket)
    {
        final BpfAssembler asm = new BpfAssembler();
        XdpFlowTable.emit(asm, "rules");
        asm.label("rules");
        redirectJvsTraffic(asm, whenNoSocket);
        return asm.build();
    }

    private static void redirectJvsTraffic(final BpfAssembler asm, final int whenNoSocket)
    {
        JvsTrafficRule.decide(asm, JvsTrafficRule.Context.XDP, "redirect", "pass");
        asm.label("pass")
            .mov64(R0, XdpAction.PASS)
            .exit()
            .label("redirect")
            .load(WORD, R2, R6, XdpMetadata.RX_QUEUE_INDEX);
        redirectToQueueSocket(asm, whenNoSocket)
            .jumpIf(R0, NOT_EQUAL, XdpAction.REDIRECT, "unplaced")
            .exit()
            .label("unplaced")
            .mov64(R7, R0)
            .storeImmediate(WORD, R10, -4, 0)
            .loadMap(R1, UNPLACED)
            .mov64(R2, R10)
            .add64(R2, -4)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, EQUAL, 0, "counted")
            .mov64(R1, 1)
            .atomicAdd(DOUBLE, R0, 0, R1)
            .label("counted")
            .mov64(R0, R7)
            .exit();
    }

    /** r2 = the queue index; r0 = bpf_redirect_map(&xsks, r2, whenNoSocket). */
    private static BpfAssembler redirectToQueueSocket(final BpfAssembler asm, final int whenNoSocket)
    {
        if (whenNoSocket < XdpAction.ABORTED || whenNoSocket > XdpAction.TX)
        {
            throw new IllegalArgumentException("bpf_redirect_map falls back to XDP_ABORTED..XDP_TX only, not " +
                XdpAction.name(whenNoSocket));
        }
        return asm.loadMap(R1, XSKS)
            .mov64(R3, whenNoSocket)
            .call(BpfHelper.REDIRECT_MAP);
    }
}
