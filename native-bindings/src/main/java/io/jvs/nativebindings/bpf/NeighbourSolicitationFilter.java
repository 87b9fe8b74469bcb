package io.jvs.nativebindings.bpf;

import io.jvs.nativebindings.Syscalls;

import static io.jvs.nativebindings.bpf.BpfCondition.LESS;
import static io.jvs.nativebindings.bpf.BpfCondition.NOT_EQUAL;
import static io.jvs.nativebindings.bpf.BpfRegister.R0;
import static io.jvs.nativebindings.bpf.BpfRegister.R1;
import static io.jvs.nativebindings.bpf.BpfRegister.R10;
import static io.jvs.nativebindings.bpf.BpfRegister.R2;
import static io.jvs.nativebindings.bpf.BpfRegister.R3;
import static io.jvs.nativebindings.bpf.BpfRegister.R4;
import static io.jvs.nativebindings.bpf.BpfRegister.R6;
import static io.jvs.nativebindings.bpf.BpfRegister.R7;
import static io.jvs.nativebindings.bpf.BpfSize.BYTE;
import static io.jvs.nativebindings.bpf.BpfSize.HALF;
import static io.jvs.nativebindings.bpf.BpfSize.WORD;

/**
 * The socket filter of an AF_PACKET {@code SOCK_RAW} socket that wants only ICMPv6 neighbour solicitations
 * (RFC 4861, type 135, code 0) carried straight after the fixed IPv6 header: everything else the socket's
 * {@code ETH_P_IPV6} binding lets through is dropped in the kernel instead of being copied to user space, which
 * matters because such a socket sees every IPv6 frame the interface receives.
 * <p>
 * The kernel runs it in {@code packet_rcv} through {@code run_filter} after pushing the MAC header back for a
 * {@code SOCK_RAW} socket ({@code skb_push(skb, skb->data - skb_mac_header(skb))}), so the data starts at the
 * Ethernet header. A VLAN tag is never in the data there: {@code __netif_receive_skb_core} has moved it to the
 * metadata and, with no VLAN device for it, cleared it and marked the frame {@code PACKET_OTHERHOST} before
 * handing it to a protocol's sockets (a user of the socket leaves those). Should a tag still be in the metadata
 * ({@link SkbContext#VLAN_PRESENT}), the frame is refused: its answer would need the tag. Note that
 * {@code BPF_PROG_TEST_RUN} hands a socket filter its data from the network header instead, so the program
 * cannot be checked that way; {@code NeighbourSolicitationFilterTest} checks it on a real socket.
 * <p>
 * The filter returns the frame's whole length to keep it and 0 to drop it. The solicitation's further checks
 * (hop limit 255, length, options) are the receiver's: they need no more than the kept bytes.
 */
public final class NeighbourSolicitationFilter
{
    public static final String NAME = "jvs_ns_filter";
    /** The shortest frame kept: Ethernet, IPv6 and the solicitation's 24 fixed bytes. */
    public static final int MINIMUM_FRAME = 14 + 40 + 24;

    private static final int ETH_HEADER = 14;
    private static final int ETHER_TYPE = 12;
    private static final int IPV6_HEADER = 40;
    private static final int IPV6_VERSION = ETH_HEADER;
    private static final int IPV6_NEXT_HEADER = ETH_HEADER + 6;
    private static final int ICMPV6_TYPE = ETH_HEADER + IPV6_HEADER;
    private static final int ICMPV6_CODE = ICMPV6_TYPE + 1;
    /** ICMPv6 type, code, checksum, reserved word, target address (RFC 4861 neighbour solicitation). */
    private static final int SOLICITATION = 24;

    /** Host order, after the program's 16-bit byte swap of the field. */
    private static final int ETH_P_IPV6 = 0x86DD;
    private static final int IPPROTO_ICMPV6 = 58;
    private static final int NEIGHBOUR_SOLICITATION = 135;

    /** The copied bytes: Ethernet and IPv6 headers and the ICMPv6 type and code, rounded up to 8 (aligned). */
    private static final int COPIED = 56;
    private static final int STACK = -COPIED;

    private NeighbourSolicitationFilter()
    {
    }

    /**
     * @return the program: it names no maps.
     */
    public static BpfBytecode program()
    {
        // Socket filters have no direct packet access: the headers are copied to the stack first.
        return new BpfAssembler()
            .mov64(R6, R1)
            .load(WORD, R7, R6, SkbContext.LEN)
            .load(WORD, R2, R6, SkbContext.VLAN_PRESENT)
            .jumpIf(R2, NOT_EQUAL, 0, "drop")
            .jumpIf(R7, LESS, MINIMUM_FRAME, "drop")
            .mov64(R1, R6)
            .mov64(R2, 0)
            .mov64(R3, R10)
            .add64(R3, STACK)
            .mov64(R4, COPIED)
            .call(BpfHelper.SKB_LOAD_BYTES)
            .jumpIf(R0, NOT_EQUAL, 0, "drop")
            .load(HALF, R2, R10, STACK + ETHER_TYPE)
            .toBigEndian(R2, 16)
            .jumpIf(R2, NOT_EQUAL, ETH_P_IPV6, "drop")
            .load(BYTE, R2, R10, STACK + IPV6_VERSION)
            .alu64(BpfOpcode.ALU_RSH, R2, 4)
            .jumpIf(R2, NOT_EQUAL, 6, "drop")
            .load(BYTE, R2, R10, STACK + IPV6_NEXT_HEADER)
            .jumpIf(R2, NOT_EQUAL, IPPROTO_ICMPV6, "drop")
            .load(BYTE, R2, R10, STACK + ICMPV6_TYPE)
            .jumpIf(R2, NOT_EQUAL, NEIGHBOUR_SOLICITATION, "drop")
            .load(BYTE, R2, R10, STACK + ICMPV6_CODE)
            .jumpIf(R2, NOT_EQUAL, 0, "drop")
            .mov64(R0, R7)
            .exit()
            .label("drop")
            .mov64(R0, 0)
            .exit()
            .build();
    }

    /**
     * Loads {@link #program} as a socket filter, to attach with {@code SO_ATTACH_BPF}.
     *
     * @throws io.jvs.nativebindings.NativeCallException EPERM without CAP_BPF.
     */
    public static BpfProgram load(final Syscalls syscalls)
    {
        return BpfProgram.load(syscalls, BpfProgram.TYPE_SOCKET_FILTER, 0, NAME, program(), 0);
    }
}
