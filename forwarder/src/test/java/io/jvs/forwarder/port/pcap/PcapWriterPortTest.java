package io.jvs.forwarder.port.pcap;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.forwarder.port.memory.FrameTemplates;
import io.jvs.forwarder.port.memory.MemoryPort;
import io.jvs.forwarder.port.pcap.Captures.Frame;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the writer port transmits, the file port (libpcap) and jvs's reader read back unchanged.
 */
class PcapWriterPortTest
{
    private static final int[] ALL = new int[FrameBurst.MAX_FRAMES];

    static
    {
        for (int i = 0; i < ALL.length; i++)
        {
            ALL[i] = i;
        }
    }

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"afs.pcap", "of13_ericsson.pcapng", "802.1ad_QinQ.pcap", "nhrp.pcapng"})
    void shouldWriteFramesThatReadBackByteForByteWithTheirTimestamps(final String name)
    {
        final Path source = Captures.corpus(name);
        final Path copy = dir.resolve("copy.pcap");
        final PcapFileSettings bigBuffers = PcapFileSettings.DEFAULT.withBuffers(64, 65536 + 256, 256);
        try (PcapFilePort reader = PcapFilePort.open(0, source, bigBuffers);
            PcapWriterPort writer = PcapWriterPort.open(1, copy, 0))
        {
            final FrameBurst burst = new FrameBurst();
            while (!reader.atEnd())
            {
                burst.clear();
                final int received = reader.receive(burst, 0);
                for (int i = 0; i < received; i++)
                {
                    burst.receiveTimeNs(i, reader.recordTimestampNs(burst, i));
                }
                assertThat(writer.transmit(burst, ALL, received)).isEqualTo(received);
                reader.release(burst);
            }
            assertThat(writer.counters().txFrames()).isEqualTo(reader.counters().rxFrames());
            assertThat(writer.counters().txCopied()).isEqualTo(reader.counters().rxFrames());
            assertThat(writer.counters().txBytes()).isEqualTo(reader.counters().rxBytes());
        }

        final List<Frame> original = Captures.readWithCore(source);
        Captures.assertSameFrames(Captures.readWithCore(copy), original);
        try (PcapFilePort reread = PcapFilePort.open(0, copy, bigBuffers))
        {
            Captures.assertSameFrames(Captures.readWithPort(reread), original);
        }
    }

    @Test
    void shouldStampNanoTimeReceiveTimesWithTheWallClock()
    {
        final Path file = dir.resolve("now.pcap");
        final long before = epochNowNs();
        try (MemoryPort source = new MemoryPort(0, FrameTemplates.repeating(frame(60)));
            PcapWriterPort writer = PcapWriterPort.open(1, file))
        {
            final FrameBurst burst = new FrameBurst();
            source.receive(burst, System.nanoTime());
            writer.transmit(burst, ALL, 1);

            assertThat(burst.taken(0)).as("the writer copies: the buffer stays the receiver's").isFalse();
            assertThat(writer.receive(new FrameBurst(), 0)).isZero();
            source.release(burst);
        }
        final long after = epochNowNs();

        assertThat(Captures.readWithCore(file)).singleElement()
            .satisfies(frame -> assertThat(frame.timestampNs()).isBetween(before - 1_000_000, after + 1_000_000));
    }

    @Test
    void shouldWriteWithoutAllocating()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemoryEnabled()).as("this JVM measures allocation per thread").isTrue();
        try (MemoryPort source = new MemoryPort(0, FrameTemplates.repeating(frame(60)));
            PcapWriterPort writer = PcapWriterPort.open(1, dir.resolve("many.pcap")))
        {
            final FrameBurst burst = new FrameBurst();
            source.receive(burst, System.nanoTime());
            writer.transmit(burst, ALL, 32);

            final long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 20_000; i++)
            {
                writer.transmit(burst, ALL, 32);
            }
            writer.flush();
            final long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;

            assertThat(writer.counters().txFrames()).isEqualTo(20_001 * 32);
            assertThat(writer.failure()).isEmpty();
            assertThat(allocated).as("640,000 frames").isLessThan(64 * 1024);
            source.release(burst);
        }
    }

    @Test
    void shouldNameAFileItCannotCreate()
    {
        final Path file = dir.resolve("no/such/dir/out.pcap");

        assertThatThrownBy(() -> PcapWriterPort.open(0, file))
            .isInstanceOf(PcapPortException.class)
            .hasMessageContaining("pcap file " + file + " cannot be created");
    }

    private static long epochNowNs()
    {
        final Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    private static byte[] frame(final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 7 + 1);
        }
        return bytes;
    }
}
