package io.jvs.nativebindings.bpf;

import static io.jvs.nativebindings.bpf.BpfCondition.ANY_BIT_SET;
import static io.jvs.nativebindings.bpf.BpfCondition.EQUAL;
import static io.jvs.nativebindings.bpf.BpfCondition.GREATER;
import static io.jvs.nativebindings.bpf.BpfCondition.LESS;
import static io.jvs.nativebindings.bpf.BpfCondition.LESS_OR_EQUAL;
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
import static io.jvs.nativebindings.bpf.BpfSize.DOUBLE;
import static io.jvs.nativebindings.bpf.BpfSize.HALF;
import static io.jvs.nativebindings.bpf.BpfSize.WORD;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Map;

import io.jvs.nativebindings.Syscalls;

/**
 * Established IPv4 NAT and DR connections forwarded in XDP, as Katran forwards all of its traffic: the pipeline,
 * having placed a connection, puts each direction's rewrite in {@link #FLOWS}, and the XDP program
 * ({@link XdpPrograms#forwardFlowsThenRedirectJvsTraffic}) rewrites and redirects the frames it finds there without
 * them ever reaching an AF_XDP ring, so that on a copy-mode driver (a veth) they skip the two copies and the skb
 * the kernel makes per frame for the socket. Everything else goes on to the workers as before: a frame the table
 * does not hold, and any frame the table holds that the pipeline must see itself:
 * <ul>
 *   <li>not untagged IPv4 with a 20-byte header; a fragment; a TTL of 1 or less (time exceeded is the pipeline's
 *       to send);</li>
 *   <li>not TCP or UDP, or a header the pipeline would refuse (PacketParser's checks, no looser: an IP total length
 *       past the frame, a TCP data offset below 5 or past the packet, a UDP length below 8 or past the packet);</li>
 *   <li>a TCP segment with SYN, FIN or RST, which move the connection's state (ip_vs_proto_tcp's state table);</li>
 *   <li>a packet longer than the flow's MTU (frag-needed, or fragmenting, is the pipeline's).</li>
 * </ul>
 * The rewrite is byte for byte the pipeline's (Rewriter's natInbound, natOutbound, directRoute over Checksums'
 * incremental updates, RFC 1624 eqn. 3): the checksum adjustments are computed once per flow, when it is put, in
 * the byte order a little-endian load gives the packet's fields, and the program adds one to the field's
 * complement and folds, as Checksums.natAddressV4 and natPortV4 do; a UDP checksum of 0 stays 0 and a result of 0
 * is written 0xFFFF (RFC 768).
 * <p>
 * What the workers still need of a forwarded frame goes into the flow's slot of {@link #FLOW_STATS}, an mmap-able
 * array: packets and bytes (the IP total length, which IPVS counts) by atomic adds, and the time it was last seen
 * ({@code bpf_ktime_get_ns}, CLOCK_MONOTONIC, the clock of System.nanoTime), by which the worker's sweep keeps
 * the connection alive. Frames leave by {@code bpf_redirect_map} through {@link #EGRESS}, a DEVMAP from jvs's port
 * numbers to interface indexes; a frame whose port has no entry there goes on to the workers untouched. An egress
 * device must
 * take redirected frames (ndo_xdp_xmit, NETDEV_XDP_ACT_NDO_XMIT in its xdp-features): a veth does only while its
 * peer runs NAPI, with an XDP program or GRO on the peer, and otherwise drops them (veth_xdp_xmit), so a port is in
 * {@link #EGRESS} only while its device says it takes them (NetdevNetlink).
 */
public final class XdpFlowTable implements AutoCloseable
{
    /** A HASH map of {@link #KEY_BYTES}-byte keys to {@link #VALUE_BYTES}-byte rewrites. */
    public static final String FLOWS = "flows_v4";
    /** An ARRAY ({@link BpfMap#F_MMAPABLE}) of {@link #STATS_BYTES}-byte slots a flow's value names. */
    public static final String FLOW_STATS = "flow_stats";
    /** A DEVMAP from a flow's egress port number to the interface index frames leave by. */
    public static final String EGRESS = "flow_egress";
    /**
     * An ARRAY of one u32, 1 while {@link #EGRESS} has any port: while none takes redirected frames (a veth whose
     * peer runs no NAPI) the program skips the flow lookup, and frames cost what they cost without the table.
     */
    public static final String SWITCH = "flow_on";

    /** Source address, destination address (network order, as in the packet), ports (likewise), protocol, 0 0 0. */
    public static final int KEY_BYTES = 16;
    public static final int KEY_SOURCE = 0;
    public static final int KEY_DESTINATION = 4;
    public static final int KEY_SOURCE_PORT = 8;
    public static final int KEY_DESTINATION_PORT = 10;
    public static final int KEY_PROTOCOL = 12;

    /** The value: what a frame of the flow becomes, and where its counts go. */
    public static final int VALUE_BYTES = 40;
    /** The new address (network order), written over the destination or the source as {@link #VALUE_REWRITE} says. */
    public static final int VALUE_ADDRESS = 0;
    /** The new port (network order), beside the address. */
    public static final int VALUE_PORT = 4;
    /** One byte: {@link #REWRITE_DESTINATION}, {@link #REWRITE_SOURCE} or {@link #REWRITE_MACS_ONLY}. */
    public static final int VALUE_REWRITE = 6;
    /** u32, host order: what the IPv4 header checksum's complement gains (the address and the TTL's decrement). */
    public static final int VALUE_IP_CHECKSUM_DELTA = 8;
    /** u32, host order: what the TCP or UDP checksum's complement gains (the address and the port). */
    public static final int VALUE_L4_CHECKSUM_DELTA = 12;
    public static final int VALUE_DESTINATION_MAC = 16;
    public static final int VALUE_SOURCE_MAC = 22;
    /** u32, host order: the port number, {@link #EGRESS}'s key. */
    public static final int VALUE_EGRESS = 28;
    /** u32, host order: the longest IP packet (total length) forwarded here; a longer one goes to the pipeline. */
    public static final int VALUE_MTU = 32;
    /** u32, host order: the flow's slot in {@link #FLOW_STATS}. */
    public static final int VALUE_STATS_SLOT = 36;

    public static final int REWRITE_DESTINATION = 0;
    public static final int REWRITE_SOURCE = 1;
    public static final int REWRITE_MACS_ONLY = 2;

    /** A stats slot: packets, bytes (u64, atomic adds), the last frame's {@code bpf_ktime_get_ns} (u64). */
    public static final int STATS_BYTES = 24;
    public static final int STATS_PACKETS = 0;
    public static final int STATS_BYTES_COUNTED = 8;
    public static final int STATS_LAST_SEEN = 16;

    /** The most ports {@link #EGRESS} maps. */
    public static final int MAX_PORTS = 64;

    private static final int PROTOCOL_TCP = 6;
    private static final int PROTOCOL_UDP = 17;
    private static final int ETHERNET_HEADER = 14;
    private static final int IPV4_HEADER = 20;
    private static final int TCP_HEADER = 20;
    private static final int UDP_HEADER = 8;
    /** EtherType IPv4 as a little-endian 16-bit load of the big-endian field reads it. */
    private static final int ETH_P_IPV4_LOADED = 0x0008;
    /** Version 4, header length 5 words: the first byte of a header without options. */
    private static final int IPV4_NO_OPTIONS = 0x45;
    /** More-fragments and the fragment offset, as a little-endian load of the flags-and-offset word reads them. */
    private static final int IPV4_MORE_OR_OFFSET_LOADED = 0xff3f;
    private static final int TCP_FIN_SYN_RST = 0x07;
    /** The word (TTL, protocol) loses 1 in a little-endian load when the TTL loses 1 (Checksums.TTL_DECREMENT). */
    private static final int TTL_DECREMENT_LOADED = 0xFFFE;

    private static final ValueLayout.OfInt BIG_ENDIAN_INT =
        ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BIG_ENDIAN_SHORT =
        ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt LITTLE_ENDIAN_INT =
        ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long PAGE = 4096;
    private static final int PROT_READ = 0x1;
    private static final int MAP_SHARED = 0x01;

    // Where the program keeps its key and the stats slot's index on the stack.
    private static final int STACK_KEY = -KEY_BYTES;
    private static final int STACK_SLOT = -KEY_BYTES - 8;

    private final BpfMap flows;
    private final BpfMap stats;
    private final BpfMap egress;
    private final BpfMap on;
    /** By port, whether {@link #EGRESS} has it. */
    private final boolean[] egressPorts = new boolean[MAX_PORTS];

    private XdpFlowTable(final BpfMap flows, final BpfMap stats, final BpfMap egress, final BpfMap on)
    {
        this.flows = flows;
        this.stats = stats;
        this.egress = egress;
        this.on = on;
    }

    /**
     * Creates the four maps, empty (no egress: the program skips the table).
     *
     * @param maxFlows how many flows (each direction of a NAT connection is one) the table holds, and how many
     *                 stats slots there are.
     */
    public static XdpFlowTable create(final Syscalls syscalls, final int maxFlows)
    {
        BpfMap flows = null;
        BpfMap stats = null;
        BpfMap egress = null;
        try
        {
            flows = BpfMap.createHash(syscalls, "jvs_" + FLOWS, KEY_BYTES, VALUE_BYTES, maxFlows);
            stats = BpfMap.create(syscalls, BpfMap.TYPE_ARRAY, "jvs_" + FLOW_STATS, Integer.BYTES, STATS_BYTES,
                maxFlows, BpfMap.F_MMAPABLE);
            egress = BpfMap.create(syscalls, BpfMap.TYPE_DEVMAP, "jvs_" + EGRESS, Integer.BYTES, Integer.BYTES,
                MAX_PORTS);
            final BpfMap on = BpfMap.createArray(syscalls, "jvs_" + SWITCH, Integer.BYTES, 1);
            return new XdpFlowTable(flows, stats, egress, on);
        }
        catch (final RuntimeException ex)
        {
            for (final BpfMap made : new BpfMap[] {egress, stats, flows})
            {
                if (made != null)
                {
                    made.close();
                }
            }
            throw ex;
        }
    }

    /** @return the fd of each of the table's maps by the name the program gives it. */
    public Map<String, Integer> mapFds()
    {
        return Map.of(FLOWS, flows.fd(), FLOW_STATS, stats.fd(), EGRESS, egress.fd(), SWITCH, on.fd());
    }

    public BpfMap flows()
    {
        return flows;
    }

    public BpfMap stats()
    {
        return stats;
    }

    /** {@link #SWITCH}, for tests that set it apart from the egresses. */
    BpfMap onSwitch()
    {
        return on;
    }

    /**
     * Maps {@link #FLOW_STATS} into this process, read-only: slot {@code i}'s counts at {@code address + i *
     * STATS_BYTES}, written by the program on every CPU while the mapping lives.
     *
     * @return the mapping; {@link FlowStats#close} unmaps it.
     */
    public FlowStats mapStats(final Syscalls syscalls)
    {
        final long bytes = ((long)stats.maxEntries() * STATS_BYTES + PAGE - 1) / PAGE * PAGE;
        final long address = syscalls.mmap(0, bytes, PROT_READ, MAP_SHARED, stats.fd(), 0);
        if (address < 0 && address > -4096)
        {
            throw new io.jvs.nativebindings.NativeCallException("mmap", (int)-address,
                "the flow stats map, " + bytes + " bytes");
        }
        return new FlowStats(syscalls, address, bytes, stats.maxEntries());
    }

    /**
     * The stats slots mapped into this process ({@link #mapStats}).
     *
     * @param address where slot 0 starts.
     * @param slots   how many there are.
     */
    public record FlowStats(Syscalls syscalls, long address, long bytes, int slots) implements AutoCloseable
    {
        @Override
        public void close()
        {
            syscalls.munmap(address, bytes);
        }
    }

    /** Frames of flows naming {@code port} leave by the interface {@code ifindex}. */
    public synchronized void egress(final int port, final int ifindex)
    {
        egress.put(port, ifindex);
        egressPorts[port] = true;
        on.put(0, 1);
    }

    /** Frames of flows naming {@code port} go to the workers from now on, untouched: it takes no redirects. */
    public synchronized void noEgress(final int port)
    {
        egress.delete(port);
        egressPorts[port] = false;
        for (final boolean any : egressPorts)
        {
            if (any)
            {
                return;
            }
        }
        on.put(0, 0);
    }

    @Override
    public void close()
    {
        on.close();
        egress.close();
        stats.close();
        flows.close();
    }

    /**
     * @return a flow's key, as the program builds it from a frame.
     */
    public static byte[] key(final int protocol, final byte[] source, final int sourcePort, final byte[] destination,
        final int destinationPort)
    {
        final byte[] key = new byte[KEY_BYTES];
        writeKey(MemorySegment.ofArray(key), protocol, address(source), sourcePort, address(destination),
            destinationPort);
        return key;
    }

    /**
     * Writes a flow's key, as the program builds it from a frame.
     *
     * @param source      an IPv4 address as its big-endian value (10.1.0.11 is 0x0A01000B).
     * @param destination likewise.
     */
    public static void writeKey(final MemorySegment key, final int protocol, final int source, final int sourcePort,
        final int destination, final int destinationPort)
    {
        key.set(BIG_ENDIAN_INT, KEY_SOURCE, source);
        key.set(BIG_ENDIAN_INT, KEY_DESTINATION, destination);
        key.set(BIG_ENDIAN_SHORT, KEY_SOURCE_PORT, (short)sourcePort);
        key.set(BIG_ENDIAN_SHORT, KEY_DESTINATION_PORT, (short)destinationPort);
        key.set(ValueLayout.JAVA_INT_UNALIGNED, KEY_PROTOCOL, protocol & 0xFF);
    }

    /**
     * @param rewrite      {@link #REWRITE_DESTINATION} (NAT towards the server: the VIP and virtual port become the
     *                     server's), {@link #REWRITE_SOURCE} (NAT back: the server's become the VIP's) or
     *                     {@link #REWRITE_MACS_ONLY} (DR).
     * @param oldAddress   the address rewritten, as the flow's frames carry it (ignored for DR).
     * @param oldPort      the port rewritten, likewise.
     * @param newAddress   what it becomes (network order bytes).
     * @param newPort      likewise.
     * @param destinationMac the next hop's MAC, 48 bits.
     * @param sourceMac    the egress port's MAC.
     * @param mtu          the longest IP packet forwarded here.
     * @return a flow's value, its checksum adjustments computed.
     */
    public static byte[] value(final int rewrite, final byte[] oldAddress, final int oldPort, final byte[] newAddress,
        final int newPort, final long destinationMac, final long sourceMac, final int egressPort, final int mtu,
        final int statsSlot)
    {
        final byte[] value = new byte[VALUE_BYTES];
        writeValue(MemorySegment.ofArray(value), rewrite, address(oldAddress), oldPort, address(newAddress), newPort,
            destinationMac, sourceMac, egressPort, mtu, statsSlot);
        return value;
    }

    /**
     * Writes a flow's value, its checksum adjustments computed: {@link #value} with addresses as their big-endian
     * values.
     */
    public static void writeValue(final MemorySegment value, final int rewrite, final int oldAddress,
        final int oldPort, final int newAddress, final int newPort, final long destinationMac, final long sourceMac,
        final int egressPort, final int mtu, final int statsSlot)
    {
        int ipDelta = TTL_DECREMENT_LOADED;
        int l4Delta = 0;
        if (rewrite != REWRITE_MACS_ONLY)
        {
            value.set(BIG_ENDIAN_INT, VALUE_ADDRESS, newAddress);
            value.set(BIG_ENDIAN_SHORT, VALUE_PORT, (short)newPort);
            final int addressChange = (~loadedHigh(oldAddress) & 0xFFFF) + (~loadedLow(oldAddress) & 0xFFFF) +
                loadedHigh(newAddress) + loadedLow(newAddress);
            ipDelta += addressChange;
            l4Delta = addressChange + (~swap16(oldPort) & 0xFFFF) + swap16(newPort);
        }
        else
        {
            value.set(ValueLayout.JAVA_INT_UNALIGNED, VALUE_ADDRESS, 0);
            value.set(ValueLayout.JAVA_SHORT_UNALIGNED, VALUE_PORT, (short)0);
        }
        value.set(ValueLayout.JAVA_BYTE, VALUE_REWRITE, (byte)rewrite);
        value.set(ValueLayout.JAVA_BYTE, VALUE_REWRITE + 1, (byte)0);
        value.set(LITTLE_ENDIAN_INT, VALUE_IP_CHECKSUM_DELTA, ipDelta);
        value.set(LITTLE_ENDIAN_INT, VALUE_L4_CHECKSUM_DELTA, l4Delta);
        for (int b = 0; b < 6; b++)
        {
            value.set(ValueLayout.JAVA_BYTE, VALUE_DESTINATION_MAC + b, (byte)(destinationMac >>> (40 - 8 * b)));
            value.set(ValueLayout.JAVA_BYTE, VALUE_SOURCE_MAC + b, (byte)(sourceMac >>> (40 - 8 * b)));
        }
        value.set(LITTLE_ENDIAN_INT, VALUE_EGRESS, egressPort);
        value.set(LITTLE_ENDIAN_INT, VALUE_MTU, mtu);
        value.set(LITTLE_ENDIAN_INT, VALUE_STATS_SLOT, statsSlot);
    }

    private static int address(final byte[] bytes)
    {
        return (bytes[0] & 0xFF) << 24 | (bytes[1] & 0xFF) << 16 | (bytes[2] & 0xFF) << 8 | bytes[3] & 0xFF;
    }

    /** The address's first 16-bit word as a little-endian load of its big-endian bytes reads it. */
    private static int loadedHigh(final int address)
    {
        return (address >>> 24) | (address >>> 8 & 0xFF00);
    }

    /** Its second word, likewise. */
    private static int loadedLow(final int address)
    {
        return (address >>> 8 & 0xFF) | (address & 0xFF) << 8;
    }

    /** A port as a little-endian load of the big-endian field reads it. */
    private static int swap16(final int port)
    {
        return (port >>> 8 & 0xFF) | (port & 0xFF) << 8;
    }

    /**
     * Emits the fast path at the program's start: a frame of a flow is rewritten and redirected (the program
     * exits); any other frame goes to {@code slow} with r1 = the context, as on entry, and nothing written.
     * <p>
     * Registers: r6 = the context, r7 = the IPv4 header and r8 = the TCP or UDP header (packet pointers, whose
     * checked range survives helper calls), r9 = the flow's value. Stack: the key at r10 - 16, the stats slot's
     * index at r10 - 24.
     */
    static void emit(final BpfAssembler asm, final String slow)
    {
        final String restore = "flow_slow";
        asm.mov64(R6, R1)
            // The switch: an array lookup, which the verifier inlines, in place of a hash lookup of every frame.
            .storeImmediate(WORD, R10, STACK_KEY, 0)
            .mov64(R2, R10)
            .add64(R2, STACK_KEY)
            .loadMap(R1, SWITCH)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, EQUAL, 0, restore)
            .load(WORD, R0, R0, 0)
            .jumpIf(R0, EQUAL, 0, restore)
            .load(WORD, R2, R6, XdpMetadata.DATA)
            .load(WORD, R3, R6, XdpMetadata.DATA_END)
            .mov64(R7, R2)
            .add64(R7, ETHERNET_HEADER)
            .mov64(R8, R7)
            .add64(R8, IPV4_HEADER)
            .mov64(R4, R8)
            .add64(R4, UDP_HEADER)
            .jumpIf(R4, GREATER, R3, restore)
            .load(HALF, R4, R2, 12)
            .jumpIf(R4, NOT_EQUAL, ETH_P_IPV4_LOADED, restore)
            .load(BYTE, R4, R7, 0)
            .jumpIf(R4, NOT_EQUAL, IPV4_NO_OPTIONS, restore)
            .load(HALF, R4, R7, 6)
            .jumpIf(R4, ANY_BIT_SET, IPV4_MORE_OR_OFFSET_LOADED, restore)
            .load(BYTE, R4, R7, 8)
            .jumpIf(R4, LESS_OR_EQUAL, 1, restore)
            // r5 = the total length; the packet must end within the frame (padding after it is carried along).
            .load(HALF, R5, R7, 2)
            .toBigEndian(R5, 16)
            .jumpIf(R5, LESS, IPV4_HEADER + UDP_HEADER, restore)
            .mov64(R4, R7)
            .add64(R4, R5)
            .jumpIf(R4, GREATER, R3, restore)
            // r5 = what follows the IP header.
            .add64(R5, -IPV4_HEADER)
            .load(BYTE, R4, R7, 9)
            .jumpIf(R4, EQUAL, PROTOCOL_UDP, "flow_udp")
            .jumpIf(R4, NOT_EQUAL, PROTOCOL_TCP, restore)
            .mov64(R4, R8)
            .add64(R4, TCP_HEADER)
            .jumpIf(R4, GREATER, R3, restore)
            .load(BYTE, R4, R8, 13)
            .jumpIf(R4, ANY_BIT_SET, TCP_FIN_SYN_RST, restore)
            .load(BYTE, R4, R8, 12)
            .alu64(BpfOpcode.ALU_RSH, R4, 4)
            .alu64(BpfOpcode.ALU_LSH, R4, 2)
            .jumpIf(R4, LESS, TCP_HEADER, restore)
            .jumpIf(R4, GREATER, R5, restore);
        // The rest twice, once a protocol: the verifier knows the TCP header's bounds only on the TCP path.
        forward(asm, true, restore);
        asm.label("flow_udp")
            .load(HALF, R4, R8, 4)
            .toBigEndian(R4, 16)
            .jumpIf(R4, LESS, UDP_HEADER, restore)
            .jumpIf(R4, GREATER, R5, restore);
        forward(asm, false, restore);
        asm.label(restore)
            .mov64(R1, R6)
            .jump(slow);
    }

    /** Looks the frame's flow up, and forwards it as the flow says (the program exits), or goes to {@code restore}. */
    private static void forward(final BpfAssembler asm, final boolean tcp, final String restore)
    {
        final String p = tcp ? "flow_tcp_" : "flow_udp_";
        asm.load(WORD, R4, R7, 12)
            .store(WORD, R10, STACK_KEY + KEY_SOURCE, R4)
            .load(WORD, R4, R7, 16)
            .store(WORD, R10, STACK_KEY + KEY_DESTINATION, R4)
            .load(WORD, R4, R8, 0)
            .store(WORD, R10, STACK_KEY + KEY_SOURCE_PORT, R4)
            .storeImmediate(WORD, R10, STACK_KEY + KEY_PROTOCOL, tcp ? PROTOCOL_TCP : PROTOCOL_UDP)
            .loadMap(R1, FLOWS)
            .mov64(R2, R10)
            .add64(R2, STACK_KEY)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, EQUAL, 0, restore)
            .mov64(R9, R0)
            .load(HALF, R4, R7, 2)
            .toBigEndian(R4, 16)
            .load(WORD, R5, R9, VALUE_MTU)
            .jumpIf(R4, GREATER, R5, restore)
            // An egress port without an entry takes no redirected frames now: the frame goes to the workers.
            .load(WORD, R4, R9, VALUE_EGRESS)
            .store(WORD, R10, STACK_SLOT, R4)
            .loadMap(R1, EGRESS)
            .mov64(R2, R10)
            .add64(R2, STACK_SLOT)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, EQUAL, 0, restore);
        rewrite(asm, tcp, p);
        count(asm, p);
        asm.load(WORD, R2, R9, VALUE_EGRESS)
            .loadMap(R1, EGRESS)
            .mov64(R3, 0)
            .call(BpfHelper.REDIRECT_MAP)
            .exit();
    }

    /** Addresses, port, TTL, checksums and MACs, as the flow's value says. */
    private static void rewrite(final BpfAssembler asm, final boolean tcp, final String p)
    {
        asm.load(BYTE, R4, R9, VALUE_REWRITE)
            .jumpIf(R4, EQUAL, REWRITE_MACS_ONLY, p + "ttl")
            .load(WORD, R1, R9, VALUE_ADDRESS)
            .load(HALF, R2, R9, VALUE_PORT)
            .jumpIf(R4, EQUAL, REWRITE_SOURCE, p + "source")
            .store(WORD, R7, 16, R1)
            .store(HALF, R8, 2, R2)
            .jump(p + "l4")
            .label(p + "source")
            .store(WORD, R7, 12, R1)
            .store(HALF, R8, 0, R2)
            .label(p + "l4")
            .load(WORD, R2, R9, VALUE_L4_CHECKSUM_DELTA);
        if (tcp)
        {
            asm.load(HALF, R1, R8, 16);
            updateChecksum(asm);
            asm.store(HALF, R8, 16, R1);
        }
        else
        {
            // A UDP checksum of 0 is "none", and stays so; a computed 0 is written as all ones (RFC 768).
            asm.load(HALF, R1, R8, 6)
                .jumpIf(R1, EQUAL, 0, p + "ip");
            updateChecksum(asm);
            asm.jumpIf(R1, NOT_EQUAL, 0, p + "l4_store")
                .mov64(R1, 0xFFFF)
                .label(p + "l4_store")
                .store(HALF, R8, 6, R1);
        }
        asm.label(p + "ip")
            .load(WORD, R2, R9, VALUE_IP_CHECKSUM_DELTA)
            .jump(p + "ip_checksum")
            // DR: the TTL's decrement alone.
            .label(p + "ttl")
            .mov64(R2, TTL_DECREMENT_LOADED)
            .label(p + "ip_checksum")
            .load(HALF, R1, R7, 10);
        updateChecksum(asm);
        asm.store(HALF, R7, 10, R1)
            .load(BYTE, R1, R7, 8)
            .add64(R1, -1)
            .store(BYTE, R7, 8, R1)
            .load(WORD, R1, R9, VALUE_DESTINATION_MAC)
            .store(WORD, R7, -ETHERNET_HEADER, R1)
            .load(HALF, R1, R9, VALUE_DESTINATION_MAC + 4)
            .store(HALF, R7, -ETHERNET_HEADER + 4, R1)
            .load(HALF, R1, R9, VALUE_SOURCE_MAC)
            .store(HALF, R7, -ETHERNET_HEADER + 6, R1)
            .load(WORD, R1, R9, VALUE_SOURCE_MAC + 2)
            .store(WORD, R7, -ETHERNET_HEADER + 8, R1);
    }

    /**
     * r1 = the checksum field (a little-endian load), r2 = the delta: r1 = ~fold(~r1 + r2), 16 bits, as
     * Checksums.natAddressV4 computes it. Clobbers r3.
     */
    private static void updateChecksum(final BpfAssembler asm)
    {
        asm.alu64(BpfOpcode.ALU_XOR, R1, 0xFFFF)
            .add64(R1, R2)
            .mov64(R3, R1)
            .alu64(BpfOpcode.ALU_RSH, R3, 16)
            .alu64(BpfOpcode.ALU_AND, R1, 0xFFFF)
            .add64(R1, R3)
            .mov64(R3, R1)
            .alu64(BpfOpcode.ALU_RSH, R3, 16)
            .add64(R1, R3)
            .alu64(BpfOpcode.ALU_XOR, R1, -1)
            .alu64(BpfOpcode.ALU_AND, R1, 0xFFFF);
    }

    /** The flow's packets, bytes and last-seen time, in its stats slot (none if the slot is out of range). */
    private static void count(final BpfAssembler asm, final String p)
    {
        asm.load(WORD, R1, R9, VALUE_STATS_SLOT)
            .store(WORD, R10, STACK_SLOT, R1)
            .loadMap(R1, FLOW_STATS)
            .mov64(R2, R10)
            .add64(R2, STACK_SLOT)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, EQUAL, 0, p + "counted")
            .mov64(R8, R0)
            .mov64(R1, 1)
            .atomicAdd(DOUBLE, R8, STATS_PACKETS, R1)
            .load(HALF, R1, R7, 2)
            .toBigEndian(R1, 16)
            .atomicAdd(DOUBLE, R8, STATS_BYTES_COUNTED, R1)
            .call(BpfHelper.KTIME_GET_NS)
            .store(DOUBLE, R8, STATS_LAST_SEEN, R0)
            .label(p + "counted");
    }
}
