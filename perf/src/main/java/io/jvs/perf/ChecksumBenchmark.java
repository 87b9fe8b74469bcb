package io.jvs.perf;

import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * What {@link Checksums} costs per packet: full sums by segment length, the IPv4 header checksum, and the
 * incremental updates NAT and forwarding use. {@code words16} is the plain 16-bit-at-a-time loop, kept as the
 * baseline the 8-byte loop is measured against. The IP header sits at offset 14, after an Ethernet header, as
 * in a real frame (so 8-byte reads are not 8-byte aligned).
 * <pre>
 *   java -jar perf/target/benchmarks.jar ChecksumBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class ChecksumBenchmark
{
    private static final int IP_OFFSET = 14;
    private static final int IPV4_HEADER_LENGTH = 20;

    private ByteBuffer buffer;
    private long ip;
    private int oldAddress;
    private int newAddress;
    private int oldPort;
    private int newPort;
    private long oldHigh;
    private long oldLow;
    private long newHigh;
    private long newLow;
    private int checksum;

    /**
     * The frame for the length-independent benchmarks: a random IPv4 header and TCP segment.
     */
    @Setup(Level.Trial)
    public void setUp()
    {
        final Random random = new Random(1);
        buffer = ByteBuffer.allocateDirect(2048);
        ip = Frames.addressOf(buffer) + IP_OFFSET;
        fillFrame(random, ip, 40);
        oldAddress = random.nextInt();
        newAddress = random.nextInt();
        oldPort = random.nextInt(0x10000);
        newPort = random.nextInt(0x10000);
        oldHigh = random.nextLong();
        oldLow = random.nextLong();
        newHigh = random.nextLong();
        newLow = random.nextLong();
        checksum = random.nextInt(0xFFFF);
    }

    /**
     * A layer-4 segment of the given length after an IPv4 header (the IPv6 benchmarks use the same bytes).
     */
    @State(Scope.Thread)
    public static class Segment
    {
        @Param({"20", "64", "576", "1460"})
        public int length;

        private ByteBuffer buffer;
        private long ip;

        @Setup(Level.Trial)
        public void setUp()
        {
            buffer = ByteBuffer.allocateDirect(2048);
            ip = Frames.addressOf(buffer) + IP_OFFSET;
            fillFrame(new Random(length), ip, length);
        }
    }

    @Benchmark
    public int checksum(final Segment segment)
    {
        return Checksums.checksum(segment.ip + IPV4_HEADER_LENGTH, segment.length);
    }

    @Benchmark
    public int words16(final Segment segment)
    {
        final long address = segment.ip + IPV4_HEADER_LENGTH;
        final int length = segment.length;
        long sum = 0;
        for (int i = 0; i < (length & ~1); i += 2)
        {
            sum += Frames.u16(address + i);
        }
        if ((length & 1) != 0)
        {
            sum += Frames.u8(address + length - 1) << 8;
        }
        while ((sum >>> 16) != 0)
        {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return ~(int)sum & 0xFFFF;
    }

    @Benchmark
    public int tcpChecksumV4(final Segment segment)
    {
        return Checksums.transportChecksumV4(segment.ip + 12, 6, segment.ip + IPV4_HEADER_LENGTH, segment.length);
    }

    @Benchmark
    public boolean isTcpChecksumValidV6(final Segment segment)
    {
        return Checksums.isTransportChecksumValidV6(segment.ip, 6, segment.ip + IPV4_HEADER_LENGTH, segment.length);
    }

    @Benchmark
    public int ipv4HeaderChecksum()
    {
        return Checksums.ipv4HeaderChecksum(ip);
    }

    @Benchmark
    public boolean isIpv4HeaderChecksumValid()
    {
        return Checksums.isIpv4HeaderChecksumValid(ip);
    }

    /**
     * NAT of the frame's IPv4 destination and TCP port in place: the TTL, both checksums, the address and the port
     * (the TTL wraps over many calls, which the update does not mind).
     */
    @Benchmark
    public int natV4()
    {
        final int change = Checksums.natAddressV4(ip, 16, newAddress);
        Checksums.natPortV4(ip + IPV4_HEADER_LENGTH + 16, false, ip + IPV4_HEADER_LENGTH + 2, newPort, change);
        return change;
    }

    @Benchmark
    public int updateUdpV6()
    {
        return Checksums.updateUdpV6(checksum, oldHigh, oldLow, newHigh, newLow, oldPort, newPort);
    }

    @Benchmark
    public int update32()
    {
        return Checksums.update32(checksum, oldAddress, newAddress);
    }

    /**
     * Writes the header each time; the TTL wraps from 0 to 255, which costs nothing extra.
     */
    @Benchmark
    public int decrementTtl()
    {
        return Checksums.decrementTtl(ip);
    }

    private static void fillFrame(final Random random, final long ip, final int segmentLength)
    {
        final byte[] bytes = new byte[IPV4_HEADER_LENGTH + segmentLength];
        random.nextBytes(bytes);
        Frames.write(bytes, ip);
        Frames.putU8(ip, 0x45);
        Frames.putU16(ip + 2, bytes.length);
        Frames.putU8(ip + 9, 6);
        Frames.putU16(ip + 10, Checksums.ipv4HeaderChecksum(ip));
    }
}
