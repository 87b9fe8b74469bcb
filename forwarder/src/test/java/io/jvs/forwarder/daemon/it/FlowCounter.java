package io.jvs.forwarder.daemon.it;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfAssembler;
import io.jvs.nativebindings.bpf.BpfAttr;
import io.jvs.nativebindings.bpf.BpfBytecode;
import io.jvs.nativebindings.bpf.BpfHelper;
import io.jvs.nativebindings.bpf.BpfMap;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.XdpAction;
import io.jvs.nativebindings.bpf.XdpLink;
import io.jvs.nativebindings.bpf.XdpMetadata;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.testing.TestNetwork;

import static io.jvs.nativebindings.bpf.BpfCondition.EQUAL;
import static io.jvs.nativebindings.bpf.BpfCondition.GREATER;
import static io.jvs.nativebindings.bpf.BpfCondition.LESS;
import static io.jvs.nativebindings.bpf.BpfCondition.NOT_EQUAL;
import static io.jvs.nativebindings.bpf.BpfOpcode.ALU_AND;
import static io.jvs.nativebindings.bpf.BpfOpcode.ALU_LSH;
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
import static io.jvs.nativebindings.bpf.BpfSize.BYTE;
import static io.jvs.nativebindings.bpf.BpfSize.DOUBLE;
import static io.jvs.nativebindings.bpf.BpfSize.HALF;
import static io.jvs.nativebindings.bpf.BpfSize.WORD;

/**
 * Counts, per flow, the TCP and UDP packets a device receives: an XDP program (generic mode, so on any
 * device and after the driver) that adds one to a hash map entry keyed by the packet's version, protocol,
 * addresses and ports, and passes every packet on. A capture that cannot drop and needs no tool: the
 * firewall tests read it to see which flows entered a firewall from which side.
 * <p>
 * A GSO packet (a veth carries up to 64 KiB ones) counts once. IPv6 extension headers are not walked (a
 * packet with one is not counted), nor are IPv4 fragments after the first. The per-entry increment is not
 * atomic: two CPUs may lose a count, never a flow.
 */
public final class FlowCounter implements AutoCloseable
{
    public static final String MAP_NAME = "flows";
    public static final int KEY_BYTES = 40;
    public static final int MAX_FLOWS = 65536;
    /** {@code long bpf_map_update_elem(map, key, value, flags)}. */
    private static final int HELPER_MAP_UPDATE_ELEM = 2;
    private static final int MAP_GET_NEXT_KEY = 4;

    private static final int ETH_P_IPV4 = 0x0008;
    private static final int ETH_P_IPV6 = 0xdd86;
    private static final int ETHERNET_HEADER = 14;
    /** The key on the stack: version u8, protocol u8, 2 zero bytes, source[16], destination[16], ports. */
    private static final int KEY = -40;
    private static final int KEY_PROTOCOL = KEY + 1;
    private static final int KEY_SOURCE = KEY + 4;
    private static final int KEY_DESTINATION = KEY + 20;
    private static final int KEY_PORTS = KEY + 36;
    private static final int VALUE = -48;
    /** The fragment offset (0x1fff) of the IPv4 flags/offset field, as a little-endian load reads it. */
    private static final int IPV4_OFFSET_BITS = 0xff1f;

    private final String device;
    private final BpfMap map;
    private final XdpLink link;
    private final Syscalls syscalls;

    /**
     * One flow as the device received it.
     *
     * @param protocol    6 (TCP) or 17 (UDP).
     * @param source      the sender's address and port.
     * @param destination the receiver's.
     */
    public record Flow(int protocol, InetSocketAddress source, InetSocketAddress destination)
    {
        /** @return the flow of the answers: source and destination swapped. */
        public Flow reversed()
        {
            return new Flow(protocol, destination, source);
        }

        @Override
        public String toString()
        {
            return (protocol == 6 ? "tcp " : protocol == 17 ? "udp " : protocol + " ") + source + " > " +
                destination;
        }
    }

    private FlowCounter(final Syscalls syscalls, final String device, final BpfMap map, final XdpLink link)
    {
        this.syscalls = syscalls;
        this.device = device;
        this.map = map;
        this.link = link;
    }

    /**
     * Starts counting what {@code device} in {@code namespace} receives.
     *
     * @throws io.jvs.nativebindings.NativeCallException when the device already has an XDP program.
     */
    public static FlowCounter attach(final String namespace, final String device)
    {
        final Syscalls syscalls = Syscalls.create();
        final BpfMap map = BpfMap.createHash(syscalls, MAP_NAME, KEY_BYTES, Long.BYTES, MAX_FLOWS);
        try
        {
            final BpfBytecode code = program().link(Map.of(MAP_NAME, map.fd()));
            final XdpLink link = TestNetwork.callIn(namespace, () ->
            {
                try (BpfProgram program = BpfProgram.loadXdp(syscalls, "jvs_test_flows", code))
                {
                    return XdpLink.attach(syscalls, program, device, XdpMode.SKB);
                }
            });
            return new FlowCounter(syscalls, device, map, link);
        }
        catch (final RuntimeException ex)
        {
            map.close();
            throw ex;
        }
    }

    /**
     * @return the program, naming the map {@link #MAP_NAME} (HASH, 40-byte key, u64 value).
     */
    public static BpfBytecode program()
    {
        // r6 = ctx, r3 = data_end (checks come before the first call, which clobbers it), r7 = the network
        // header then the transport header, r8 = the protocol.
        final BpfAssembler asm = new BpfAssembler()
            .mov64(R6, R1)
            .load(WORD, R2, R6, XdpMetadata.DATA)
            .load(WORD, R3, R6, XdpMetadata.DATA_END)
            .mov64(R7, R2)
            .add64(R7, ETHERNET_HEADER)
            .jumpIf(R7, GREATER, R3, "pass")
            .load(HALF, R4, R2, 12);
        for (int offset = KEY; offset < 0; offset += Long.BYTES)
        {
            asm.storeImmediate(DOUBLE, R10, offset, 0);
        }
        asm.storeImmediate(DOUBLE, R10, VALUE, 1)
            .jumpIf(R4, EQUAL, ETH_P_IPV4, "ipv4")
            .jumpIf(R4, NOT_EQUAL, ETH_P_IPV6, "pass");

        asm.mov64(R5, R7).add64(R5, 40).jumpIf(R5, GREATER, R3, "pass")
            .load(BYTE, R8, R7, 6)
            .storeImmediate(BYTE, R10, KEY, 6);
        for (int i = 0; i < 32; i += Integer.BYTES)
        {
            asm.load(WORD, R5, R7, 8 + i).store(WORD, R10, KEY_SOURCE + i, R5);
        }
        asm.add64(R7, 40)
            .jump("transport");

        asm.label("ipv4")
            .mov64(R5, R7).add64(R5, 20).jumpIf(R5, GREATER, R3, "pass")
            .load(BYTE, R8, R7, 9)
            .storeImmediate(BYTE, R10, KEY, 4)
            .load(WORD, R5, R7, 12).store(WORD, R10, KEY_SOURCE, R5)
            .load(WORD, R5, R7, 16).store(WORD, R10, KEY_DESTINATION, R5)
            .load(HALF, R5, R7, 6)
            .alu64(ALU_AND, R5, IPV4_OFFSET_BITS)
            .jumpIf(R5, NOT_EQUAL, 0, "pass")
            .load(BYTE, R5, R7, 0)
            .alu64(ALU_AND, R5, 0x0f)
            .alu64(ALU_LSH, R5, 2)
            .jumpIf(R5, LESS, 20, "pass")
            .add64(R7, R5);

        asm.label("transport")
            .store(BYTE, R10, KEY_PROTOCOL, R8)
            .jumpIf(R8, EQUAL, TestPackets.IPPROTO_TCP, "ports")
            .jumpIf(R8, NOT_EQUAL, TestPackets.IPPROTO_UDP, "pass")
            .label("ports")
            .mov64(R5, R7).add64(R5, 4).jumpIf(R5, GREATER, R3, "pass")
            .load(WORD, R5, R7, 0).store(WORD, R10, KEY_PORTS, R5)
            .loadMap(R1, MAP_NAME)
            .mov64(R2, R10).add64(R2, KEY)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, EQUAL, 0, "insert")
            .load(DOUBLE, R1, R0, 0)
            .add64(R1, 1)
            .store(DOUBLE, R0, 0, R1)
            .jump("pass")
            .label("insert")
            .loadMap(R1, MAP_NAME)
            .mov64(R2, R10).add64(R2, KEY)
            .mov64(R3, R10).add64(R3, VALUE)
            .mov64(R4, 0)
            .call(HELPER_MAP_UPDATE_ELEM)
            .label("pass")
            .mov64(R0, XdpAction.PASS)
            .exit();
        return asm.build();
    }

    /** @return the device counted. */
    public String device()
    {
        return device;
    }

    /**
     * @return every flow received so far, with its packet count.
     */
    public synchronized Map<Flow, Long> flows()
    {
        return read(syscalls, map);
    }

    /**
     * @param map a map the {@link #program()} counts into.
     * @return its flows and their packet counts.
     */
    public static Map<Flow, Long> read(final Syscalls syscalls, final BpfMap map)
    {
        final Map<Flow, Long> flows = new HashMap<>();
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
            final MemorySegment key = arena.allocate(KEY_BYTES);
            final MemorySegment next = arena.allocate(KEY_BYTES);
            attr.set(ValueLayout.JAVA_INT, 0, map.fd());
            attr.set(ValueLayout.JAVA_LONG, 8, 0L);
            attr.set(ValueLayout.JAVA_LONG, 16, next.address());
            // BPF_MAP_GET_NEXT_KEY: with no key, the first; then the one after the key given; ENOENT at the end.
            while (syscalls.bpf(MAP_GET_NEXT_KEY, attr.address(), BpfAttr.SIZE_BYTES) == 0)
            {
                final byte[] bytes = next.toArray(ValueLayout.JAVA_BYTE);
                final long packets = map.lookup(bytes).map(value ->
                    ByteBuffer.wrap(value).order(ByteOrder.nativeOrder()).getLong()).orElse(0L);
                flows.merge(flow(bytes), packets, Long::sum);
                MemorySegment.copy(next, 0, key, 0, KEY_BYTES);
                attr.set(ValueLayout.JAVA_LONG, 8, key.address());
            }
        }
        return flows;
    }

    private static Flow flow(final byte[] key)
    {
        final int length = key[0] == 4 ? 4 : 16;
        final ByteBuffer ports = ByteBuffer.wrap(key, 36, 4);
        return new Flow(key[1] & 0xff, new InetSocketAddress(address(Arrays.copyOfRange(key, 4, 4 + length)),
            ports.getShort() & 0xffff), new InetSocketAddress(address(Arrays.copyOfRange(key, 20, 20 + length)),
            ports.getShort() & 0xffff));
    }

    private static InetAddress address(final byte[] bytes)
    {
        try
        {
            return InetAddress.getByAddress(bytes);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalStateException("4 or 16 bytes are always an address", ex);
        }
    }

    /** Detaches the program and frees the map. */
    @Override
    public synchronized void close()
    {
        link.close();
        map.close();
    }
}
