package io.jvs.perf;

import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.EndReason;
import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapReader;
import io.jvs.core.pcap.PcapWriter;
import io.jvs.core.pcap.TimestampPrecision;
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
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * How fast {@link PcapReader} walks a big capture: 10 M records of 64-byte frames (800 MB as pcap,
 * 960 MB as pcapng), written into /tmp by {@link PcapWriter} (pcap) or by this class (pcapng) at set-up,
 * read from the page cache, deleted at tear-down. One operation is one record. With
 * {@code -p records=100000} the file fits in the L3 cache and is read 100 times per invocation: the
 * reader's own cost, without the memory stream.
 * <ul>
 *   <li>{@code iterate}: next() and the record's length and timestamp, what a replay loop needs to pace
 *   and hand off a frame;</li>
 *   <li>{@code iterateAndTouch}: the same, plus two 8-byte loads from each frame (its MAC addresses and
 *   EtherType), so every record's cache lines really come in.</li>
 *   <li>{@code pcap4jRawPackets}: the alternative replay could have used, libpcap through pcap4j
 *   ({@code pcap_next_ex} and a byte[] copy of each record), touching the same two words.</li>
 * </ul>
 * <pre>
 *   java -jar perf/target/benchmarks.jar PcapReadBenchmark -prof gc
 *   java -cp perf/target/benchmarks.jar io.jvs.perf.PcapReadBenchmark [out.json]
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {
    "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class PcapReadBenchmark
{
    public static final int FRAME = 64;
    /** Records read per benchmark invocation: one pass over 10 M, or 100 passes over 100 k. */
    public static final int OPERATIONS = 10_000_000;

    @Param({"PCAP", "PCAPNG"})
    public String format;

    /**
     * 10 M: 800 MB, streamed from memory; {@code -p records=100000} (8 MB) stays in the L3 cache. Must
     * divide {@link #OPERATIONS}.
     */
    @Param({"10000000"})
    public int records;

    private int passes;

    private Path path;
    private PcapReader reader;

    @Setup(Level.Trial)
    public void setUp() throws IOException
    {
        if (records <= 0 || OPERATIONS % records != 0)
        {
            throw new IllegalArgumentException("records must divide " + OPERATIONS + ": " + records);
        }
        passes = OPERATIONS / records;
        path = Files.createTempFile("jvs-pcap-bench-", "." + format.toLowerCase());
        final long start = System.nanoTime();
        if (format.equals("PCAP"))
        {
            writePcap(path, records);
        }
        else
        {
            writePcapng(path, records);
        }
        final long ns = System.nanoTime() - start;
        System.out.printf("%n%s: wrote %,d records (%,d bytes) in %.3f s, %.1f M records/s%n", path, records,
            Files.size(path), ns / 1e9, records / (ns / 1e3));
        reader = PcapReader.open(path);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException
    {
        reader.close();
        Files.deleteIfExists(path);
    }

    private static void writePcap(final Path path, final int records) throws IOException
    {
        try (Arena arena = Arena.ofConfined(); PcapWriter writer = PcapWriter.open(path))
        {
            final MemorySegment frame = arena.allocate(FRAME);
            for (int i = 0; i < FRAME; i++)
            {
                frame.set(ValueLayout.JAVA_BYTE, i, (byte)i);
            }
            final long address = frame.address();
            long now = 1_700_000_000_000_000_000L;
            for (int i = 0; i < records; i++)
            {
                Frames.putI32(address + 26, i); // a different source address per frame
                writer.write(now, address, FRAME);
                now += 100;
            }
        }
    }

    /**
     * Little-endian pcapng: a Section Header Block, one Ethernet interface with ns timestamps, then one
     * Enhanced Packet Block per frame.
     */
    private static void writePcapng(final Path path, final int records) throws IOException
    {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING))
        {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
            buffer.putInt(0x0A0D0D0A).putInt(28).putInt(0x1A2B3C4D).putShort((short)1).putShort((short)0)
                .putLong(-1).putInt(28);
            buffer.putInt(1).putInt(32).putShort((short)LinkType.ETHERNET).putShort((short)0).putInt(0)
                .putShort((short)9).putShort((short)1).put((byte)9).put(new byte[3]).putInt(0).putInt(32);
            final int block = 32 + FRAME;
            long now = 1_700_000_000_000_000_000L;
            for (int i = 0; i < records; i++)
            {
                if (buffer.remaining() < block)
                {
                    buffer.flip();
                    while (buffer.hasRemaining())
                    {
                        channel.write(buffer);
                    }
                    buffer.clear();
                }
                buffer.putInt(6).putInt(block).putInt(0).putInt((int)(now >>> 32)).putInt((int)now)
                    .putInt(FRAME).putInt(FRAME);
                for (int b = 0; b < FRAME; b += 4)
                {
                    buffer.putInt(b == 24 ? Integer.reverseBytes(i) : b);
                }
                buffer.putInt(block);
                now += 100;
            }
            buffer.flip();
            while (buffer.hasRemaining())
            {
                channel.write(buffer);
            }
        }
    }

    /**
     * libpcap's reader through pcap4j (JNA): one native call and one byte[] per record.
     */
    @Benchmark
    @OperationsPerInvocation(OPERATIONS)
    public long pcap4jRawPackets() throws Exception
    {
        long sum = 0;
        long count = 0;
        for (int pass = 0; pass < passes; pass++)
        {
            try (org.pcap4j.core.PcapHandle handle = org.pcap4j.core.Pcaps.openOffline(path.toString(),
                org.pcap4j.core.PcapHandle.TimestampPrecision.NANO))
            {
                for (byte[] raw = handle.getNextRawPacket(); raw != null; raw = handle.getNextRawPacket())
                {
                    sum += raw.length + raw[0] + raw[8];
                    count++;
                }
            }
        }
        if (count != OPERATIONS)
        {
            throw new IllegalStateException("pcap4j read " + count + " records, not " + OPERATIONS);
        }
        return sum;
    }

    /**
     * @return a sum of what each record gave, so that nothing is dead code.
     */
    @Benchmark
    @OperationsPerInvocation(OPERATIONS)
    public long iterate()
    {
        final PcapReader reader = this.reader;
        long sum = 0;
        for (int pass = 0; pass < passes; pass++)
        {
            reader.rewind();
            while (reader.next())
            {
                sum += reader.capturedLength() + reader.timestampNs();
            }
            check(reader);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(OPERATIONS)
    public long iterateAndTouch()
    {
        final PcapReader reader = this.reader;
        long sum = 0;
        for (int pass = 0; pass < passes; pass++)
        {
            reader.rewind();
            while (reader.next())
            {
                final long address = reader.address();
                sum += reader.capturedLength() + reader.timestampNs() + Frames.i64(address) + Frames.i64(address + 8);
            }
            check(reader);
        }
        return sum;
    }

    private void check(final PcapReader reader)
    {
        if (reader.records() != records || reader.endReason() != EndReason.END_OF_FILE)
        {
            throw new IllegalStateException(reader.toString());
        }
    }

    public static void main(final String[] args) throws RunnerException
    {
        final Options options = new OptionsBuilder()
            .include("\\." + PcapReadBenchmark.class.getSimpleName() + "\\.")
            .addProfiler(GCProfiler.class)
            .resultFormat(ResultFormatType.JSON)
            .result(args.length > 0 ? args[0] : "/tmp/pcap-read.json")
            .build();
        new Runner(options).run();
    }
}
