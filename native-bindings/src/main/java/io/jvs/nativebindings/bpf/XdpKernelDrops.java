package io.jvs.nativebindings.bpf;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import io.jvs.nativebindings.NativeCallException;
import io.jvs.nativebindings.Syscalls;

/**
 * Counts, per watched interface, the frames the kernel drops after the XDP program on that interface decided
 * their fate, which no socket and no program of jvs's ever sees: the program's {@code XDP_ABORTED} (and any action
 * the kernel does not know), a redirect the kernel refused (to an AF_XDP socket whose ring is full or that is bound
 * elsewhere; to a device that is down, has no {@code ndo_xdp_xmit} or takes no frame that long), and frames a
 * device map's bulk transmit could not send (a veth whose peer stopped running NAPI, a driver's full XDP ring).
 * Three raw-tracepoint programs, on the tracepoints the kernel fires at exactly those points
 * ({@code xdp_exception} from {@code trace_xdp_exception}, {@code xdp_redirect_err} from
 * {@code xdp_do_redirect}'s error path, {@code xdp_devmap_xmit} from the device map's {@code bq_xmit_all}), add to
 * a hash map keyed by the receiving device's ifindex and network namespace (the namespace's inode number, as
 * {@code /proc/self/ns/net} names it), read from {@code struct net_device} and {@code struct net} at the offsets the
 * kernel's BTF gives; frames of interfaces not watched are not counted, nor those of another namespace's device
 * that has the same ifindex.
 * <p>
 * A socket's ring-full drops are counted by the socket too ({@code XDP_STATISTICS}' {@code rx_ring_full}): they
 * are kept apart here, as {@link #SOCKET_REFUSED}. The programs cost nothing while nothing fails, except
 * {@code xdp_devmap_xmit}, which fires once per device-map flush (a burst of up to 16 frames) and returns at its
 * first test when nothing was dropped.
 */
public final class XdpKernelDrops implements AutoCloseable
{
    /** The XDP program returned {@code XDP_ABORTED}, or an action the kernel does not know. */
    public static final int ABORTED = 0;
    /** A redirect to an AF_XDP socket (an XSKMAP) the kernel refused. */
    public static final int SOCKET_REFUSED = 1;
    /** A redirect to a device or CPU the kernel refused. */
    public static final int DEVICE_REFUSED = 2;
    /** Frames a device map's bulk transmit could not send. */
    public static final int TRANSMIT_DROPPED = 3;
    /** How many counts each interface has. */
    public static final int COUNTS = 4;

    private static final String[] LABELS = {"aborted", "socket-refused", "device-refused", "transmit-dropped"};
    private static final String MAP = "drops";
    private static final int VALUE_BYTES = COUNTS * Long.BYTES;
    private static final int TRACEPOINT_ARGUMENT_BYTES = Long.BYTES;
    // The tracepoints' arguments (include/trace/events/xdp.h), each a u64 of the raw context.
    private static final int DEVICE_ARGUMENT = 0;
    private static final int REDIRECT_MAP_TYPE_ARGUMENT = 4;
    private static final int DEVMAP_DROPS_ARGUMENT = 3;
    /** The key: the device's ifindex, then its namespace's inode number. */
    private static final int KEY_ON_STACK = -8;
    private static final int KEY_BYTES = 8;
    private static final int NAMESPACE_IN_KEY = 4;
    /** Where the program keeps the device's {@code struct net *} on the stack. */
    private static final int NET_ON_STACK = -16;

    private final Syscalls syscalls;
    private final BpfMap counts;
    private final BpfProgram[] programs;
    private final int[] attachments;
    /** The inode number of the network namespace whose devices this watches. */
    private final int namespace;

    private XdpKernelDrops(final Syscalls syscalls, final BpfMap counts, final BpfProgram[] programs,
        final int[] attachments, final int namespace)
    {
        this.syscalls = syscalls;
        this.counts = counts;
        this.programs = programs;
        this.attachments = attachments;
        this.namespace = namespace;
    }

    /**
     * Loads and attaches the three programs, watching no interface yet; the interfaces it watches are the calling
     * thread's network namespace's.
     *
     * @param maxInterfaces how many interfaces may be watched.
     * @throws IOException         when the kernel has no BTF, or its structures lack a member the programs read.
     * @throws NativeCallException when the kernel refuses a map, a program or an attachment (no
     *                             {@code CONFIG_BPF_EVENTS}, no CAP_BPF and CAP_PERFMON).
     */
    public static XdpKernelDrops open(final Syscalls syscalls, final int maxInterfaces) throws IOException
    {
        final int namespace = (int)namespaceInode();
        final KernelBtf btf = KernelBtf.vmlinux();
        final Offsets offsets = new Offsets(offset(btf, "net_device", "ifindex"), offset(btf, "net_device", "nd_net"),
            offset(btf, "net", "ns") + offset(btf, "ns_common", "inum"));
        final BpfMap counts = BpfMap.createHash(syscalls, "jvs_xdp_drops", KEY_BYTES, VALUE_BYTES, maxInterfaces);
        final BpfProgram[] programs = new BpfProgram[3];
        final int[] attachments = {-1, -1, -1};
        try
        {
            final Map<String, Integer> fds = Map.of(MAP, counts.fd());
            programs[0] = load(syscalls, "jvs_xdp_exc", exceptionProgram(offsets).link(fds));
            programs[1] = load(syscalls, "jvs_xdp_redir", redirectErrorProgram(offsets).link(fds));
            programs[2] = load(syscalls, "jvs_xdp_devmap", devmapTransmitProgram(offsets).link(fds));
            attachments[0] = attach(syscalls, "xdp_exception", programs[0]);
            attachments[1] = attach(syscalls, "xdp_redirect_err", programs[1]);
            attachments[2] = attach(syscalls, "xdp_devmap_xmit", programs[2]);
            return new XdpKernelDrops(syscalls, counts, programs, attachments, namespace);
        }
        catch (final RuntimeException ex)
        {
            close(syscalls, counts, programs, attachments);
            throw ex;
        }
    }

    private static int offset(final KernelBtf btf, final String struct, final String member) throws IOException
    {
        return btf.memberByteOffset(struct, member).orElseThrow(() -> new IOException("the kernel's BTF has no " +
            member + " in struct " + struct));
    }

    /**
     * Where the programs read: a device's ifindex and its {@code possible_net_t} in {@code struct net_device} (whose
     * one member, the {@code struct net *}, is at its start), and the namespace's inode number in {@code struct net}.
     */
    record Offsets(int ifindex, int deviceNet, int namespaceInode)
    {
    }

    /** @return the status name of a count: aborted, socket-refused, device-refused, transmit-dropped. */
    public static String label(final int count)
    {
        return LABELS[count];
    }

    /** Starts counting the frames of the device {@code ifindex}; a device already watched keeps its counts. */
    public synchronized void watch(final int ifindex)
    {
        try
        {
            counts.update(key(ifindex), new byte[VALUE_BYTES], BpfAttr.MapElement.UPDATE_NO_EXIST);
        }
        catch (final NativeCallException ex)
        {
            if (counts.lookup(key(ifindex)).isEmpty())
            {
                throw ex;
            }
        }
    }

    /** Stops counting the frames of the device {@code ifindex} and forgets its counts. */
    public synchronized void unwatch(final int ifindex)
    {
        counts.delete(key(ifindex));
    }

    /**
     * @return the counts of the device {@code ifindex} since it was first watched, by {@link #ABORTED} to
     *         {@link #TRANSMIT_DROPPED}; zeros when it is not watched.
     */
    public synchronized long[] counts(final int ifindex)
    {
        final long[] values = new long[COUNTS];
        final Optional<byte[]> value = counts.lookup(key(ifindex));
        if (value.isPresent())
        {
            final ByteBuffer buffer = ByteBuffer.wrap(value.get()).order(ByteOrder.nativeOrder());
            for (int c = 0; c < COUNTS; c++)
            {
                values[c] = buffer.getLong(c * Long.BYTES);
            }
        }
        return values;
    }

    @Override
    public synchronized void close()
    {
        close(syscalls, counts, programs, attachments);
    }

    private static void close(
        final Syscalls syscalls, final BpfMap counts, final BpfProgram[] programs, final int[] attachments)
    {
        for (int a = 0; a < attachments.length; a++)
        {
            if (attachments[a] >= 0)
            {
                syscalls.close(attachments[a]);
                attachments[a] = -1;
            }
        }
        for (final BpfProgram program : programs)
        {
            if (program != null)
            {
                program.close();
            }
        }
        counts.close();
    }

    private byte[] key(final int ifindex)
    {
        return ByteBuffer.allocate(KEY_BYTES).order(ByteOrder.nativeOrder()).putInt(ifindex).putInt(namespace).array();
    }

    /** @return the inode number of the calling thread's network namespace ({@code net:[4026531840]}). */
    static long namespaceInode()
    {
        try
        {
            final String link = Files.readSymbolicLink(Path.of("/proc/thread-self/ns/net")).toString();
            return Long.parseLong(link.substring(link.indexOf('[') + 1, link.indexOf(']')));
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new IllegalStateException("cannot read this thread's network namespace: " + ex.getMessage(), ex);
        }
    }

    private static BpfProgram load(final Syscalls syscalls, final String name, final BpfBytecode code)
    {
        return BpfProgram.load(syscalls, BpfProgram.TYPE_RAW_TRACEPOINT, 0, name, code, 0);
    }

    private static int attach(final Syscalls syscalls, final String tracepoint, final BpfProgram program)
    {
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(BpfAttr.SIZE_BYTES, 8);
            attr.set(ValueLayout.JAVA_LONG, BpfAttr.RawTracepointOpen.NAME, arena.allocateFrom(tracepoint).address());
            attr.set(ValueLayout.JAVA_INT, BpfAttr.RawTracepointOpen.PROG_FD, program.fd());
            return (int)Syscalls.check("bpf(BPF_RAW_TRACEPOINT_OPEN)",
                syscalls.bpf(BpfAttr.RawTracepointOpen.COMMAND, attr.address(), BpfAttr.SIZE_BYTES),
                "program " + program.name() + " at tracepoint " + tracepoint);
        }
    }

    /** {@code xdp_exception(dev, prog, act)}: one frame aborted. */
    static BpfBytecode exceptionProgram(final Offsets offsets)
    {
        final BpfAssembler asm = new BpfAssembler()
            .load(BpfSize.DOUBLE, BpfRegister.R6, BpfRegister.R1, DEVICE_ARGUMENT * TRACEPOINT_ARGUMENT_BYTES)
            .mov64(BpfRegister.R7, 1);
        countersOfDevice(asm, offsets);
        asm.atomicAdd(BpfSize.DOUBLE, BpfRegister.R0, ABORTED * Long.BYTES, BpfRegister.R7);
        return end(asm);
    }

    /** {@code xdp_redirect_err(dev, prog, target, err, map_type, map_id, index)}: one frame refused. */
    static BpfBytecode redirectErrorProgram(final Offsets offsets)
    {
        final BpfAssembler asm = new BpfAssembler()
            .load(BpfSize.DOUBLE, BpfRegister.R6, BpfRegister.R1, DEVICE_ARGUMENT * TRACEPOINT_ARGUMENT_BYTES)
            .load(BpfSize.DOUBLE, BpfRegister.R8, BpfRegister.R1,
                REDIRECT_MAP_TYPE_ARGUMENT * TRACEPOINT_ARGUMENT_BYTES)
            .mov64(BpfRegister.R7, 1);
        countersOfDevice(asm, offsets);
        asm.jumpIf32(BpfRegister.R8, BpfCondition.EQUAL, BpfMap.TYPE_XSKMAP, "socket")
            .atomicAdd(BpfSize.DOUBLE, BpfRegister.R0, DEVICE_REFUSED * Long.BYTES, BpfRegister.R7)
            .jump("out")
            .label("socket")
            .atomicAdd(BpfSize.DOUBLE, BpfRegister.R0, SOCKET_REFUSED * Long.BYTES, BpfRegister.R7);
        return end(asm);
    }

    /** {@code xdp_devmap_xmit(from_dev, to_dev, sent, drops, err)}: {@code drops} frames not sent. */
    static BpfBytecode devmapTransmitProgram(final Offsets offsets)
    {
        final BpfAssembler asm = new BpfAssembler()
            .load(BpfSize.DOUBLE, BpfRegister.R7, BpfRegister.R1, DEVMAP_DROPS_ARGUMENT * TRACEPOINT_ARGUMENT_BYTES)
            .jumpIf32(BpfRegister.R7, BpfCondition.SIGNED_LESS_OR_EQUAL, 0, "out")
            // The int argument arrives sign-extended to 64 bits; positive here, so its low half is the count.
            .alu32(BpfOpcode.ALU_MOV, BpfRegister.R7, BpfRegister.R7)
            .load(BpfSize.DOUBLE, BpfRegister.R6, BpfRegister.R1, DEVICE_ARGUMENT * TRACEPOINT_ARGUMENT_BYTES);
        countersOfDevice(asm, offsets);
        asm.atomicAdd(BpfSize.DOUBLE, BpfRegister.R0, TRANSMIT_DROPPED * Long.BYTES, BpfRegister.R7);
        return end(asm);
    }

    /**
     * {@code r0 = counts[{r6->ifindex, r6->nd_net.net->ns.inum}]}, to "out" when the device is not watched or cannot
     * be read; r6 holds the {@code struct net_device *}, r7 and r8 are kept.
     */
    private static void countersOfDevice(final BpfAssembler asm, final Offsets offsets)
    {
        probeRead(asm, KEY_ON_STACK, Integer.BYTES, BpfRegister.R6, offsets.ifindex());
        probeRead(asm, NET_ON_STACK, Long.BYTES, BpfRegister.R6, offsets.deviceNet());
        asm.load(BpfSize.DOUBLE, BpfRegister.R9, BpfRegister.R10, NET_ON_STACK);
        probeRead(asm, KEY_ON_STACK + NAMESPACE_IN_KEY, Integer.BYTES, BpfRegister.R9, offsets.namespaceInode());
        asm.mov64(BpfRegister.R2, BpfRegister.R10)
            .add64(BpfRegister.R2, KEY_ON_STACK)
            .loadMap(BpfRegister.R1, MAP)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(BpfRegister.R0, BpfCondition.EQUAL, 0, "out");
    }

    /** {@code bpf_probe_read_kernel(r10 + stack, bytes, from + offset)}, to "out" when it fails. */
    private static void probeRead(
        final BpfAssembler asm, final int stack, final int bytes, final BpfRegister from, final int offset)
    {
        asm.mov64(BpfRegister.R1, BpfRegister.R10)
            .add64(BpfRegister.R1, stack)
            .mov64(BpfRegister.R2, bytes)
            .mov64(BpfRegister.R3, from)
            .add64(BpfRegister.R3, offset)
            .call(BpfHelper.PROBE_READ_KERNEL)
            .jumpIf(BpfRegister.R0, BpfCondition.NOT_EQUAL, 0, "out");
    }

    private static BpfBytecode end(final BpfAssembler asm)
    {
        return asm.label("out")
            .mov64(BpfRegister.R0, 0)
            .exit()
            .build();
    }
}
