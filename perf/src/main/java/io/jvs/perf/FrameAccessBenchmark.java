package io.jvs.perf;

import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * How to reach frame bytes off the heap (issue 3, "flyweight views over off-heap memory"): the same per-packet
 * work done through each candidate accessor, in ns per packet.
 * <p>
 * <b>The work</b>, per operation: a burst of {@value #BURST} IPv4/TCP frames of {@value #FRAME_LENGTH} bytes,
 * {@code stride} bytes apart in one off-heap region (2048: the UMEM chunk size; 128: the same burst packed into
 * 4 KiB, so that it stays in L1 and only the accessors' own cost shows). Each op
 * <ol>
 *   <li>restores the 32 frames from a template (8 eight-byte stores each, through {@link Frames} in every
 *   variant: the same cost for all; {@link #restoreOnly} measures it alone);</li>
 *   <li>parses each frame as {@code PacketParser} does for IPv4/TCP: EtherType (and the VLAN test), version/IHL,
 *   total length (checked against the header and the frame), flags/fragment word, TTL, protocol, source,
 *   destination, TCP data offset (checked), flags, both ports, into per-slot arrays as {@code ParsedBurst};</li>
 *   <li>rewrites each as {@code Rewriter.natInbound} + {@code setMacs} do: TTL decrement with the checksum's
 *   +0x0100 (RFC 1624), destination address, IP checksum (incremental, {@link Checksums#update32}), TCP checksum
 *   ({@link Checksums#update32} then {@link Checksums#update16}), destination port, and both MAC addresses (an 8-byte and a 4-byte store).</li>
 * </ol>
 * That is 16 reads and 8 writes of frame bytes per packet (12 reads in the parser, 4 in the rewrite), plus the
 * restore's 8 writes.
 * <p>
 * <b>The accessors</b>, all over the same bytes:
 * <ul>
 *   <li>{@link #frames}: {@link Frames}, {@code org.agrona.UnsafeApi} at absolute addresses, no bounds checks
 *   (what core uses);</li>
 *   <li>{@link #framesChecked}: a control, not a candidate: the same {@link Frames} code with an
 *   {@code Objects.checkIndex} of its own on every access, against a region record passed as a value (as a segment
 *   is), to separate the price of a per-access bounds check from the rest of the segment machinery;</li>
 *   <li>{@link #segmentShared}: a 64 KiB {@link MemorySegment} over the region, in an {@link Arena#ofShared()}
 *   scope, read with big-endian unaligned {@link ValueLayout}s at offsets (bounds and liveness checked);</li>
 *   <li>{@link #segmentGlobal}: the same, in the global scope ({@code MemorySegment.ofAddress(base).reinterpret}:
 *   what a native mmap of the UMEM gives), so bounds checks only;</li>
 *   <li>{@link #segmentEverything}: {@code MemorySegment.NULL.reinterpret(Long.MAX_VALUE)} at absolute addresses,
 *   the segment API without a useful bounds check, passed as a value like the other segments;</li>
 *   <li>{@link #segmentEverythingConstant}: the same segment held in a {@code static final} field ({@link #ALL}), so
 *   that C2 sees a constant and can fold its length, read-only and scope checks (code that reaches the segment
 *   through a field or a parameter gets {@link #segmentEverything} instead);</li>
 *   <li>{@link #segmentSlice}: a flyweight per frame, {@code asSlice(offset, length)} of the shared segment;</li>
 *   <li>{@link #agrona}: one {@link UnsafeBuffer} wrapping the region, {@code getShort(index, BIG_ENDIAN)} etc.,
 *   bounds checks on (Agrona's default);</li>
 *   <li>{@link #agronaNoBoundsChecks}: the same code in a JVM with {@code -Dagrona.disable.bounds.checks=true};</li>
 *   <li>{@link #agronaWrap}: a flyweight {@code UnsafeBuffer} re-wrapped onto each frame ({@code wrap(address,
 *   length)}, the SBE style), bounds checks on.</li>
 * </ul>
 * Setup runs every variant once and checks that each leaves exactly the bytes {@link Frames} leaves, with valid IP
 * and TCP checksums.
 * <pre>
 *   java -jar perf/target/benchmarks.jar FrameAccessBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
@OperationsPerInvocation(FrameAccessBenchmark.BURST)
public class FrameAccessBenchmark
{
    /**
     * The TCP checksum after NAT rewrote the destination address and port, from values each variant reads in its own
     * way (the pipeline itself updates in place: {@link Checksums#natPortV4}).
     */
    static int tcpChecksum(final int checksum, final int oldAddress, final int newAddress, final int oldPort,
        final int newPort)
    {
        return Checksums.update16(Checksums.update32(checksum, oldAddress, newAddress), oldPort, newPort);
    }

    static final int BURST = 32;
    static final int FRAME_LENGTH = 64;
    static final int REGION = 64 * 1024;

    static final int VERDICT_PROCESS = 0;
    static final int VERDICT_PASS = 1;
    static final int VERDICT_DROP = 2;

    static final int ETHER_TYPE = 12;
    static final int L3 = 14;
    static final int TYPE_IPV4 = 0x0800;
    static final int TYPE_VLAN = 0x8100;
    static final int TYPE_QINQ = 0x88A8;
    static final int IP_MIN = 20;
    static final int IP_TOTAL_LENGTH = 2;
    static final int IP_FRAGMENT = 6;
    static final int IP_TTL = 8;
    static final int IP_PROTOCOL = 9;
    static final int IP_CHECKSUM = 10;
    static final int IP_SOURCE = 12;
    static final int IP_DESTINATION = 16;
    static final int PROTOCOL_TCP = 6;
    static final int TCP_MIN = 20;
    static final int TCP_DESTINATION_PORT = 2;
    static final int TCP_DATA_OFFSET = 12;
    static final int TCP_FLAGS = 13;
    static final int TCP_CHECKSUM = 16;

    static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * All of memory, as a constant ({@link #segmentEverythingConstant}): its length, read-only and scope checks fold;
     * the index check of each access (an offset against {@code Long.MAX_VALUE}) remains.
     */
    static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    /** Frame spacing: 2048 is the UMEM chunk (the 32 headers share two L1 sets); 128 keeps the burst in L1. */
    @Param({"2048", "128"})
    public int stride;

    private ByteBuffer buffer;
    private Arena arena;
    private long base;
    private MemorySegment shared;
    private MemorySegment global;
    private MemorySegment everything;
    private UnsafeBuffer unsafeBuffer;
    private UnsafeBuffer flyweight;
    private Region region;

    /** Frame addresses, as a receive ring's descriptors give them. */
    private long[] address;
    /** The same frames as offsets into the region. */
    private long[] offset;
    private int[] index;
    private int[] length;
    private long[] template;

    private final Parsed parsed = new Parsed();
    private final Nat nat = new Nat(0x0A01_0001, 8080, 0x02_00_5E_00_01_01L, 0x02_00_5E_00_00_FEL);

    /**
     * What the parser hands the rewriter, per slot (the IPv4/TCP part of {@code ParsedBurst}).
     */
    static final class Parsed
    {
        final int[] verdict = new int[BURST];
        final int[] l4Offset = new int[BURST];
        final int[] ipEnd = new int[BURST];
        final int[] protocol = new int[BURST];
        final int[] ttl = new int[BURST];
        final int[] source = new int[BURST];
        final int[] destination = new int[BURST];
        final int[] sourcePort = new int[BURST];
        final int[] destinationPort = new int[BURST];
        final int[] tcpFlags = new int[BURST];
    }

    /**
     * Where frames may be, for {@link ViaCheckedFrames}.
     */
    record Region(long base, long capacity)
    {
    }

    /**
     * The chosen real server and next hop.
     */
    record Nat(int address, int port, long destinationMac, long sourceMac)
    {
    }

    @Setup(Level.Trial)
    public void setUp(final BenchmarkParams params)
    {
        if (params.getBenchmark().endsWith("agronaNoBoundsChecks") && UnsafeBuffer.SHOULD_BOUNDS_CHECK)
        {
            throw new IllegalStateException("agronaNoBoundsChecks runs with Agrona's bounds checks on");
        }
        if (params.getBenchmark().endsWith(".agrona") && !UnsafeBuffer.SHOULD_BOUNDS_CHECK)
        {
            throw new IllegalStateException("agrona runs with Agrona's bounds checks off");
        }
        buffer = ByteBuffer.allocateDirect(REGION + 4096).alignedSlice(4096);
        base = Frames.addressOf(buffer);
        arena = Arena.ofShared();
        shared = MemorySegment.ofAddress(base).reinterpret(REGION, arena, null);
        global = MemorySegment.ofAddress(base).reinterpret(REGION);
        everything = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
        unsafeBuffer = new UnsafeBuffer(base, REGION);
        flyweight = new UnsafeBuffer(0, 0);
        region = new Region(base, REGION);

        address = new long[BURST];
        offset = new long[BURST];
        index = new int[BURST];
        length = new int[BURST];
        template = new long[BURST * (FRAME_LENGTH / 8)];
        final SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < BURST; i++)
        {
            offset[i] = (long)i * stride;
            index[i] = i * stride;
            address[i] = base + offset[i];
            length[i] = FRAME_LENGTH;
            buildFrame(random, address[i]);
            for (int w = 0; w < FRAME_LENGTH / 8; w++)
            {
                template[i * (FRAME_LENGTH / 8) + w] = Frames.i64(address[i] + w * 8L);
            }
        }
        check();
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        arena.close();
    }

    /**
     * Ethernet, IPv4 (no options, DF), TCP (20 bytes, ACK) and 10 bytes of payload: 64 bytes, with valid checksums,
     * from a random client to the virtual service 192.0.2.1:80.
     */
    private static void buildFrame(final SplittableRandom random, final long frame)
    {
        for (int i = 0; i < FRAME_LENGTH; i++)
        {
            Frames.putU8(frame + i, random.nextInt(256));
        }
        Frames.putI64(frame, 0x02_00_5E_00_00_01L << 16 | 0x02_00_5E_00_00_02L >>> 32);
        Frames.putI32(frame + 8, (int)0x02_00_5E_00_00_02L);
        Frames.putU16(frame + ETHER_TYPE, TYPE_IPV4);
        final long ip = frame + L3;
        Frames.putU8(ip, 0x45);
        Frames.putU8(ip + 1, 0);
        Frames.putU16(ip + IP_TOTAL_LENGTH, FRAME_LENGTH - L3);
        Frames.putU16(ip + IP_FRAGMENT, 0x4000);
        Frames.putU8(ip + IP_TTL, 64);
        Frames.putU8(ip + IP_PROTOCOL, PROTOCOL_TCP);
        Frames.putI32(ip + IP_SOURCE, 0xC633_0000 | random.nextInt(0x1_0000));
        Frames.putI32(ip + IP_DESTINATION, 0xC000_0201);
        Frames.putU16(ip + IP_CHECKSUM, 0);
        Frames.putU16(ip + IP_CHECKSUM, Checksums.ipv4HeaderChecksum(ip));
        final long tcp = ip + IP_MIN;
        Frames.putU16(tcp, 1024 + random.nextInt(60000));
        Frames.putU16(tcp + TCP_DESTINATION_PORT, 80);
        Frames.putU8(tcp + TCP_DATA_OFFSET, 5 << 4);
        Frames.putU8(tcp + TCP_FLAGS, 0x10);
        final int segmentLength = FRAME_LENGTH - L3 - IP_MIN;
        Frames.putU16(tcp + TCP_CHECKSUM, 0);
        Frames.putU16(tcp + TCP_CHECKSUM,
            Checksums.transportChecksumV4(ip + IP_SOURCE, PROTOCOL_TCP, tcp, segmentLength));
    }

    /**
     * Puts the frames back as they were before the rewrite: the same code, and cost, in every variant.
     */
    private void restore()
    {
        final long[] address = this.address;
        final long[] template = this.template;
        for (int i = 0; i < BURST; i++)
        {
            final long frame = address[i];
            final int t = i * (FRAME_LENGTH / 8);
            for (int w = 0; w < FRAME_LENGTH / 8; w++)
            {
                Frames.putI64(frame + w * 8L, template[t + w]);
            }
        }
    }

    /**
     * Runs each variant once and compares what it leaves with what {@link Frames} leaves.
     */
    private void check()
    {
        restore();
        final int forwarded = frames();
        if (forwarded != BURST)
        {
            throw new IllegalStateException("frames forwarded " + forwarded + " of " + BURST);
        }
        final byte[][] expected = new byte[BURST][];
        for (int i = 0; i < BURST; i++)
        {
            final long ip = address[i] + L3;
            final long tcp = ip + IP_MIN;
            if (!Checksums.isIpv4HeaderChecksumValid(ip) ||
                !Checksums.isTransportChecksumValidV4(ip + IP_SOURCE, PROTOCOL_TCP, tcp, FRAME_LENGTH - L3 - IP_MIN) ||
                Frames.i32(ip + IP_DESTINATION) != nat.address() ||
                Frames.u16(tcp + TCP_DESTINATION_PORT) != nat.port() ||
                Frames.u8(ip + IP_TTL) != 63)
            {
                throw new IllegalStateException("frame " + i + " is not rewritten correctly");
            }
            expected[i] = Frames.read(address[i], FRAME_LENGTH);
        }
        final String[] names = {
            "framesChecked", "segmentShared", "segmentGlobal", "segmentEverything", "segmentEverythingConstant",
            "segmentSlice", "agrona", "agronaWrap"};
        for (final String name : names)
        {
            restore();
            final int n = switch (name)
            {
                case "framesChecked" -> framesChecked();
                case "segmentShared" -> segmentShared();
                case "segmentGlobal" -> segmentGlobal();
                case "segmentEverything" -> segmentEverything();
                case "segmentEverythingConstant" -> segmentEverythingConstant();
                case "segmentSlice" -> segmentSlice();
                case "agrona" -> agrona();
                default -> agronaWrap();
            };
            for (int i = 0; i < BURST; i++)
            {
                if (n != BURST || !Arrays.equals(expected[i], Frames.read(address[i], FRAME_LENGTH)))
                {
                    throw new IllegalStateException(name + " leaves frame " + i + " unlike Frames does");
                }
            }
        }
        restore();
    }

    /**
     * The restore alone: subtract it from the others for the accessors' share.
     */
    @Benchmark
    public long restoreOnly()
    {
        restore();
        return address[BURST - 1];
    }

    @Benchmark
    public int frames()
    {
        restore();
        final long[] address = this.address;
        final int[] length = this.length;
        final Parsed p = parsed;
        for (int i = 0; i < BURST; i++)
        {
            p.verdict[i] = ViaFrames.parse(address[i], length[i], p, i);
        }
        int forwarded = 0;
        for (int i = 0; i < BURST; i++)
        {
            if (p.verdict[i] == VERDICT_PROCESS && ViaFrames.natInbound(address[i], p, i, nat))
            {
                forwarded++;
            }
        }
        return forwarded;
    }

    @Benchmark
    public int framesChecked()
    {
        restore();
        final Region r = region;
        final long[] address = this.address;
        final int[] length = this.length;
        final Parsed p = parsed;
        for (int i = 0; i < BURST; i++)
        {
            p.verdict[i] = ViaCheckedFrames.parse(r, address[i], length[i], p, i);
        }
        int forwarded = 0;
        for (int i = 0; i < BURST; i++)
        {
            if (p.verdict[i] == VERDICT_PROCESS && ViaCheckedFrames.natInbound(r, address[i], p, i, nat))
            {
                forwarded++;
            }
        }
        return forwarded;
    }

    @Benchmark
    public int segmentShared()
    {
        return viaSegment(shared, offset);
    }

    @Benchmark
    public int segmentGlobal()
    {
        return viaSegment(global, offset);
    }

    @Benchmark
    public int segmentEverything()
    {
        return viaSegment(everything, address);
    }

    private int viaSegment(final MemorySegment segment, final long[] frame)
    {
        restore();
        final int[] length = this.length;
        final Parsed p = parsed;
        for (int i = 0; i < BURST; i++)
        {
            p.verdict[i] = ViaSegment.parse(segment, frame[i], length[i], p, i);
        }
        int forwarded = 0;
        for (int i = 0; i < BURST; i++)
        {
            if (p.verdict[i] == VERDICT_PROCESS && ViaSegment.natInbound(segment, frame[i], p, i, nat))
            {
                forwarded++;
            }
        }
        return forwarded;
    }

    @Benchmark
    public int segmentEverythingConstant()
    {
        restore();
        final long[] address = this.address;
        final int[] length = this.length;
        final Parsed p = parsed;
        for (int i = 0; i < BURST; i++)
        {
            p.verdict[i] = ViaEverything.parse(address[i], length[i], p, i);
        }
        int forwarded = 0;
        for (int i = 0; i < BURST; i++)
        {
            if (p.verdict[i] == VERDICT_PROCESS && ViaEverything.natInbound(address[i], p, i, nat))
            {
                forwarded++;
            }
        }
        return forwarded;
    }

    @Benchmark
    public int segmentSlice()
    {
        restore();
        final MemorySegment segment = shared;
        final long[] offset = this.offset;
        final int[] length = this.length;
        final Parsed p = parsed;
        for (int i = 0; i < BURST; i++)
        {
            p.verdict[i] = ViaSegment.parse(segment.asSlice(offset[i], length[i]), 0, length[i], p, i);
        }
        int forwarded = 0;
        for (int i = 0; i < BURST; i++)
        {
            if (p.verdict[i] == VERDICT_PROCESS &&
                ViaSegment.natInbound(segment.asSlice(offset[i], length[i]), 0, p, i, nat))
            {
                forwarded++;
            }
        }
        return forwarded;
    }

    @Benchmark
    public int agrona()
    {
        return viaAgrona();
    }

    @Benchmark
    @Fork(value = 1, jvmArgsAppend = {
        "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "-Dagrona.disable.bounds.checks=true"})
    public int agronaNoBoundsChecks()
    {
        return viaAgrona();
    }

    private int viaAgrona()
    {
        restore();
        final UnsafeBuffer buffer = unsafeBuffer;
        final int[] index = this.index;
        final int[] length = this.length;
        final Parsed p = parsed;
        for (int i = 0; i < BURST; i++)
        {
            p.verdict[i] = ViaAgrona.parse(buffer, index[i], length[i], p, i);
        }
        int forwarded = 0;
        for (int i = 0; i < BURST; i++)
        {
            if (p.verdict[i] == VERDICT_PROCESS && ViaAgrona.natInbound(buffer, index[i], p, i, nat))
            {
                forwarded++;
            }
        }
        return forwarded;
    }

    @Benchmark
    public int agronaWrap()
    {
        restore();
        final UnsafeBuffer buffer = flyweight;
        final long[] address = this.address;
        final int[] length = this.length;
        final Parsed p = parsed;
        for (int i = 0; i < BURST; i++)
        {
            buffer.wrap(address[i], length[i]);
            p.verdict[i] = ViaAgrona.parse(buffer, 0, length[i], p, i);
        }
        int forwarded = 0;
        for (int i = 0; i < BURST; i++)
        {
            if (p.verdict[i] == VERDICT_PROCESS)
            {
                buffer.wrap(address[i], length[i]);
                if (ViaAgrona.natInbound(buffer, 0, p, i, nat))
                {
                    forwarded++;
                }
            }
        }
        return forwarded;
    }

    // The accessor families below are the same code line for line; only the reads and writes differ. In every
    // variant parse is too big for C2 to inline into the burst loop (FreqInlineSize), so it is a call per frame, as
    // PacketParser.parse is in the pipeline; natInbound is inlined.

    /**
     * {@link Frames}: absolute addresses.
     */
    static final class ViaFrames
    {
        static int parse(final long frame, final int length, final Parsed p, final int i)
        {
            if (length < L3)
            {
                return VERDICT_DROP;
            }
            final int type = Frames.u16(frame + ETHER_TYPE);
            if (type == TYPE_VLAN || type == TYPE_QINQ)
            {
                return VERDICT_PASS;
            }
            if (type != TYPE_IPV4)
            {
                return VERDICT_PASS;
            }
            if (L3 + IP_MIN > length)
            {
                return VERDICT_DROP;
            }
            final long ip = frame + L3;
            final int versionIhl = Frames.u8(ip);
            final int headerLength = (versionIhl & 0x0F) << 2;
            final int totalLength = Frames.u16(ip + IP_TOTAL_LENGTH);
            if (versionIhl >>> 4 != 4 || headerLength != IP_MIN || totalLength < headerLength ||
                L3 + totalLength > length)
            {
                return VERDICT_DROP;
            }
            p.ipEnd[i] = L3 + totalLength;
            final int protocol = Frames.u8(ip + IP_PROTOCOL);
            p.protocol[i] = protocol;
            p.source[i] = Frames.i32(ip + IP_SOURCE);
            p.destination[i] = Frames.i32(ip + IP_DESTINATION);
            p.ttl[i] = Frames.u8(ip + IP_TTL);
            final int l4 = L3 + headerLength;
            p.l4Offset[i] = l4;
            if ((Frames.u16(ip + IP_FRAGMENT) & 0x3FFF) != 0 || protocol != PROTOCOL_TCP)
            {
                return VERDICT_DROP;
            }
            final int available = totalLength - headerLength;
            final long tcp = frame + l4;
            final int dataOffset = (Frames.u8(tcp + TCP_DATA_OFFSET) >>> 4) << 2;
            if (available < TCP_MIN || dataOffset < TCP_MIN || dataOffset > available)
            {
                return VERDICT_DROP;
            }
            p.tcpFlags[i] = Frames.u8(tcp + TCP_FLAGS);
            p.sourcePort[i] = Frames.u16(tcp);
            p.destinationPort[i] = Frames.u16(tcp + TCP_DESTINATION_PORT);
            return VERDICT_PROCESS;
        }

        static boolean natInbound(final long frame, final Parsed p, final int i, final Nat nat)
        {
            if (p.ttl[i] <= 1)
            {
                return false;
            }
            final long ip = frame + L3;
            final int oldAddress = p.destination[i];
            final int newAddress = nat.address();
            final int ttl = Frames.u8(ip + IP_TTL) - 1;
            final int check = Frames.u16(ip + IP_CHECKSUM) + 0x0100;
            Frames.putU16(ip + IP_CHECKSUM, check + (check >= 0xFFFF ? 1 : 0));
            Frames.putU8(ip + IP_TTL, ttl);
            Frames.putI32(ip + IP_DESTINATION, newAddress);
            Frames.putU16(ip + IP_CHECKSUM, Checksums.update32(Frames.u16(ip + IP_CHECKSUM), oldAddress, newAddress));
            final long tcp = frame + p.l4Offset[i];
            final long field = tcp + TCP_CHECKSUM;
            Frames.putU16(field, tcpChecksum(Frames.u16(field), oldAddress, newAddress,
                p.destinationPort[i], nat.port()));
            Frames.putU16(tcp + TCP_DESTINATION_PORT, nat.port());
            Frames.putI64(frame, nat.destinationMac() << 16 | nat.sourceMac() >>> 32);
            Frames.putI32(frame + 8, (int)nat.sourceMac());
            return true;
        }
    }

    /**
     * A control, not a candidate: {@link Frames} with a bounds check of its own on every access, against a region
     * object passed as a value (as a segment is): the cost of the check alone, without the segment machinery.
     */
    static final class ViaCheckedFrames
    {
        static long checked(final Region r, final long address, final int size)
        {
            Objects.checkIndex(address - r.base, r.capacity - size + 1);
            return address;
        }

        static int u8(final Region r, final long address)
        {
            return Frames.u8(checked(r, address, 1));
        }

        static int u16(final Region r, final long address)
        {
            return Frames.u16(checked(r, address, 2));
        }

        static int i32(final Region r, final long address)
        {
            return Frames.i32(checked(r, address, 4));
        }

        static int parse(final Region r, final long frame, final int length, final Parsed p, final int i)
        {
            if (length < L3)
            {
                return VERDICT_DROP;
            }
            final int type = u16(r, frame + ETHER_TYPE);
            if (type == TYPE_VLAN || type == TYPE_QINQ)
            {
                return VERDICT_PASS;
            }
            if (type != TYPE_IPV4)
            {
                return VERDICT_PASS;
            }
            if (L3 + IP_MIN > length)
            {
                return VERDICT_DROP;
            }
            final long ip = frame + L3;
            final int versionIhl = u8(r, ip);
            final int headerLength = (versionIhl & 0x0F) << 2;
            final int totalLength = u16(r, ip + IP_TOTAL_LENGTH);
            if (versionIhl >>> 4 != 4 || headerLength != IP_MIN || totalLength < headerLength ||
                L3 + totalLength > length)
            {
                return VERDICT_DROP;
            }
            p.ipEnd[i] = L3 + totalLength;
            final int protocol = u8(r, ip + IP_PROTOCOL);
            p.protocol[i] = protocol;
            p.source[i] = i32(r, ip + IP_SOURCE);
            p.destination[i] = i32(r, ip + IP_DESTINATION);
            p.ttl[i] = u8(r, ip + IP_TTL);
            final int l4 = L3 + headerLength;
            p.l4Offset[i] = l4;
            if ((u16(r, ip + IP_FRAGMENT) & 0x3FFF) != 0 || protocol != PROTOCOL_TCP)
            {
                return VERDICT_DROP;
            }
            final int available = totalLength - headerLength;
            final long tcp = frame + l4;
            final int dataOffset = (u8(r, tcp + TCP_DATA_OFFSET) >>> 4) << 2;
            if (available < TCP_MIN || dataOffset < TCP_MIN || dataOffset > available)
            {
                return VERDICT_DROP;
            }
            p.tcpFlags[i] = u8(r, tcp + TCP_FLAGS);
            p.sourcePort[i] = u16(r, tcp);
            p.destinationPort[i] = u16(r, tcp + TCP_DESTINATION_PORT);
            return VERDICT_PROCESS;
        }

        static boolean natInbound(final Region r, final long frame, final Parsed p, final int i, final Nat nat)
        {
            if (p.ttl[i] <= 1)
            {
                return false;
            }
            final long ip = frame + L3;
            final int oldAddress = p.destination[i];
            final int newAddress = nat.address();
            final int ttl = u8(r, ip + IP_TTL) - 1;
            final int check = u16(r, ip + IP_CHECKSUM) + 0x0100;
            Frames.putU16(checked(r, ip + IP_CHECKSUM, 2), check + (check >= 0xFFFF ? 1 : 0));
            Frames.putU8(checked(r, ip + IP_TTL, 1), ttl);
            Frames.putI32(checked(r, ip + IP_DESTINATION, 4), newAddress);
            Frames.putU16(checked(r, ip + IP_CHECKSUM, 2),
                Checksums.update32(u16(r, ip + IP_CHECKSUM), oldAddress, newAddress));
            final long tcp = frame + p.l4Offset[i];
            final long field = tcp + TCP_CHECKSUM;
            Frames.putU16(checked(r, field, 2), tcpChecksum(u16(r, field), oldAddress, newAddress,
                p.destinationPort[i], nat.port()));
            Frames.putU16(checked(r, tcp + TCP_DESTINATION_PORT, 2), nat.port());
            Frames.putI64(checked(r, frame, 8), nat.destinationMac() << 16 | nat.sourceMac() >>> 32);
            Frames.putI32(checked(r, frame + 8, 4), (int)nat.sourceMac());
            return true;
        }
    }

    /**
     * {@link MemorySegment}: offsets into a segment, big-endian unaligned layouts.
     */
    static final class ViaSegment
    {
        static int u8(final MemorySegment s, final long offset)
        {
            return s.get(BYTE, offset) & 0xFF;
        }

        static int u16(final MemorySegment s, final long offset)
        {
            return s.get(BE_SHORT, offset) & 0xFFFF;
        }

        static int parse(final MemorySegment s, final long frame, final int length, final Parsed p, final int i)
        {
            if (length < L3)
            {
                return VERDICT_DROP;
            }
            final int type = u16(s, frame + ETHER_TYPE);
            if (type == TYPE_VLAN || type == TYPE_QINQ)
            {
                return VERDICT_PASS;
            }
            if (type != TYPE_IPV4)
            {
                return VERDICT_PASS;
            }
            if (L3 + IP_MIN > length)
            {
                return VERDICT_DROP;
            }
            final long ip = frame + L3;
            final int versionIhl = u8(s, ip);
            final int headerLength = (versionIhl & 0x0F) << 2;
            final int totalLength = u16(s, ip + IP_TOTAL_LENGTH);
            if (versionIhl >>> 4 != 4 || headerLength != IP_MIN || totalLength < headerLength ||
                L3 + totalLength > length)
            {
                return VERDICT_DROP;
            }
            p.ipEnd[i] = L3 + totalLength;
            final int protocol = u8(s, ip + IP_PROTOCOL);
            p.protocol[i] = protocol;
            p.source[i] = s.get(BE_INT, ip + IP_SOURCE);
            p.destination[i] = s.get(BE_INT, ip + IP_DESTINATION);
            p.ttl[i] = u8(s, ip + IP_TTL);
            final int l4 = L3 + headerLength;
            p.l4Offset[i] = l4;
            if ((u16(s, ip + IP_FRAGMENT) & 0x3FFF) != 0 || protocol != PROTOCOL_TCP)
            {
                return VERDICT_DROP;
            }
            final int available = totalLength - headerLength;
            final long tcp = frame + l4;
            final int dataOffset = (u8(s, tcp + TCP_DATA_OFFSET) >>> 4) << 2;
            if (available < TCP_MIN || dataOffset < TCP_MIN || dataOffset > available)
            {
                return VERDICT_DROP;
            }
            p.tcpFlags[i] = u8(s, tcp + TCP_FLAGS);
            p.sourcePort[i] = u16(s, tcp);
            p.destinationPort[i] = u16(s, tcp + TCP_DESTINATION_PORT);
            return VERDICT_PROCESS;
        }

        static boolean natInbound(final MemorySegment s, final long frame, final Parsed p, final int i, final Nat nat)
        {
            if (p.ttl[i] <= 1)
            {
                return false;
            }
            final long ip = frame + L3;
            final int oldAddress = p.destination[i];
            final int newAddress = nat.address();
            final int ttl = u8(s, ip + IP_TTL) - 1;
            final int check = u16(s, ip + IP_CHECKSUM) + 0x0100;
            s.set(BE_SHORT, ip + IP_CHECKSUM, (short)(check + (check >= 0xFFFF ? 1 : 0)));
            s.set(BYTE, ip + IP_TTL, (byte)ttl);
            s.set(BE_INT, ip + IP_DESTINATION, newAddress);
            s.set(BE_SHORT, ip + IP_CHECKSUM,
                (short)Checksums.update32(u16(s, ip + IP_CHECKSUM), oldAddress, newAddress));
            final long tcp = frame + p.l4Offset[i];
            final long field = tcp + TCP_CHECKSUM;
            s.set(BE_SHORT, field, (short)tcpChecksum(u16(s, field), oldAddress, newAddress,
                p.destinationPort[i], nat.port()));
            s.set(BE_SHORT, tcp + TCP_DESTINATION_PORT, (short)nat.port());
            s.set(BE_LONG, frame, nat.destinationMac() << 16 | nat.sourceMac() >>> 32);
            s.set(BE_INT, frame + 8, (int)nat.sourceMac());
            return true;
        }
    }

    /**
     * The "everything" segment as a {@code static final} constant, at absolute addresses: the same code as
     * {@link ViaSegment}, with the segment a compile-time constant instead of a value.
     */
    static final class ViaEverything
    {
        static int u8(final long offset)
        {
            return ALL.get(BYTE, offset) & 0xFF;
        }

        static int u16(final long offset)
        {
            return ALL.get(BE_SHORT, offset) & 0xFFFF;
        }

        static int parse(final long frame, final int length, final Parsed p, final int i)
        {
            if (length < L3)
            {
                return VERDICT_DROP;
            }
            final int type = u16(frame + ETHER_TYPE);
            if (type == TYPE_VLAN || type == TYPE_QINQ)
            {
                return VERDICT_PASS;
            }
            if (type != TYPE_IPV4)
            {
                return VERDICT_PASS;
            }
            if (L3 + IP_MIN > length)
            {
                return VERDICT_DROP;
            }
            final long ip = frame + L3;
            final int versionIhl = u8(ip);
            final int headerLength = (versionIhl & 0x0F) << 2;
            final int totalLength = u16(ip + IP_TOTAL_LENGTH);
            if (versionIhl >>> 4 != 4 || headerLength != IP_MIN || totalLength < headerLength ||
                L3 + totalLength > length)
            {
                return VERDICT_DROP;
            }
            p.ipEnd[i] = L3 + totalLength;
            final int protocol = u8(ip + IP_PROTOCOL);
            p.protocol[i] = protocol;
            p.source[i] = ALL.get(BE_INT, ip + IP_SOURCE);
            p.destination[i] = ALL.get(BE_INT, ip + IP_DESTINATION);
            p.ttl[i] = u8(ip + IP_TTL);
            final int l4 = L3 + headerLength;
            p.l4Offset[i] = l4;
            if ((u16(ip + IP_FRAGMENT) & 0x3FFF) != 0 || protocol != PROTOCOL_TCP)
            {
                return VERDICT_DROP;
            }
            final int available = totalLength - headerLength;
            final long tcp = frame + l4;
            final int dataOffset = (u8(tcp + TCP_DATA_OFFSET) >>> 4) << 2;
            if (available < TCP_MIN || dataOffset < TCP_MIN || dataOffset > available)
            {
                return VERDICT_DROP;
            }
            p.tcpFlags[i] = u8(tcp + TCP_FLAGS);
            p.sourcePort[i] = u16(tcp);
            p.destinationPort[i] = u16(tcp + TCP_DESTINATION_PORT);
            return VERDICT_PROCESS;
        }

        static boolean natInbound(final long frame, final Parsed p, final int i, final Nat nat)
        {
            if (p.ttl[i] <= 1)
            {
                return false;
            }
            final long ip = frame + L3;
            final int oldAddress = p.destination[i];
            final int newAddress = nat.address();
            final int ttl = u8(ip + IP_TTL) - 1;
            final int check = u16(ip + IP_CHECKSUM) + 0x0100;
            ALL.set(BE_SHORT, ip + IP_CHECKSUM, (short)(check + (check >= 0xFFFF ? 1 : 0)));
            ALL.set(BYTE, ip + IP_TTL, (byte)ttl);
            ALL.set(BE_INT, ip + IP_DESTINATION, newAddress);
            ALL.set(BE_SHORT, ip + IP_CHECKSUM,
                (short)Checksums.update32(u16(ip + IP_CHECKSUM), oldAddress, newAddress));
            final long tcp = frame + p.l4Offset[i];
            final long field = tcp + TCP_CHECKSUM;
            ALL.set(BE_SHORT, field, (short)tcpChecksum(u16(field), oldAddress, newAddress,
                p.destinationPort[i], nat.port()));
            ALL.set(BE_SHORT, tcp + TCP_DESTINATION_PORT, (short)nat.port());
            ALL.set(BE_LONG, frame, nat.destinationMac() << 16 | nat.sourceMac() >>> 32);
            ALL.set(BE_INT, frame + 8, (int)nat.sourceMac());
            return true;
        }
    }

    /**
     * Agrona {@link UnsafeBuffer}: indices into a buffer, explicit big-endian order.
     */
    static final class ViaAgrona
    {
        static int u8(final UnsafeBuffer b, final int index)
        {
            return b.getByte(index) & 0xFF;
        }

        static int u16(final UnsafeBuffer b, final int index)
        {
            return b.getShort(index, ByteOrder.BIG_ENDIAN) & 0xFFFF;
        }

        static int parse(final UnsafeBuffer b, final int frame, final int length, final Parsed p, final int i)
        {
            if (length < L3)
            {
                return VERDICT_DROP;
            }
            final int type = u16(b, frame + ETHER_TYPE);
            if (type == TYPE_VLAN || type == TYPE_QINQ)
            {
                return VERDICT_PASS;
            }
            if (type != TYPE_IPV4)
            {
                return VERDICT_PASS;
            }
            if (L3 + IP_MIN > length)
            {
                return VERDICT_DROP;
            }
            final int ip = frame + L3;
            final int versionIhl = u8(b, ip);
            final int headerLength = (versionIhl & 0x0F) << 2;
            final int totalLength = u16(b, ip + IP_TOTAL_LENGTH);
            if (versionIhl >>> 4 != 4 || headerLength != IP_MIN || totalLength < headerLength ||
                L3 + totalLength > length)
            {
                return VERDICT_DROP;
            }
            p.ipEnd[i] = L3 + totalLength;
            final int protocol = u8(b, ip + IP_PROTOCOL);
            p.protocol[i] = protocol;
            p.source[i] = b.getInt(ip + IP_SOURCE, ByteOrder.BIG_ENDIAN);
            p.destination[i] = b.getInt(ip + IP_DESTINATION, ByteOrder.BIG_ENDIAN);
            p.ttl[i] = u8(b, ip + IP_TTL);
            final int l4 = L3 + headerLength;
            p.l4Offset[i] = l4;
            if ((u16(b, ip + IP_FRAGMENT) & 0x3FFF) != 0 || protocol != PROTOCOL_TCP)
            {
                return VERDICT_DROP;
            }
            final int available = totalLength - headerLength;
            final int tcp = frame + l4;
            final int dataOffset = (u8(b, tcp + TCP_DATA_OFFSET) >>> 4) << 2;
            if (available < TCP_MIN || dataOffset < TCP_MIN || dataOffset > available)
            {
                return VERDICT_DROP;
            }
            p.tcpFlags[i] = u8(b, tcp + TCP_FLAGS);
            p.sourcePort[i] = u16(b, tcp);
            p.destinationPort[i] = u16(b, tcp + TCP_DESTINATION_PORT);
            return VERDICT_PROCESS;
        }

        static boolean natInbound(final UnsafeBuffer b, final int frame, final Parsed p, final int i, final Nat nat)
        {
            if (p.ttl[i] <= 1)
            {
                return false;
            }
            final int ip = frame + L3;
            final int oldAddress = p.destination[i];
            final int newAddress = nat.address();
            final int ttl = u8(b, ip + IP_TTL) - 1;
            final int check = u16(b, ip + IP_CHECKSUM) + 0x0100;
            b.putShort(ip + IP_CHECKSUM, (short)(check + (check >= 0xFFFF ? 1 : 0)), ByteOrder.BIG_ENDIAN);
            b.putByte(ip + IP_TTL, (byte)ttl);
            b.putInt(ip + IP_DESTINATION, newAddress, ByteOrder.BIG_ENDIAN);
            b.putShort(ip + IP_CHECKSUM,
                (short)Checksums.update32(u16(b, ip + IP_CHECKSUM), oldAddress, newAddress), ByteOrder.BIG_ENDIAN);
            final int tcp = frame + p.l4Offset[i];
            final int field = tcp + TCP_CHECKSUM;
            b.putShort(field, (short)tcpChecksum(u16(b, field), oldAddress, newAddress,
                p.destinationPort[i], nat.port()), ByteOrder.BIG_ENDIAN);
            b.putShort(tcp + TCP_DESTINATION_PORT, (short)nat.port(), ByteOrder.BIG_ENDIAN);
            b.putLong(frame, nat.destinationMac() << 16 | nat.sourceMac() >>> 32, ByteOrder.BIG_ENDIAN);
            b.putInt(frame + 8, (int)nat.sourceMac(), ByteOrder.BIG_ENDIAN);
            return true;
        }
    }
}
