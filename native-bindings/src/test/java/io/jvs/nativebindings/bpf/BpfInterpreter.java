package io.jvs.nativebindings.bpf;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_ALU;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_ALU64;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_JMP;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_JMP32;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_LD;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_LDX;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_ST;
import static io.jvs.nativebindings.bpf.BpfOpcode.CLASS_STX;

/**
 * Runs the subset of BPF that jvs's programs use (XDP, the tcx steal program, the AF_PACKET fanout program), on
 * a frame built in a test, so their logic is tested without root or a kernel. It is stricter than the hardware
 * at run time in the ways the verifier is strict at load time: reading a register that holds nothing (never
 * set, or clobbered by a call), touching memory outside the packet, the stack, the context or a map value, all
 * fail the run with a {@link Fault}. Running every truncation of a frame therefore finds a missing bounds check.
 * <p>
 * Memory is modelled with disjoint fake address ranges; the context's data and data_end loads return
 * packet addresses, as the kernel's rewrite of those loads does. The context is an {@code xdp_md} or an
 * {@code __sk_buff} ({@link Skb}: the packet as the kernel hands it to a tc or fanout program); a socket filter
 * reads its packet only through bpf_skb_load_bytes, as the verifier demands. Map values are the models' own
 * bytes, so a counter a program increments stays incremented for the next run. Public for other modules'
 * tests (forwarder checks the fanout program against core's ClientDispatch with it).
 */
public final class BpfInterpreter
{
    private static final long CONTEXT = 0x1000_0000_0000L;
    private static final long PACKET = 0x2000_0000_0000L;
    private static final long STACK_TOP = 0x3000_0000_1000L;
    private static final int STACK_BYTES = 512;
    private static final long MAP_POINTER = 0x4000_0000_0000L;
    private static final long MAP_VALUE = 0x5000_0000_0000L;
    private static final int MAX_STEPS = 100_000;
    /** The context region: an xdp_md, or an __sk_buff up to its last field jvs's programs might read. */
    private static final int CONTEXT_BYTES = 192;
    private static final int EFAULT = 14;

    private final BpfBytecode program;
    private final Map<Integer, MapModel> mapsByFd;

    /** A fault the verifier or the hardware would not let pass. */
    public static final class Fault extends RuntimeException
    {
        Fault(final int pc, final String what)
        {
            super("at " + pc + ": " + what);
        }
    }

    /**
     * @param action         the program's return value.
     * @param redirectQueue  the XSKMAP key a successful bpf_redirect_map chose, or -1.
     * @param steps          instructions executed.
     */
    public record Result(int action, int redirectQueue, int steps)
    {
    }

    /** Which context r1 points to, and so which fields and helpers the program may use. */
    public enum ProgramType
    {
        XDP, SOCKET_FILTER, SCHED_CLS
    }

    /**
     * An skb as a tc or fanout program sees it.
     *
     * @param data        the bytes from {@code skb->data}: the MAC header for tc, the network header for fanout.
     * @param protocol    {@code skb->protocol} in host order (0x0800, or a tag's TPID when one is still in the data).
     * @param vlanPresent whether a tag was taken off into the metadata.
     */
    public record Skb(byte[] data, int protocol, boolean vlanPresent)
    {
        /**
         * @return whether {@code __netif_receive_skb_core} hands the frame to the taps and tcx at all: it needs an
         *         Ethernet header, and {@code skb_vlan_untag} drops an outer-tagged frame without 6 bytes after the
         *         TPID (it reads the 2 after the tag).
         */
        public static boolean reachesPrograms(final byte[] wire)
        {
            return wire.length >= 14 && (!isOffloadedTag(wire) || wire.length >= 20);
        }

        /** As a tcx program sees a received frame: from the MAC header, the outer tag offloaded. */
        public static Skb atTcIngress(final byte[] wire)
        {
            return received(wire, true);
        }

        /** As a PACKET_FANOUT program sees a received frame: from the network header, the outer tag offloaded. */
        public static Skb atFanout(final byte[] wire)
        {
            return received(wire, false);
        }

        /**
         * As {@code __netif_receive_skb_core} leaves a received frame for the taps and tcx: an outer 802.1Q or
         * 802.1ad tag goes into the metadata ({@code skb_vlan_untag}, which moves the MAC addresses up over it).
         */
        private static Skb received(final byte[] wire, final boolean atMacHeader)
        {
            if (!reachesPrograms(wire))
            {
                throw new IllegalArgumentException("the kernel drops a frame of " + wire.length + " bytes first");
            }
            final boolean untag = isOffloadedTag(wire);
            final byte[] frame = untag ? new byte[wire.length - 4] : wire.clone();
            if (untag)
            {
                System.arraycopy(wire, 0, frame, 0, 12);
                System.arraycopy(wire, 16, frame, 12, wire.length - 16);
            }
            final int protocol = (frame[12] & 0xff) << 8 | frame[13] & 0xff;
            return new Skb(atMacHeader ? frame : Arrays.copyOfRange(frame, 14, frame.length), protocol, untag);
        }

        private static boolean isOffloadedTag(final byte[] wire)
        {
            final int outer = (wire[12] & 0xff) << 8 | wire[13] & 0xff;
            return outer == 0x8100 || outer == 0x88a8;
        }
    }

    /** A HASH map, an ARRAY, an LPM trie or an XSKMAP, by content. */
    public static final class MapModel
    {
        private final int type;
        private final int keySize;
        private final int valueSize;
        private final Map<ByteBuffer, byte[]> entries = new HashMap<>();

        private MapModel(final int type, final int keySize, final int valueSize)
        {
            this.type = type;
            this.keySize = keySize;
            this.valueSize = valueSize;
        }

        /** An ARRAY of {@code entries} zeroed values, as BPF_MAP_CREATE makes one. */
        public static MapModel array(final int valueSize, final int entries)
        {
            final MapModel array = new MapModel(BpfMap.TYPE_ARRAY, 4, valueSize);
            for (int i = 0; i < entries; i++)
            {
                array.put(littleEndian(i), new byte[valueSize]);
            }
            return array;
        }

        /** @return the 8-byte little-endian value at {@code index} of an ARRAY (a counter). */
        public long counter(final int index)
        {
            return ByteBuffer.wrap(entries.get(ByteBuffer.wrap(littleEndian(index))))
                .order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        }

        public static MapModel hash(final int keySize, final int valueSize)
        {
            return new MapModel(BpfMap.TYPE_HASH, keySize, valueSize);
        }

        /**
         * An LPM trie of {@code dataBytes}-byte addresses: {@link #put} takes the kernel's key (32-bit prefix length
         * little-endian, then the address), a lookup returns the value of the longest stored prefix holding the
         * key's address (only full-length lookup keys, as the programs make).
         */
        public static MapModel lpmTrie(final int dataBytes, final int valueSize)
        {
            return new MapModel(BpfMap.TYPE_LPM_TRIE, 4 + dataBytes, valueSize);
        }

        /** The trie's value for a lookup key (length, address): its longest matching prefix's, or null. */
        private byte[] longestMatch(final byte[] key)
        {
            final int bits = (keySize - 4) * 8;
            final int asked = ByteBuffer.wrap(key).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
            for (int length = Math.min(asked, bits); length >= 0; length--)
            {
                final byte[] candidate = key.clone();
                ByteBuffer.wrap(candidate).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(length);
                for (int bit = length; bit < bits; bit++)
                {
                    candidate[4 + bit / 8] &= (byte)~(0x80 >>> (bit % 8));
                }
                final byte[] value = entries.get(ByteBuffer.wrap(candidate));
                if (value != null)
                {
                    return value;
                }
            }
            return null;
        }

        public static MapModel xskMap()
        {
            return new MapModel(BpfMap.TYPE_XSKMAP, 4, 4);
        }

        public MapModel put(final byte[] key, final byte[] value)
        {
            if (key.length != keySize || value.length != valueSize)
            {
                throw new IllegalArgumentException("key or value size does not match the map");
            }
            entries.put(ByteBuffer.wrap(key.clone()), value.clone());
            return this;
        }

        /** Removes an entry (a VIP the control plane took away). */
        public MapModel remove(final byte[] key)
        {
            entries.remove(ByteBuffer.wrap(key));
            return this;
        }

        /** An XSKMAP slot for {@code queue} holding some socket. */
        public MapModel socket(final int queue)
        {
            return put(littleEndian(queue), new byte[4]);
        }

        private static byte[] littleEndian(final int value)
        {
            return ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(value).array();
        }
    }

    /**
     * @param program  linked to the fds that are the keys of {@code mapsByFd}.
     */
    public BpfInterpreter(final BpfBytecode program, final Map<Integer, MapModel> mapsByFd)
    {
        if (!program.isLinked())
        {
            throw new IllegalArgumentException("link the program to the fds of the modelled maps");
        }
        this.program = program;
        this.mapsByFd = Map.copyOf(mapsByFd);
    }

    /**
     * Runs an XDP program on {@code frame} received on queue {@code rxQueue}.
     */
    public Result run(final byte[] frame, final int rxQueue)
    {
        return new Run(ProgramType.XDP, frame, rxQueue, null).execute();
    }

    /**
     * Runs a socket filter (a fanout program) or a tc program on an skb.
     */
    public Result run(final ProgramType type, final Skb skb)
    {
        if (type == ProgramType.XDP)
        {
            throw new IllegalArgumentException("an XDP program runs on a frame and a queue");
        }
        return new Run(type, skb.data(), 0, skb).execute();
    }

    private final class Run
    {
        private final ProgramType type;
        private final Skb skb;
        private final byte[] packet;
        private final int rxQueue;
        private final long[] registers = new long[11];
        private final boolean[] set = new boolean[11];
        private final byte[] stack = new byte[STACK_BYTES];
        private final Map<Long, byte[]> values = new HashMap<>();
        private int redirectQueue = -1;
        private int pc;

        Run(final ProgramType type, final byte[] frame, final int rxQueue, final Skb skb)
        {
            this.type = type;
            this.skb = skb;
            this.packet = frame.clone();
            this.rxQueue = rxQueue;
            write(1, CONTEXT);
            write(10, STACK_TOP);
        }

        Result execute()
        {
            for (int steps = 1; steps <= MAX_STEPS; steps++)
            {
                if (pc < 0 || pc >= program.slotCount())
                {
                    throw new Fault(pc, "fell off the program");
                }
                final long insn = program.slot(pc);
                final int code = BpfInstruction.code(insn);
                if (code == (CLASS_JMP | BpfOpcode.JMP_EXIT))
                {
                    return new Result((int)read(0), redirectQueue, steps);
                }
                step(insn, code);
            }
            throw new Fault(pc, "more than " + MAX_STEPS + " steps");
        }

        private void step(final long insn, final int code)
        {
            final int dst = BpfInstruction.dst(insn);
            final int src = BpfInstruction.src(insn);
            final int offset = BpfInstruction.offset(insn);
            final int immediate = BpfInstruction.immediate(insn);
            switch (code & BpfOpcode.CLASS_MASK)
            {
                case CLASS_ALU64, CLASS_ALU -> alu(code, dst, src, immediate);
                case CLASS_JMP, CLASS_JMP32 -> jump(code, dst, src, offset, immediate);
                case CLASS_LDX ->
                {
                    write(dst, load(read(src) + offset, BpfSize.ofOpcode(code)));
                    pc++;
                }
                case CLASS_STX ->
                {
                    if ((code & BpfOpcode.MODE_MASK) == BpfOpcode.MODE_ATOMIC)
                    {
                        atomicAdd(read(dst) + offset, BpfSize.ofOpcode(code), read(src), immediate);
                    }
                    else
                    {
                        store(read(dst) + offset, BpfSize.ofOpcode(code), read(src));
                    }
                    pc++;
                }
                case CLASS_ST ->
                {
                    store(read(dst) + offset, BpfSize.ofOpcode(code), immediate);
                    pc++;
                }
                case CLASS_LD -> loadImmediate64(code, dst, src, immediate);
                default -> throw new Fault(pc, "unsupported opcode " + code);
            }
        }

        private void alu(final int code, final int dst, final int src, final int immediate)
        {
            final boolean wide = (code & BpfOpcode.CLASS_MASK) == CLASS_ALU64;
            final int operation = code & BpfOpcode.OPERATION_MASK;
            if (operation == BpfOpcode.ALU_END)
            {
                byteOrder(code, dst, immediate, wide);
                return;
            }
            final long operand = (code & BpfOpcode.SOURCE_MASK) == BpfOpcode.SOURCE_REGISTER ? read(src) : immediate;
            final long a = operation == BpfOpcode.ALU_MOV ? 0 : read(dst);
            final long b = wide ? operand : operand & 0xffff_ffffL;
            final long x = wide ? a : a & 0xffff_ffffL;
            final int shift = (int)(b & (wide ? 63 : 31));
            final long result = switch (operation)
            {
                case BpfOpcode.ALU_ADD -> x + b;
                case BpfOpcode.ALU_SUB -> x - b;
                case BpfOpcode.ALU_MUL -> x * b;
                case BpfOpcode.ALU_DIV -> b == 0 ? 0 : Long.divideUnsigned(x, b);
                case BpfOpcode.ALU_MOD -> b == 0 ? x : Long.remainderUnsigned(x, b);
                case BpfOpcode.ALU_OR -> x | b;
                case BpfOpcode.ALU_AND -> x & b;
                case BpfOpcode.ALU_XOR -> x ^ b;
                case BpfOpcode.ALU_LSH -> x << shift;
                case BpfOpcode.ALU_RSH -> x >>> shift;
                case BpfOpcode.ALU_ARSH -> wide ? x >> shift : (long)((int)x >> shift);
                case BpfOpcode.ALU_NEG -> -x;
                case BpfOpcode.ALU_MOV -> b;
                default -> throw new Fault(pc, "unsupported ALU operation " + operation);
            };
            write(dst, wide ? result : result & 0xffff_ffffL);
            pc++;
        }

        /** This machine is little-endian, as x86 is: to little-endian truncates, to big-endian swaps too. */
        private void byteOrder(final int code, final int dst, final int bits, final boolean wide)
        {
            if (wide || bits != 16 && bits != 32 && bits != 64)
            {
                throw new Fault(pc, "unsupported byte order conversion of " + bits + " bits");
            }
            final long value = read(dst);
            final boolean toBig = (code & BpfOpcode.SOURCE_MASK) == BpfOpcode.END_TO_BIG;
            write(dst, switch (bits)
            {
                case 16 -> toBig ? Short.reverseBytes((short)value) & 0xffffL : value & 0xffffL;
                case 32 -> toBig ? Integer.reverseBytes((int)value) & 0xffff_ffffL : value & 0xffff_ffffL;
                default -> toBig ? Long.reverseBytes(value) : value;
            });
            pc++;
        }

        private void jump(final int code, final int dst, final int src, final int offset, final int immediate)
        {
            final int operation = code & BpfOpcode.OPERATION_MASK;
            if (operation == BpfOpcode.JMP_CALL)
            {
                call(immediate);
                pc++;
                return;
            }
            if (operation == BpfOpcode.JMP_JA)
            {
                pc += 1 + offset;
                return;
            }
            final boolean wide = (code & BpfOpcode.CLASS_MASK) == CLASS_JMP;
            final long right = (code & BpfOpcode.SOURCE_MASK) == BpfOpcode.SOURCE_REGISTER ? read(src) : immediate;
            long a = read(dst);
            long b = right;
            if (!wide)
            {
                a = (int)a;
                b = (int)b;
            }
            final boolean taken = switch (BpfCondition.of(operation))
            {
                case EQUAL -> wide ? a == b : (int)a == (int)b;
                case NOT_EQUAL -> wide ? a != b : (int)a != (int)b;
                case GREATER -> compareUnsigned(a, b, wide) > 0;
                case GREATER_OR_EQUAL -> compareUnsigned(a, b, wide) >= 0;
                case LESS -> compareUnsigned(a, b, wide) < 0;
                case LESS_OR_EQUAL -> compareUnsigned(a, b, wide) <= 0;
                case SIGNED_GREATER -> a > b;
                case SIGNED_GREATER_OR_EQUAL -> a >= b;
                case SIGNED_LESS -> a < b;
                case SIGNED_LESS_OR_EQUAL -> a <= b;
                case ANY_BIT_SET -> (a & b) != 0;
                case null -> throw new Fault(pc, "unsupported jump operation " + operation);
            };
            pc += taken ? 1 + offset : 1;
        }

        private int compareUnsigned(final long a, final long b, final boolean wide)
        {
            return wide ? Long.compareUnsigned(a, b) : Long.compare(a & 0xffff_ffffL, b & 0xffff_ffffL);
        }

        private void loadImmediate64(final int code, final int dst, final int src, final int immediate)
        {
            if (code != (CLASS_LD | BpfOpcode.MODE_IMMEDIATE | BpfOpcode.SIZE_DOUBLE) || pc + 1 >= program.slotCount())
            {
                throw new Fault(pc, "unsupported load " + code);
            }
            if (src == BpfOpcode.PSEUDO_MAP_FD)
            {
                if (!mapsByFd.containsKey(immediate))
                {
                    throw new Fault(pc, "no map with fd " + immediate);
                }
                write(dst, MAP_POINTER + immediate);
            }
            else
            {
                final long high = BpfInstruction.immediate(program.slot(pc + 1));
                write(dst, high << 32 | immediate & 0xffff_ffffL);
            }
            pc += 2;
        }

        private void call(final int helper)
        {
            final long result = switch (helper)
            {
                case BpfHelper.MAP_LOOKUP_ELEM -> lookup(map(read(1)), read(2));
                case BpfHelper.REDIRECT_MAP -> redirect(map(read(1)), read(2), read(3));
                case BpfHelper.SKB_LOAD_BYTES -> loadBytes(read(1), read(2), read(3), read(4));
                default -> throw new Fault(pc, "unsupported helper " + helper);
            };
            // Calls clobber r1 to r5: a program that reads them afterwards is rejected by the verifier.
            for (int r = 1; r <= 5; r++)
            {
                set[r] = false;
            }
            write(0, result);
        }

        private MapModel map(final long pointer)
        {
            final MapModel map = mapsByFd.get((int)(pointer - MAP_POINTER));
            if (map == null || pointer < MAP_POINTER)
            {
                throw new Fault(pc, "r1 is not a map");
            }
            return map;
        }

        /**
         * bpf_skb_load_bytes: the offset is a u32 from skb->data; on a short packet the kernel zeroes the
         * destination and returns -EFAULT.
         */
        private long loadBytes(final long context, final long offset, final long to, final long length)
        {
            if (type == ProgramType.XDP || context != CONTEXT)
            {
                throw new Fault(pc, "bpf_skb_load_bytes needs an skb context in r1");
            }
            if (length <= 0 || length > STACK_BYTES)
            {
                throw new Fault(pc, "bpf_skb_load_bytes of " + length + " bytes");
            }
            final long from = offset & 0xffff_ffffL;
            final boolean inside = from + length <= packet.length;
            for (int i = 0; i < length; i++)
            {
                store(to + i, BpfSize.BYTE, inside ? packet[(int)from + i] : 0);
            }
            return inside ? 0 : -EFAULT;
        }

        private long lookup(final MapModel map, final long keyAddress)
        {
            if (map.type != BpfMap.TYPE_HASH && map.type != BpfMap.TYPE_ARRAY && map.type != BpfMap.TYPE_LPM_TRIE)
            {
                throw new Fault(pc, "lookup in a map of type " + map.type);
            }
            final byte[] key = new byte[map.keySize];
            for (int i = 0; i < key.length; i++)
            {
                key[i] = (byte)load(keyAddress + i, BpfSize.BYTE);
            }
            final byte[] value = map.type == BpfMap.TYPE_LPM_TRIE ? map.longestMatch(key) :
                map.entries.get(ByteBuffer.wrap(key));
            if (value == null)
            {
                return 0;
            }
            final long address = MAP_VALUE + (long)values.size() * 4096;
            values.put(address, value);
            return address;
        }

        private long redirect(final MapModel map, final long key, final long flags)
        {
            if (map.type != BpfMap.TYPE_XSKMAP)
            {
                throw new Fault(pc, "bpf_redirect_map to a map of type " + map.type);
            }
            final byte[] slot = ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt((int)key).array();
            if (map.entries.containsKey(ByteBuffer.wrap(slot)))
            {
                redirectQueue = (int)key;
                return XdpAction.REDIRECT;
            }
            return flags & 3;
        }

        private long load(final long address, final BpfSize size)
        {
            if (address >= CONTEXT && address < CONTEXT + CONTEXT_BYTES)
            {
                return loadContext((int)(address - CONTEXT), size);
            }
            final Region region = region(address, size);
            long value = 0;
            for (int i = size.bytes() - 1; i >= 0; i--)
            {
                value = value << 8 | region.bytes[region.index + i] & 0xff;
            }
            return value;
        }

        private void atomicAdd(final long address, final BpfSize size, final long value, final int operation)
        {
            if (operation != BpfOpcode.ATOMIC_ADD || size != BpfSize.WORD && size != BpfSize.DOUBLE)
            {
                throw new Fault(pc, "unsupported atomic operation " + operation + " of " + size);
            }
            store(address, size, load(address, size) + value);
        }

        private void store(final long address, final BpfSize size, final long value)
        {
            final Region region = region(address, size);
            if (region.bytes == packet)
            {
                throw new Fault(pc, "jvs's programs write only to the stack and map values, not to the packet");
            }
            for (int i = 0; i < size.bytes(); i++)
            {
                region.bytes[region.index + i] = (byte)(value >>> 8 * i);
            }
        }

        private long loadContext(final int field, final BpfSize size)
        {
            if (size != BpfSize.WORD)
            {
                throw new Fault(pc, "context fields are read with 32-bit loads");
            }
            if (type == ProgramType.XDP)
            {
                return switch (field)
                {
                    case XdpMetadata.DATA -> PACKET;
                    case XdpMetadata.DATA_END -> PACKET + packet.length;
                    case XdpMetadata.RX_QUEUE_INDEX -> rxQueue;
                    case XdpMetadata.INGRESS_IFINDEX -> 1;
                    default -> throw new Fault(pc, "xdp_md field at " + field);
                };
            }
            return switch (field)
            {
                case SkbContext.LEN -> packet.length;
                // __be16 in the low half, as a little-endian load of the field reads it.
                case SkbContext.PROTOCOL -> Short.reverseBytes((short)skb.protocol()) & 0xffff;
                case SkbContext.VLAN_PRESENT -> skb.vlanPresent() ? 1 : 0;
                case SkbContext.DATA, SkbContext.DATA_END ->
                {
                    if (type == ProgramType.SOCKET_FILTER)
                    {
                        throw new Fault(pc, "a socket filter has no direct packet access");
                    }
                    yield field == SkbContext.DATA ? PACKET : PACKET + packet.length;
                }
                default -> throw new Fault(pc, "__sk_buff field at " + field);
            };
        }

        private record Region(byte[] bytes, int index)
        {
        }

        private Region region(final long address, final BpfSize size)
        {
            if (address >= PACKET && address + size.bytes() <= PACKET + packet.length)
            {
                return new Region(packet, (int)(address - PACKET));
            }
            if (address >= STACK_TOP - STACK_BYTES && address + size.bytes() <= STACK_TOP)
            {
                return new Region(stack, (int)(address - (STACK_TOP - STACK_BYTES)));
            }
            for (final Map.Entry<Long, byte[]> value : values.entrySet())
            {
                if (address >= value.getKey() && address + size.bytes() <= value.getKey() + value.getValue().length)
                {
                    return new Region(value.getValue(), (int)(address - value.getKey()));
                }
            }
            throw new Fault(pc, size.bytes() + "-byte access at 0x" + Long.toHexString(address) +
                " outside the packet (" + packet.length + " bytes), the stack and map values");
        }

        private long read(final int register)
        {
            if (!set[register])
            {
                throw new Fault(pc, "r" + register + " is read before it is set" + (register <= 5 ?
                    " (or after a call clobbered it)" : ""));
            }
            return registers[register];
        }

        private void write(final int register, final long value)
        {
            if (register == 10 && set[10])
            {
                throw new Fault(pc, "r10 is read-only");
            }
            registers[register] = value;
            set[register] = true;
        }
    }

    @Override
    public String toString()
    {
        return "interpreter of " + program.slotCount() + " slots with maps " + Arrays.toString(
            mapsByFd.keySet().toArray());
    }
}
