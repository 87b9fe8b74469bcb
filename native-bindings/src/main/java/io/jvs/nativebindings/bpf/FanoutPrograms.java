package io.jvs.nativebindings.bpf;

import io.jvs.nativebindings.Syscalls;

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
import static io.jvs.nativebindings.bpf.BpfCondition.NOT_EQUAL;
import static io.jvs.nativebindings.bpf.BpfRegister.R0;
import static io.jvs.nativebindings.bpf.BpfRegister.R1;
import static io.jvs.nativebindings.bpf.BpfRegister.R10;
import static io.jvs.nativebindings.bpf.BpfRegister.R2;
import static io.jvs.nativebindings.bpf.BpfRegister.R3;
import static io.jvs.nativebindings.bpf.BpfRegister.R4;
import static io.jvs.nativebindings.bpf.BpfRegister.R5;
import static io.jvs.nativebindings.bpf.BpfRegister.R6;
import static io.jvs.nativebindings.bpf.BpfRegister.R7;
import static io.jvs.nativebindings.bpf.BpfRegister.R8;
import static io.jvs.nativebindings.bpf.BpfRegister.R9;
import static io.jvs.nativebindings.bpf.BpfSize.BYTE;
import static io.jvs.nativebindings.bpf.BpfSize.HALF;
import static io.jvs.nativebindings.bpf.BpfSize.WORD;

/**
 * The program of a {@code PACKET_FANOUT_EBPF} group of AF_PACKET sockets, one socket per worker: it returns the
 * index of the socket that gets a frame, the worker that owns the frame's client by exactly the rule and hash of
 * {@code io.jvs.core.pipeline.ClientDispatch} (the source of a frame to a VIP, the destination of any other, an
 * ICMP error by the packet it quotes, an IPv4 one quoting IP in IP by the packet inside; the client's 32-bit fold
 * times 2654435761, the product's top 16 bits modulo
 * the worker count), so both directions of a connection reach one worker. The virtual addresses are looked up in
 * the {@link XdpVipFilter}'s {@link XdpPrograms#VIPS_V4} and {@link XdpPrograms#VIPS_V6} maps and, when those
 * miss, its tries of destination prefixes ({@link XdpPrograms#DESTINATION_PREFIXES_V4},
 * {@link XdpPrograms#DESTINATION_PREFIXES_V6}: {@code mark} statements' networks, virtual as a VIP is), so the
 * sets change while the group runs. A frame the program cannot parse goes to socket 0.
 * <p>
 * The kernel runs it in {@code fanout_demux_bpf} on the skb as {@code __netif_receive_skb_core} hands it to the
 * packet taps (verified on a veth, see {@code FanoutProgramsKernelTest}): the data starts at the network header
 * ({@code eth_type_trans} pulled the MAC header), an outer 802.1Q or 802.1ad tag is already in the skb's metadata
 * ({@link SkbContext#VLAN_PRESENT}, with {@link SkbContext#PROTOCOL} the EtherType behind it), and any further tag
 * is still in the data, {@code skb->protocol} being its TPID and the data starting at its TCI. The offloaded tag
 * counts as the first of the three {@code ClientDispatch} skips. Socket filters have no direct packet access,
 * so the program copies what it reads into its stack with {@link BpfHelper#SKB_LOAD_BYTES}; the map keys are
 * those copies. The kernel takes the result modulo the group's size: with one socket per worker joined in worker
 * order (the group's array index is the join order), socket {@code i} is worker {@code i}.
 * <p>
 * Registers: r6 = ctx, r7 = the bytes from the network header on, r8 = the network header's offset in the data,
 * r9 = the IPv4 header's length; all survive helper calls. Stack: the IP header at {@link #HEADER}, the ICMP type
 * at {@link #ICMP_TYPE}, an inner EtherType at {@link #ETHER_TYPE}, a trie's key at {@link #TRIE_KEY}.
 */
public final class FanoutPrograms
{
    public static final String NAME = "jvs_fanout";

    // Host-order EtherTypes, after the program's 16-bit byte swap of the field.
    private static final int ETH_P_IPV4 = 0x0800;
    private static final int ETH_P_IPV6 = 0x86DD;
    private static final int ETH_P_8021Q = 0x8100;
    private static final int ETH_P_8021AD = 0x88A8;
    private static final int ETH_P_QINQ_LEGACY = 0x9100;
    /** The tags {@code ClientDispatch} steps over (EthernetHeader.MAX_TAGS). */
    private static final int MAX_TAGS = 3;

    private static final int IPV6_ADDRESS = 16;
    private static final int ICMP_HEADER = 8;
    private static final int IPPROTO_ICMP = 1;
    private static final int IPPROTO_ICMPV6 = 58;
    private static final int IPPROTO_IPIP = 4;
    /** The fragment offset of the IPv4 flags-and-offset word, as a little-endian load reads it. */
    private static final int IPV4_FRAGMENT_OFFSET_LOADED = 0xff1f;
    /** ICMP errors (RFC 792): destination unreachable, source quench, redirect, time exceeded, parameter problem. */
    private static final int[] ICMP_ERRORS = {3, 4, 5, 11, 12};
    /** ICMPv6 errors (RFC 4443): destination unreachable .. parameter problem. */
    private static final int ICMPV6_FIRST_ERROR = 1;
    private static final int ICMPV6_LAST_ERROR = 4;

    /** The multiplier of the kernel's hash_32, as {@code ClientDispatch.MULTIPLIER}. */
    private static final int MULTIPLIER = 0x9E37_79B1;
    private static final int MAX_WORKERS = 1 << 16;

    /** Stack offsets from r10 (the verifier wants loads from the stack aligned to their size). */
    private static final int HEADER = -64;
    private static final int ICMP_TYPE = -72;
    /** The first 10 bytes of an ICMP error's quoted IPv4 header: its version and length, its protocol. */
    private static final int QUOTE = -88;
    private static final int ETHER_TYPE = -2;
    /** The 32-bit prefix length and the address (at most 16 bytes), past the IPv6 header's 40. */
    private static final int TRIE_KEY = -24;

    private FanoutPrograms()
    {
    }

    /**
     * @param workers the sockets of the group, 1..65536 (ClientDispatch's range).
     * @return the program; it names the maps {@link XdpPrograms#VIPS_V4}, {@link XdpPrograms#VIPS_V6},
     *         {@link XdpPrograms#DESTINATION_PREFIXES_V4} and {@link XdpPrograms#DESTINATION_PREFIXES_V6}.
     */
    public static BpfBytecode clientDispatch(final int workers)
    {
        if (workers < 1 || workers > MAX_WORKERS)
        {
            throw new IllegalArgumentException("worker count " + workers + " not in 1.." + MAX_WORKERS);
        }
        final BpfAssembler asm = new BpfAssembler()
            .mov64(R6, R1)
            .load(WORD, R7, R6, SkbContext.LEN)
            .mov64(R8, 0)
            .load(WORD, R4, R6, SkbContext.PROTOCOL)
            .toBigEndian(R4, 16)
            .load(WORD, R5, R6, SkbContext.VLAN_PRESENT)
            .jumpIf(R5, NOT_EQUAL, 0, "tag2");
        for (int tag = 1; tag <= MAX_TAGS; tag++)
        {
            skipTag(asm, "tag" + tag);
        }
        asm.label("network")
            .alu64(BpfOpcode.ALU_SUB, R7, R8)
            .jumpIf(R4, EQUAL, ETH_P_IPV4, "ipv4")
            .jumpIf(R4, NOT_EQUAL, ETH_P_IPV6, "worker0");
        ipv6(asm);
        ipv4(asm);
        return asm.label("hash")
            .toBigEndian(R0, 32)
            .alu32(BpfOpcode.ALU_MUL, R0, MULTIPLIER)
            .alu32(BpfOpcode.ALU_RSH, R0, 16)
            .alu32(BpfOpcode.ALU_MOD, R0, workers)
            .exit()
            .label("worker0")
            .mov64(R0, 0)
            .exit()
            .build();
    }

    /**
     * Loads {@link #clientDispatch} over the VIP maps of {@code vips} as a socket filter, for
     * {@code PACKET_FANOUT_DATA}.
     *
     * @throws io.jvs.nativebindings.NativeCallException EPERM without CAP_BPF.
     */
    public static BpfProgram load(final Syscalls syscalls, final int workers, final XdpVipFilter vips)
    {
        return BpfProgram.load(syscalls, BpfProgram.TYPE_SOCKET_FILTER, 0, NAME,
            clientDispatch(workers).link(vips.mapFds()), 0);
    }

    /**
     * r4 = the EtherType (host order) at data + r8 - 2; a tag (any of ClientDispatch's TPIDs) moves r8 4 bytes on
     * and r4 to the EtherType behind it, or sends a frame cut short inside the tag to worker 0.
     */
    private static void skipTag(final BpfAssembler asm, final String tag)
    {
        final String skip = tag + "_skip";
        asm.label(tag)
            .jumpIf(R4, EQUAL, ETH_P_8021Q, skip)
            .jumpIf(R4, EQUAL, ETH_P_8021AD, skip)
            .jumpIf(R4, NOT_EQUAL, ETH_P_QINQ_LEGACY, "network")
            .label(skip)
            .mov64(R2, R8)
            .add64(R2, VLAN_TAG)
            .jumpIf(R7, LESS, R2, "worker0");
        loadBytes(asm, VLAN_INNER_ETHERTYPE, ETHER_TYPE, Short.BYTES)
            .load(HALF, R4, R10, ETHER_TYPE)
            .toBigEndian(R4, 16)
            .add64(R8, VLAN_TAG);
    }

    /**
     * {@code bpf_skb_load_bytes(ctx, r8 + offset, r10 + to, length)}: bytes at {@code offset} from the network
     * header into the stack. A failed copy, which the length checks before it rule out, sends the frame to
     * worker 0.
     */
    private static BpfAssembler loadBytes(final BpfAssembler asm, final int offset, final int to, final int length)
    {
        asm.mov64(R2, R8);
        return copy(asm, offset, to, length);
    }

    /** As {@link #loadBytes}, from r8 + r9 + offset (r9 = the IPv4 header length). */
    private static BpfAssembler loadBytesPastHeader(
        final BpfAssembler asm, final int offset, final int to, final int length)
    {
        asm.mov64(R2, R8)
            .add64(R2, R9);
        return copy(asm, offset, to, length);
    }

    private static BpfAssembler copy(final BpfAssembler asm, final int offset, final int to, final int length)
    {
        return asm.add64(R2, offset)
            .mov64(R1, R6)
            .mov64(R3, R10)
            .add64(R3, to)
            .mov64(R4, length)
            .call(BpfHelper.SKB_LOAD_BYTES)
            .jumpIf(R0, NOT_EQUAL, 0, "worker0");
    }

    private static void ipv4(final BpfAssembler asm)
    {
        asm.label("ipv4")
            .jumpIf(R7, LESS, IPV4_HEADER, "worker0");
        loadBytes(asm, 0, HEADER, IPV4_HEADER)
            .load(BYTE, R2, R10, HEADER + IPV4_PROTOCOL)
            .jumpIf(R2, NOT_EQUAL, IPPROTO_ICMP, "ipv4_plain")
            .load(HALF, R2, R10, HEADER + IPV4_FRAGMENT)
            .alu64(BpfOpcode.ALU_AND, R2, IPV4_FRAGMENT_OFFSET_LOADED)
            .jumpIf(R2, NOT_EQUAL, 0, "ipv4_plain")
            .load(BYTE, R9, R10, HEADER)
            .alu64(BpfOpcode.ALU_AND, R9, 0xf)
            .alu64(BpfOpcode.ALU_LSH, R9, 2)
            .jumpIf(R9, LESS, IPV4_HEADER, "ipv4_plain")
            .mov64(R2, R9)
            .add64(R2, ICMP_HEADER + IPV4_HEADER)
            .jumpIf(R7, LESS, R2, "ipv4_plain");
        loadBytesPastHeader(asm, 0, ICMP_TYPE, 1)
            .load(BYTE, R2, R10, ICMP_TYPE);
        for (final int type : ICMP_ERRORS)
        {
            asm.jumpIf(R2, EQUAL, type, "ipv4_quoted");
        }
        asm.jump("ipv4_plain")
            .label("ipv4_quoted");
        // IP in IP with the inner header whole (a router's error about a tunnelled packet): the inner packet's
        // source and destination go where the outer ones were. r3 = the quoted header's length.
        loadBytesPastHeader(asm, ICMP_HEADER, QUOTE, IPV4_PROTOCOL + 1)
            .load(BYTE, R2, R10, QUOTE + IPV4_PROTOCOL)
            .jumpIf(R2, NOT_EQUAL, IPPROTO_IPIP, "ipv4_quote_addresses")
            .load(BYTE, R3, R10, QUOTE)
            .alu64(BpfOpcode.ALU_AND, R3, 0xf)
            .alu64(BpfOpcode.ALU_LSH, R3, 2)
            .jumpIf(R3, LESS, IPV4_HEADER, "ipv4_quote_addresses")
            .mov64(R2, R9)
            .add64(R2, R3)
            .add64(R2, ICMP_HEADER + IPV4_HEADER)
            .jumpIf(R7, LESS, R2, "ipv4_quote_addresses")
            .mov64(R2, R8)
            .add64(R2, R9)
            .add64(R2, R3);
        copy(asm, ICMP_HEADER + IPV4_SOURCE, HEADER + IPV4_SOURCE, 2 * Integer.BYTES);
        chooseV4(asm, HEADER + IPV4_DESTINATION, HEADER + IPV4_SOURCE, "ipv4_tunnelled");
        // Else the quoted source and destination go where the outer ones were.
        asm.label("ipv4_quote_addresses");
        loadBytesPastHeader(asm, ICMP_HEADER + IPV4_SOURCE, HEADER + IPV4_SOURCE, 2 * Integer.BYTES);
        chooseV4(asm, HEADER + IPV4_DESTINATION, HEADER + IPV4_SOURCE, "ipv4_quoted");
        asm.label("ipv4_plain");
        chooseV4(asm, HEADER + IPV4_SOURCE, HEADER + IPV4_DESTINATION, "ipv4_plain");
    }

    private static void ipv6(final BpfAssembler asm)
    {
        asm.label("ipv6")
            .jumpIf(R7, LESS, IPV6_HEADER, "worker0");
        loadBytes(asm, 0, HEADER, IPV6_HEADER)
            .load(BYTE, R2, R10, HEADER + IPV6_NEXT_HEADER)
            .jumpIf(R2, NOT_EQUAL, IPPROTO_ICMPV6, "ipv6_plain")
            .jumpIf(R7, LESS, IPV6_HEADER + ICMP_HEADER + IPV6_HEADER, "ipv6_plain");
        loadBytes(asm, IPV6_HEADER, ICMP_TYPE, 1)
            .load(BYTE, R2, R10, ICMP_TYPE)
            .jumpIf(R2, LESS, ICMPV6_FIRST_ERROR, "ipv6_plain")
            .jumpIf(R2, GREATER, ICMPV6_LAST_ERROR, "ipv6_plain");
        loadBytes(asm, IPV6_HEADER + ICMP_HEADER + IPV6_SOURCE, HEADER + IPV6_SOURCE, 2 * IPV6_ADDRESS);
        chooseV6(asm, HEADER + IPV6_DESTINATION, HEADER + IPV6_SOURCE, "ipv6_quoted");
        asm.label("ipv6_plain");
        chooseV6(asm, HEADER + IPV6_SOURCE, HEADER + IPV6_DESTINATION, "ipv6_plain");
    }

    /**
     * r0 = the client's address as loaded from the stack: the one at {@code address} unless it is a VIP or in a
     * destination prefix (looked up only when the VIPs miss), then its {@code peer}; then the hash. As
     * ClientDispatch.choiceV4.
     */
    private static void chooseV4(final BpfAssembler asm, final int peer, final int address, final String prefix)
    {
        lookupVip(asm, XdpPrograms.VIPS_V4, address)
            .jumpIf(R0, NOT_EQUAL, 0, prefix + "_peer");
        lookupPrefix(asm, XdpPrograms.DESTINATION_PREFIXES_V4, address, Integer.BYTES)
            .jumpIf(R0, NOT_EQUAL, 0, prefix + "_peer")
            .load(WORD, R0, R10, address)
            .jump("hash")
            .label(prefix + "_peer")
            .load(WORD, R0, R10, peer)
            .jump("hash");
    }

    /** As {@link #chooseV4}, the address being the XOR of its four words (the fold, byte-swapped like them). */
    private static void chooseV6(final BpfAssembler asm, final int peer, final int address, final String prefix)
    {
        lookupVip(asm, XdpPrograms.VIPS_V6, address)
            .jumpIf(R0, NOT_EQUAL, 0, prefix + "_peer");
        lookupPrefix(asm, XdpPrograms.DESTINATION_PREFIXES_V6, address, IPV6_ADDRESS)
            .jumpIf(R0, NOT_EQUAL, 0, prefix + "_peer");
        fold(asm, address)
            .jump("hash")
            .label(prefix + "_peer");
        fold(asm, peer)
            .jump("hash");
    }

    private static BpfAssembler lookupVip(final BpfAssembler asm, final String map, final int address)
    {
        return asm.loadMap(R1, map)
            .mov64(R2, R10)
            .add64(R2, address)
            .call(BpfHelper.MAP_LOOKUP_ELEM);
    }

    /**
     * r0 = the trie's entry for the address at {@code address} on the stack, copied behind a full-length prefix
     * into the key {@code struct bpf_lpm_trie_key_u8} the trie takes (its longest stored prefix holding it).
     */
    private static BpfAssembler lookupPrefix(
        final BpfAssembler asm, final String map, final int address, final int addressBytes)
    {
        asm.storeImmediate(WORD, R10, TRIE_KEY, addressBytes * Byte.SIZE);
        for (int word = 0; word < addressBytes; word += Integer.BYTES)
        {
            asm.load(WORD, R1, R10, address + word)
                .store(WORD, R10, TRIE_KEY + Integer.BYTES + word, R1);
        }
        return asm.loadMap(R1, map)
            .mov64(R2, R10)
            .add64(R2, TRIE_KEY)
            .call(BpfHelper.MAP_LOOKUP_ELEM);
    }

    private static BpfAssembler fold(final BpfAssembler asm, final int address)
    {
        asm.load(WORD, R0, R10, address);
        for (int word = 1; word < IPV6_ADDRESS / Integer.BYTES; word++)
        {
            asm.load(WORD, R1, R10, address + word * Integer.BYTES)
                .alu64(BpfOpcode.ALU_XOR, R0, R1);
        }
        return asm;
    }
}
